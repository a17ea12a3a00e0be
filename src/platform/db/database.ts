import { spawn } from 'node:child_process';
import { setFlagsFromString } from 'node:v8';
import { cpSync, existsSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Kysely, PostgresDialect } from 'kysely';
import { PGliteDialect } from 'kysely-pglite-dialect';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import type pg from 'pg';
import type { DB } from './schema.ts';
import { acquireDataDirLock, DATA_DIR_LOCK_FILE } from './data-dir-lock.ts';
import { describeOncePerStatement } from './pg-describe-once.ts';
import { buildRowShapesDirectly } from './pg-row-shape.ts';
import { preparedStatementName } from './prepared.ts';
import { parseTimestamptz } from './timestamptz.ts';

export type Engine = 'pg' | 'pglite';

/** An open database: the Kysely handle plus the engine-specific pieces the platform needs. */
export interface Database {
  db: Kysely<DB>;
  engine: Engine;
  /** Subscribes to a NOTIFY channel (cache invalidation across processes). Returns an unsubscribe. */
  listen(channel: string, onMessage: (payload: string) => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
  /** PGlite only: the data directory as a gzipped tarball (test images). */
  dump?(): Promise<Blob>;
}

const DATE_OID = 1082;
const INT8_OID = 20;
const TIMESTAMPTZ_OID = 1184;

let loadedPg: Promise<{ pg: typeof pg; PreparingClient: typeof pg.Client }> | undefined;

/** pg is loaded with the first PostgreSQL connection: the embedded mode never needs it. */
function loadPg(): NonNullable<typeof loadedPg> {
  return (loadedPg ??= import('pg').then(({ default: pg }) => {
    // DATE stays a 'YYYY-MM-DD' string (pg would turn it into a local-midnight Date); bigint counts become numbers.
    pg.types.setTypeParser(DATE_OID, (v) => v);
    pg.types.setTypeParser(INT8_OID, (v) => Number(v));
    const pgTimestamptz = pg.types.getTypeParser(TIMESTAMPTZ_OID) as (text: string) => Date | string | number;
    pg.types.setTypeParser(TIMESTAMPTZ_OID, (v) => parseTimestamptz(v, pgTimestamptz));
    buildRowShapesDirectly(pg.Result, pg.types);
    describeOncePerStatement(pg.Query, pg.Connection);

    /**
     * A pg client that runs the texts registered through preparedQuery(), or marked with PREPARE_MARK, as
     * named prepared statements: each connection parses and plans them once. Everything else runs as usual.
     */
    class PreparingClient extends pg.Client {
      override query(config: unknown, values?: unknown, callback?: unknown): never {
        const name = typeof config === 'string' ? preparedStatementName(config) : undefined;
        return (super.query as (...args: unknown[]) => never)(name ? { name, text: config } : config, values, callback);
      }
    }
    return { pg, PreparingClient };
  }));
}

export async function openPostgres(url: string, poolSize = 10): Promise<Database> {
  const { pg, PreparingClient } = await loadPg();
  // plan_cache_mode stays PostgreSQL's own choice. Forcing generic plans on the pool (tried for the list pages)
  // applied to every statement with parameters, not only the named ones: node-postgres sends each as an unnamed
  // prepared statement, so a search's `identifier like $1` or a batch's `unnest($1::uuid[])` was planned without
  // its values (a unified search took 2.5 s instead of 10 ms). The named statements reach their generic plan by
  // themselves once their text carries their LIMIT (list.ts).
  const pool = new pg.Pool({ connectionString: url, max: poolSize, Client: PreparingClient });
  pool.on('error', () => {
    // An idle client lost its connection; the pool replaces it. Queries in flight get their own error.
  });
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  let listener: pg.Client | undefined;
  const handlers = new Map<string, Set<(p: string) => void>>();
  return {
    db,
    engine: 'pg',
    async listen(channel, onMessage) {
      if (!listener) {
        listener = new pg.Client({ connectionString: url });
        listener.on('error', () => undefined);
        await listener.connect();
        listener.on('notification', (msg) => handlers.get(msg.channel)?.forEach((h) => h(msg.payload ?? '')));
      }
      if (!handlers.has(channel)) {
        handlers.set(channel, new Set());
        await listener.query(`listen ${pg.escapeIdentifier(channel)}`);
      }
      handlers.get(channel)!.add(onMessage);
      return async () => {
        handlers.get(channel)?.delete(onMessage);
      };
    },
    async close() {
      await listener?.end().catch(() => undefined);
      await db.destroy();
    },
  };
}

/**
 * Embedded PostgreSQL's memory. PGlite's defaults are a server's (shared_buffers 128 MB, maintenance_work_mem
 * 64 MB), and its WebAssembly memory only grows: every page the buffer pool or an index build ever touched stays
 * resident. The embedded database serves one process and reads through the OS page cache, so a small buffer pool
 * costs little: 16 MB takes ~130 MB off the resident size (bench:process). PostgreSQL mode is not affected.
 */
const PGLITE_SETTINGS = ['shared_buffers=16MB', 'maintenance_work_mem=16MB', 'temp_buffers=2MB'];
const pgliteStartParams = [...PGlite.defaultStartParams, ...PGLITE_SETTINGS.flatMap((s) => ['-c', s])];

// pg_trgm serves search (partial words, typos); PostgreSQL ships it as a trusted extension.
const pgliteOptions = {
  parsers: { [DATE_OID]: (v: string) => v, [INT8_OID]: (v: string) => Number(v) },
  extensions: { pg_trgm },
  startParams: pgliteStartParams,
};

/**
 * Creates the cluster in a new data directory (PGlite's initdb) in a short-lived child process. In process,
 * PGlite runs initdb in two extra WebAssembly instances (an in-memory PGlite and initdb itself) whose memory,
 * a few hundred MB, the process keeps long after; a child hands it back to the system when it exits.
 * Returns false where the child cannot be started (no import.meta.resolve, e.g. under a test transformer);
 * PGlite.create then runs initdb in process, as before.
 */
async function initdbInChild(dataDir: string): Promise<boolean> {
  if (typeof import.meta.resolve !== 'function') return false;
  let pglite: string;
  try {
    pglite = import.meta.resolve('@electric-sql/pglite');
  } catch {
    return false;
  }
  const code =
    `const { PGlite } = await import(${JSON.stringify(pglite)});` +
    `const db = await PGlite.create({ dataDir: process.argv[1], startParams: JSON.parse(process.argv[2]) });` +
    `await db.close();`;
  // initdb runs once: V8's optimising compiler would spend more compiling it than it saves.
  const child = spawn(process.execPath, ['--liftoff-only', '--input-type=module', '-e', code, dataDir, JSON.stringify(pgliteStartParams)], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, NODE_OPTIONS: '' },
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => void (stderr += d.toString()));
  const exitCode = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (c) => resolve(c));
  });
  if (exitCode !== 0) throw new Error(`initdb of the embedded database in ${dataDir} failed (exit ${exitCode}): ${stderr.trim().slice(-2000)}`);
  return true;
}

/**
 * The build's migrated embedded database (dist/embedded-template, made by `npm run build`; see
 * embedded-template.ts). The server's new data directory starts as a copy of it: no initdb and no migrations on a first start.
 * Absent before a build; a new data directory is then initialised as before. Used by the sources (tsx) too: they
 * apply any migration newer than the build after the copy.
 */
export const EMBEDDED_TEMPLATE_DIR = join(packageRoot(), 'dist', 'embedded-template');

/** The directory of the package.json above this module, wherever it runs from (src/, dist/ or dist's bundle). */
function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const up = dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  return dir;
}

// Synchronous: fs.promises.cp took ~0.5 s more CPU for the template's ~1,600 files (bench:process).
function copyTemplate(dataDir: string): boolean {
  if (!existsSync(join(EMBEDDED_TEMPLATE_DIR, 'PG_VERSION'))) return false;
  cpSync(EMBEDDED_TEMPLATE_DIR, dataDir, { recursive: true, filter: (src) => basename(src) !== DATA_DIR_LOCK_FILE });
  return true;
}

/**
 * Opens the embedded database. dataDir undefined means in memory; loadDataDir restores a dump (tests). A new
 * dataDir is initialised by initdb, or with fromTemplate (the server's first start) copied from the build's template.
 */
export async function openPglite(opts: { dataDir?: string; loadDataDir?: Blob; fromTemplate?: boolean } = {}): Promise<Database> {
  const release = opts.dataDir ? acquireDataDirLock(opts.dataDir) : () => undefined;
  let client: PGlite;
  try {
    if (opts.dataDir && !opts.loadDataDir && !existsSync(join(opts.dataDir, 'PG_VERSION'))) {
      const copied = opts.fromTemplate === true && copyTemplate(opts.dataDir);
      if (!copied) await initdbInChild(opts.dataDir);
    }
    client = await PGlite.create({ dataDir: opts.dataDir, loadDataDir: opts.loadDataDir, ...pgliteOptions });
  } catch (err) {
    release();
    throw err;
  }
  const db = new Kysely<DB>({ dialect: new PGliteDialect(client) });
  return {
    db,
    engine: 'pglite',
    async listen(channel, onMessage) {
      return client.listen(channel, onMessage);
    },
    async close() {
      await db.destroy();
      release();
    },
    dump: () => client.dumpDataDir('gzip'),
  };
}

/**
 * Runs PGlite's WebAssembly on V8's baseline compiler (Liftoff) only, for the rest of the process: the optimising
 * compiler's code and compilation memory are ~50 MB of a small server's resident size and compete with start-up
 * for the CPU; the price is up to 2× the CPU time of a heavy query (bench:process, bench/README.md). Must be called
 * before the first PGlite instance compiles its module. openDatabase calls it for a loaded Config (main, worker,
 * cli) in embedded mode unless PSA_EMBEDDED_WASM_OPTIMIZE=true; callers that pass no such setting (tests) keep
 * V8's default.
 */
export function useBaselineWasmCompilerOnly(): void {
  setFlagsFromString('--liftoff-only');
}

/** PostgreSQL with DATABASE_URL, else the embedded database (see openPglite for fromTemplate). */
export async function openDatabase(
  config: { databaseUrl?: string; dataDir: string; embeddedWasmOptimize?: boolean },
  opts: { fromTemplate?: boolean } = {},
): Promise<Database> {
  if (config.databaseUrl) return openPostgres(config.databaseUrl);
  if (config.embeddedWasmOptimize === false) useBaselineWasmCompilerOnly();
  return openPglite({ dataDir: config.dataDir, fromTemplate: opts.fromTemplate });
}
