#!/usr/bin/env node
/**
 * The compiled build in dist/ and whether it is current. tsc -p tsconfig.build.json compiles every module; esbuild
 * then bundles each entry point (main, worker, cli) into one file with the project's modules and the pure-JavaScript
 * packages it loads at start (fastify, kysely, ajv, typebox, undici, …): loading ~1,500 small modules cost ~1 s of
 * CPU at every start. Packages with native code, WebAssembly, worker threads or files of their own, and those loaded
 * on first use, stay external (BUNDLE_EXTERNAL). Finally dist/embedded-template, the migrated embedded database a
 * new data directory starts from.
 *
 *   node bin/build.js               builds (npm run build; CI)
 *   node bin/build.js --if-stale    builds only when dist/ is missing or older than the sources (npm install runs
 *                                   this as `prepare`; without TypeScript, e.g. npm ci --omit=dev, it says so and
 *                                   leaves dist/ alone)
 *
 * dist/.built marks a finished build; its mtime is the moment the build started, so a source saved during a
 * build counts as newer. The build is stale when any non-test .ts file under src/, a tsconfig, or the installed
 * packages (node_modules/.package-lock.json, rewritten by every npm install) are newer.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** Packages the bundles import from node_modules rather than contain (see the header). */
const BUNDLE_EXTERNAL = [
  '@electric-sql/pglite', // WebAssembly and data files next to its modules
  '@node-rs/argon2', // native
  'sharp', // native; loaded on first use
  'pdfkit', // font files; loaded on first use
  'nodemailer', // loaded on first use
  'ioredis', // loaded with REDIS_URL only
  'pg', // loaded with DATABASE_URL only
  'jsonata', // loaded on first use
  'markdown-it', // loaded on first use
  'sanitize-html', // loaded on first use
  'undici', // loaded on first use (platform/net/undici.ts)
  'pino', // transports run in worker threads from its files
  '@fastify/swagger', // reads its package.json
  '@fastify/swagger-ui', // serves its static files
];

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const DIST = join(ROOT, 'dist');
const STAMP = join(DIST, '.built');

function newestSourceMs(dir = join(ROOT, 'src')) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSourceMs(path));
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts')) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

/** Why dist/ cannot be run as it is ('missing' or 'stale'), or undefined when it is current. */
export function buildProblem() {
  if (!existsSync(STAMP)) return 'missing';
  const built = statSync(STAMP).mtimeMs;
  const configs = ['tsconfig.json', 'tsconfig.build.json', 'node_modules/.package-lock.json']
    .filter((f) => existsSync(join(ROOT, f)))
    .map((f) => statSync(join(ROOT, f)).mtimeMs);
  return Math.max(newestSourceMs(), ...configs) > built ? 'stale' : undefined;
}

/** The TypeScript compiler's entry point, or undefined when TypeScript is not installed. */
function tscPath() {
  try {
    return createRequire(join(ROOT, 'package.json')).resolve('typescript/bin/tsc');
  } catch {
    return undefined;
  }
}

/** Compiles src/ into dist/ and writes the embedded database template. Returns true on success; messages go to stderr. */
export async function build() {
  const tsc = tscPath();
  if (!tsc) {
    console.error('build: TypeScript is not installed (npm ci --omit=dev?), so dist/ cannot be built');
    return false;
  }
  const startedAt = new Date();
  rmSync(DIST, { recursive: true, force: true });
  const result = spawnSync(process.execPath, [tsc, '-p', join(ROOT, 'tsconfig.build.json')], { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
  if (result.status !== 0) {
    console.error(`build: tsc failed (exit ${result.status ?? result.signal})`);
    return false;
  }
  try {
    const esbuild = await import('esbuild');
    await esbuild.build({
      entryPoints: ['main', 'worker', 'cli'].map((e) => join(ROOT, 'src', `${e}.ts`)),
      outdir: DIST,
      bundle: true,
      external: BUNDLE_EXTERNAL.flatMap((p) => [p, `${p}/*`]),
      // Bundled CommonJS packages require() Node's built-ins: give the ES module a require.
      banner: { js: "import { createRequire as __bundleCreateRequire } from 'node:module'; const require = __bundleCreateRequire(import.meta.url);" },
      platform: 'node',
      format: 'esm',
      target: 'node20',
      logLevel: 'warning',
    });
  } catch (err) {
    console.error(`build: bundling the entry points failed: ${err?.message ?? err}`);
    return false;
  }
  try {
    const { writeEmbeddedTemplate } = await import(pathToFileURL(join(DIST, 'platform/db/embedded-template.js')).href);
    await writeEmbeddedTemplate();
  } catch (err) {
    console.error(`build: writing the embedded database template failed: ${err?.stack ?? err}`);
    return false;
  }
  writeFileSync(STAMP, `${startedAt.toISOString()}\n`);
  utimesSync(STAMP, startedAt, startedAt);
  return true;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  if (process.argv.includes('--if-stale')) {
    const problem = buildProblem();
    if (!problem) process.exit(0);
    if (!tscPath()) {
      console.error('build: skipped, TypeScript is not installed; npm start will run the sources through tsx');
      process.exit(0);
    }
    console.error(`build: dist/ is ${problem}; compiling src/ (tsc -p tsconfig.build.json) …`);
  }
  process.exit((await build()) ? 0 : 1);
}
