import { Kysely, PostgresDialect } from 'kysely';
import { PGliteDialect } from 'kysely-pglite-dialect';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import pg from 'pg';
import type { DB } from './schema.ts';
import { acquireDataDirLock } from './data-dir-lock.ts';
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

// DATE stays a 'YYYY-MM-DD' string (pg would turn it into a local-midnight Date); bigint counts become numbers.
pg.types.setTypeParser(DATE_OID, (v) => v);
pg.types.setTypeParser(INT8_OID, (v) => Number(v));
const pgTimestamptz = pg.types.getTypeParser(TIMESTAMPTZ_OID) as (text: string) => Date | string | number;
pg.types.setTypeParser(TIMESTAMPTZ_OID, (v) => parseTimestamptz(v, pgTimestamptz));

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

export async function openPostgres(url: string, poolSize = 10): Promise<Database> {
  // Named statements (the hot point reads and list pages) always use their one generic plan. Left to
  // choose, PostgreSQL kept re-planning the ticket list's eleven-table join for every request (a custom
  // plan costs ~10 ms to make, the query under 1 ms to run); our parameters are ids, so a custom plan
  // never finds a better one. Unnamed statements are planned per call as before.
  // Joined to any `options` the URL carries (a search_path, say): pg lets the URL's win over ours.
  const parsed = new URL(url);
  const options = [parsed.searchParams.get('options'), '-c plan_cache_mode=force_generic_plan'].filter(Boolean).join(' ');
  parsed.searchParams.delete('options');
  const pool = new pg.Pool({ connectionString: parsed.toString(), max: poolSize, Client: PreparingClient, options });
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

// pg_trgm serves search (partial words, typos); PostgreSQL ships it as a trusted extension.
const pgliteOptions = {
  parsers: { [DATE_OID]: (v: string) => v, [INT8_OID]: (v: string) => Number(v) },
  extensions: { pg_trgm },
};

/** Opens the embedded database. dataDir undefined means in memory; loadDataDir restores a dump (tests). */
export async function openPglite(opts: { dataDir?: string; loadDataDir?: Blob } = {}): Promise<Database> {
  const release = opts.dataDir ? acquireDataDirLock(opts.dataDir) : () => undefined;
  let client: PGlite;
  try {
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

export async function openDatabase(config: { databaseUrl?: string; dataDir: string }): Promise<Database> {
  return config.databaseUrl ? openPostgres(config.databaseUrl) : openPglite({ dataDir: config.dataDir });
}
