/**
 * The "Integrate in five minutes" guide is executable: its ```ts blocks, joined in order, are type-checked
 * against the SDK's source and run with tsx against a real server, and what they print must match the
 * guide's ```text block (`…` stands for anything). `@psa/sdk` is mapped to sdk/src by tsconfig `paths`, so
 * the code runs exactly as the reader copies it.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type LiveServer } from './server-kit.ts';

/** The markdown holding the guide, and its section (from this heading to the next `## `). */
const GUIDE_PATH = fileURLToPath(new URL('../../README.md', import.meta.url));
const GUIDE_HEADING = '## Integrate in five minutes';

function guideSection(markdown: string): string {
  const start = markdown.indexOf(`${GUIDE_HEADING}\n`);
  if (start < 0) throw new Error(`${GUIDE_PATH} has no '${GUIDE_HEADING}' section`);
  const end = markdown.indexOf('\n## ', start + GUIDE_HEADING.length);
  return markdown.slice(start, end < 0 ? undefined : end);
}

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SDK_ENTRY = join(ROOT, 'sdk/src/index.ts');
const run = promisify(execFile);

/** The contents of the fenced blocks of one language, in order. */
function fencedBlocks(markdown: string, language: string): string[] {
  return [...markdown.matchAll(new RegExp(`^\`\`\`${language}\\n([\\s\\S]*?)^\`\`\`$`, 'gm'))].map((m) => m[1]!);
}

/** A port nobody listens on now, for the guide's webhook receiver. */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

let server: LiveServer;
let dir: string;

beforeAll(async () => {
  // The guide's receiver is on 127.0.0.1, which the server refuses as a webhook target unless allowed.
  server = await startServer({ env: { PSA_WEBHOOK_ALLOW_PRIVATE: '127.0.0.1/32' } });
  dir = mkdtempSync(join(tmpdir(), 'psa-five-minutes-'));
});
afterAll(async () => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  await server?.close();
});

describe(`the guide in ${GUIDE_PATH}`, () => {
  it('type-checks, runs against a server and prints what it says', { timeout: 240_000 }, async () => {
    const markdown = guideSection(readFileSync(GUIDE_PATH, 'utf8'));
    const code = fencedBlocks(markdown, 'ts');
    const expected = fencedBlocks(markdown, 'text');
    expect(code.length, 'the guide has no ```ts block').toBeGreaterThan(0);
    expect(expected, 'the guide shows its output in one ```text block').toHaveLength(1);

    // .mts: an ES module wherever it is, for top-level await.
    const script = join(dir, 'quickstart.mts');
    writeFileSync(script, code.join('\n'));
    const tsconfig = join(dir, 'tsconfig.json');
    writeFileSync(tsconfig, JSON.stringify({
      extends: join(ROOT, 'tsconfig.json'),
      compilerOptions: { noEmit: true, rootDir: '/', typeRoots: [join(ROOT, 'node_modules/@types')], paths: { '@psa/sdk': [SDK_ENTRY] } },
      include: [],
      files: [script],
    }));

    const tsc = await run(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', tsconfig], { cwd: ROOT }).catch((err: { stdout: string }) => err);
    expect(tsc.stdout, 'the guide\'s code does not type-check').toBe('');

    const env = { ...process.env, PSA_URL: server.baseUrl, PSA_API_KEY: server.apiKey, WEBHOOK_PORT: String(await freePort()) };
    const result = await run(process.execPath, [join(ROOT, 'node_modules/tsx/dist/cli.mjs'), '--tsconfig', tsconfig, script], { cwd: dir, env })
      .catch((err: { stdout: string; stderr: string; code: number }) => err);
    const printed = result.stdout.trimEnd().split('\n');
    const lines = expected[0]!.trimEnd().split('\n');
    expect(printed, `stderr: ${result.stderr}`).toHaveLength(lines.length);
    lines.forEach((line, i) => {
      const pattern = new RegExp(`^${line.split('…').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.+')}$`);
      expect(printed[i]).toMatch(pattern);
    });
  });
});
