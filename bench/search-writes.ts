/**
 * npm run bench:search-writes — what the search index costs a write, against the index as it was before the
 * head postings (issue 23: "report the write cost per indexed row before and after").
 *
 * Two databases, recreated on every run: `<BENCH_DATABASE_URL>` (default psa_bench_search_writes) migrated to
 * the latest schema, and `<name>_base` migrated to the latest and back to the last migration before the head
 * postings (BASE_MIGRATION): one full-text table with its title index, no postings. Both are loaded with the same
 * generated documents (bench/search-data.ts) through the real writer, one statement per record type:
 * upsertSearchDocuments (into the type's partition), and for the base its statement into the one table (upsertInto):
 *
 * 1. **Bulk**: BENCH_SW_ROWS (200,000) rows each, in chunks of BENCH_SW_CHUNK (20,000) that alternate between the
 *    two databases, so the machine's drift falls on both; batches of 1,000, BENCH_SEARCH_WRITERS (2) writers.
 *    Reported as rows per second of each database's own chunks: the writes alone, and with the merge of the
 *    current side's pending postings after each chunk (migration 0032; what the worker does each second) added.
 * 2. **One record per transaction**, what a record's write pays for its index row: BENCH_SW_WRITES (2,000) inserts
 *    of a new document, then as many updates of an existing one (new recency and title, so every posting is
 *    rewritten), in blocks of 100 alternating between the databases, synchronous_commit off (the statement's
 *    work, not the disk flush). Reported as p50 / p95 µs, and the WAL bytes per write. The current side's
 *    postings are merged after each block, outside the writes' timing: reported as µs and WAL bytes per write.
 *
 * Prints a table with the ratio current ÷ base and writes bench/results/search-writes-<timestamp>.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { sql } from 'kysely';
import { openPostgres, type Database } from '../src/platform/db/database.ts';
import { withTransaction } from '../src/platform/db/executor.ts';
import { migrateTo, migrateToLatest } from '../src/platform/db/migrate.ts';
import { mergePendingPostings } from '../src/platform/search/postings.ts';
import { upsertInto, upsertSearchDocuments } from '../src/platform/search/writer.ts';
import type { SearchDocument } from '../src/platform/search/types.ts';
import '../src/modules.ts';
import { createTenant } from '../src/modules/tenants/index.ts';
import { benchDatabaseUrl, intEnv, quantile, recreateDatabase } from './bench-env.ts';
import { documents, load, uuid, words, type BatchWriter } from './search-data.ts';

const ROWS = intEnv('BENCH_SW_ROWS', 200_000, 1_000, 5_000_000);
const CHUNK = intEnv('BENCH_SW_CHUNK', 20_000, 1_000, 1_000_000);
const WRITES = intEnv('BENCH_SW_WRITES', 2_000, 100, 100_000);
const WRITERS = intEnv('BENCH_SEARCH_WRITERS', 2, 1, 16);
const BLOCK = 100;
/** The last migration before the head postings (migration 0028). */
const BASE_MIGRATION = '2026_11_25_0027_asset_list_index';

interface Wal { bytes: number }
interface Side {
  name: 'current' | 'base'; database: Database; tenant: string; loadSeconds: number; inserts: number[]; updates: number[];
  /** WAL written by each phase's blocks (the cluster's WAL position around blocks that only this side runs). */
  insertWal: Wal; updateWal: Wal;
  /** The current side's merges of pending postings: after each bulk chunk, and after each block of single writes (their WAL). */
  bulkMergeSeconds: number; mergeMs: number; mergeWal: Wal;
}

async function open(name: Side['name'], url: URL): Promise<Side> {
  await recreateDatabase(url);
  const database = await openPostgres(url.toString(), WRITERS + 1);
  await migrateToLatest(database.db);
  // Created at the latest schema: creating a tenant indexes its first records with today's writer.
  const tenant = await createTenant(database.db, { name: 'Bench Writes', slug: 'bench-writes', adminEmail: 'bench@example.com' });
  if (name === 'base') await migrateTo(database.db, BASE_MIGRATION);
  return {
    name, database, tenant: tenant.tenant_id, loadSeconds: 0, inserts: [], updates: [], insertWal: { bytes: 0 }, updateWal: { bytes: 0 },
    bulkMergeSeconds: 0, mergeMs: 0, mergeWal: { bytes: 0 },
  };
}

/** Merges the current side's pending postings (the base has none), its WAL counted into `wal` if given; returns the seconds it took. */
async function merge(side: Side, wal?: Wal): Promise<number> {
  if (side.name === 'base') return 0;
  const started = performance.now();
  const run = async () => void (await mergePendingPostings(side.database.db));
  await (wal ? countingWal(side, wal, run) : run());
  return (performance.now() - started) / 1000;
}

/** The writer of each side: the current one writes into the partitions, the base's table had none. */
const writerOf = (side: Side): BatchWriter =>
  side.name === 'base' ? (db, tenant, docs) => upsertInto(db, 'search_documents', tenant, docs) : upsertSearchDocuments;

/** One document per transaction, timed in µs; `synchronous_commit` off so the flush is not what is measured. */
async function writeOne(side: Side, doc: SearchDocument): Promise<number> {
  const started = performance.now();
  await withTransaction(side.database.db, async (trx) => {
    await sql`set local synchronous_commit = off`.execute(trx);
    await writerOf(side)(trx, side.tenant, [doc]);
  });
  return (performance.now() - started) * 1000;
}

/**
 * The cluster's WAL insert position in bytes. Not pg_stat_wal: backends report to it at most once a second, so a
 * block's counters held whatever had been reported by then.
 */
async function walNow(side: Side): Promise<number> {
  const row = (await sql<{ at: string }>`select pg_wal_lsn_diff(pg_current_wal_insert_lsn(), '0/0')::text as at`.execute(side.database.db)).rows[0]!;
  return Number(row.at);
}

/** Runs `fn` and adds the WAL it wrote to `into`. */
async function countingWal(side: Side, into: Wal, fn: () => Promise<void>): Promise<void> {
  const before = await walNow(side);
  await fn();
  const after = await walNow(side);
  into.bytes += after - before;
}

async function main(): Promise<void> {
  const url = benchDatabaseUrl('psa_bench_search_writes');
  const baseUrl = new URL(url);
  baseUrl.pathname = `${url.pathname}_base`;
  const sides: Side[] = [];
  try {
    sides.push(await open('current', url));
    sides.push(await open('base', baseUrl));
    /** Both sides, the order flipped every other step, so the machine's drift falls on both alike. */
    const inTurn = (step: number) => (step % 2 === 0 ? sides : [...sides].reverse());
    const clients = Array.from({ length: 500 }, uuid);
    const users = Array.from({ length: 50 }, uuid);
    console.error(`bench:search-writes: loading ${ROWS} rows into each database, ${CHUNK} at a time, alternating …`);
    for (let done = 0; done < ROWS; done += CHUNK) {
      for (const side of inTurn(done / CHUNK)) {
        side.loadSeconds += await load(side.database, side.tenant, Math.min(CHUNK, ROWS - done), clients, users, WRITERS, writerOf(side));
        side.bulkMergeSeconds += await merge(side);
      }
    }
    for (const side of sides) await sql`vacuum analyze`.execute(side.database.db);

    console.error(`bench:search-writes: ${WRITES} single-record inserts and updates per database …`);
    // The same documents on both sides: generated once per block, written to each.
    const written: SearchDocument[] = [];
    for (let i = 0; i < WRITES; i += BLOCK) {
      const block = documents(BLOCK, clients, users, ROWS + i);
      for (const side of inTurn(i / BLOCK)) {
        await countingWal(side, side.insertWal, async () => { for (const doc of block) side.inserts.push(await writeOne(side, doc)); });
        side.mergeMs += (await merge(side, side.mergeWal)) * 1000;
      }
      written.push(...block);
    }
    let tick = Date.UTC(2026, 6, 1);
    for (let i = 0; i < WRITES; i += BLOCK) {
      const block = written.slice(i, i + BLOCK).map((doc) => ({
        ...doc, title: `${doc.title} ${words[(i * 7) % 5_000]}`, updatedAt: new Date(tick++ * 1000),
      }));
      for (const side of inTurn(i / BLOCK)) {
        await countingWal(side, side.updateWal, async () => { for (const doc of block) side.updates.push(await writeOne(side, doc)); });
        side.mergeMs += (await merge(side, side.mergeWal)) * 1000;
      }
    }

    const stats = (xs: number[]) => {
      const s = [...xs].sort((a, b) => a - b);
      return { p50_us: Math.round(quantile(s, 0.5)), p95_us: Math.round(quantile(s, 0.95)) };
    };
    const [current, base] = sides.map((side) => {
      const writes = side.inserts.length + side.updates.length;
      return {
        bulk_rows_per_s: Math.round(ROWS / side.loadSeconds),
        bulk_rows_per_s_merged: Math.round(ROWS / (side.loadSeconds + side.bulkMergeSeconds)),
        insert: stats(side.inserts), update: stats(side.updates),
        insert_wal_bytes: Math.round(side.insertWal.bytes / side.inserts.length),
        update_wal_bytes: Math.round(side.updateWal.bytes / side.updates.length),
        merge_us_per_write: Math.round((side.mergeMs * 1000) / writes),
        merge_wal_bytes_per_write: Math.round(side.mergeWal.bytes / writes),
      };
    });
    type Result = NonNullable<typeof current>;
    const measures: [string, (r: Result) => number][] = [
      ['bulk indexing, the writes (rows/s)', (r) => r.bulk_rows_per_s],
      ['bulk indexing, postings merged (rows/s)', (r) => r.bulk_rows_per_s_merged],
      ['one insert per transaction, p50 µs', (r) => r.insert.p50_us],
      ['one insert per transaction, p95 µs', (r) => r.insert.p95_us],
      ['one update per transaction, p50 µs', (r) => r.update.p50_us],
      ['one update per transaction, p95 µs', (r) => r.update.p95_us],
      ['WAL bytes per insert', (r) => r.insert_wal_bytes],
      ['WAL bytes per update', (r) => r.update_wal_bytes],
      ['merge after the write (worker), µs per write', (r) => r.merge_us_per_write],
      ['merge after the write (worker), WAL bytes per write', (r) => r.merge_wal_bytes_per_write],
    ];
    const table = measures.map(([measure, of]) => ({
      measure, base: of(base!), current: of(current!), ratio: of(base!) === 0 ? null : +(of(current!) / of(base!)).toFixed(2),
    }));
    console.table(table);
    mkdirSync('bench/results', { recursive: true });
    const file = `bench/results/search-writes-${new Date().toISOString().replace(/:/g, '-')}.json`;
    writeFileSync(file, `${JSON.stringify({
      settings: { rows: ROWS, chunk: CHUNK, writes: WRITES, writers: WRITERS, base_migration: BASE_MIGRATION, node: process.version, cpus: os.cpus().length },
      current, base, table,
    }, null, 2)}\n`);
    console.error(`bench:search-writes: wrote ${file}`);
  } finally {
    for (const side of sides) await side.database.close().catch(() => undefined);
  }
}

main().catch((err: unknown) => {
  console.error('bench:search-writes failed:', err);
  process.exit(1);
});
