import { PassThrough } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { logDestination } from './logging.ts';

/** A stream standing in for stdout, terminal or not, collecting what is written. */
function capture(isTTY: boolean) {
  const out = Object.assign(new PassThrough(), { isTTY });
  let text = '';
  out.on('data', (chunk: Buffer) => { text += chunk.toString('utf8'); });
  // Colours (on a terminal) are escape sequences (ESC [ … m) around the words.
  const colours = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g');
  return { out, text: () => text.replace(colours, '') };
}

describe('log destination', () => {
  it('a terminal gets readable lines: level, message and fields, no JSON', () => {
    const { out, text } = capture(true);
    const log = pino({ level: 'info' }, logDestination('auto', out));
    log.info({ request_id: 'r-1' }, 'request completed');
    expect(text()).toMatch(/INFO.*request completed/);
    expect(text()).toContain('request_id: "r-1"');
    expect(() => JSON.parse(text())).toThrow();
  });

  it('anything else gets JSON lines (the default destination); LOG_FORMAT overrides either way', () => {
    expect(logDestination('auto', capture(false).out)).toBeUndefined();
    expect(logDestination('json', capture(true).out)).toBeUndefined();
    const { out, text } = capture(false);
    pino({ level: 'info' }, logDestination('pretty', out)).warn('disk almost full');
    expect(text()).toMatch(/WARN.*disk almost full/);
  });
});
