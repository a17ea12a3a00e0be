import { createRequire } from 'node:module';
import type { DestinationStream } from 'pino';
import type PinoPretty from 'pino-pretty';

export type LogFormat = 'auto' | 'json' | 'pretty';

/**
 * Where log lines go. On a terminal (or LOG_FORMAT=pretty): pino-pretty's readable lines — time, level,
 * message, then the fields. Otherwise (or LOG_FORMAT=json): undefined, i.e. pino's own JSON lines on stdout,
 * one object per line, for collectors. pino-pretty is loaded only when it is used.
 */
export function logDestination(format: LogFormat, out: NodeJS.WritableStream & { isTTY?: boolean } = process.stdout): DestinationStream | undefined {
  const pretty = format === 'pretty' || (format === 'auto' && out.isTTY === true);
  if (!pretty) return undefined;
  const build = createRequire(import.meta.url)('pino-pretty') as typeof PinoPretty;
  return build({ colorize: out.isTTY === true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname', sync: true, destination: out });
}
