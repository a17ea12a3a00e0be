/**
 * npm run bench:search-writes — what the search index costs a write, against the index as it was before the
 * head postings (issue 23: "report the write cost per indexed row before and after").
 *
 * Two databases, recreated on every run: `<BENCH_DATABASE_URL>` (default psa_bench_search_writes) migrated to
 * the latest schema, and `<name>_base` migrated to the latest and back to the last migration before the head
 * postings (BASE_MIGRATION): one full-text table with its title index, no postings. Both are loaded with the same
 * generated documents (bench/search-data.ts) through the real writer, one statement per record type:
 * upsertSearchDocuments (into the type's partition), and for the base its write as it was (baseWrite):
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
 * 3. **An area's write** (the index write inside a record's whole write): BENCH_SW_AREA_ROUNDS (16) blocks of 100
 *    `POST /api/v1/tickets` and `PUT /api/v1/tickets/{id}` through the app (app.inject, one at a time) on the current
 *    database, alternating (now before before now …) between the write as it is and as it was before the head
 *    postings (writeAsBefore): without the postings' pending-row triggers on the partitions (migrations 0032, 0036)
 *    and the client index (0037; with them go the words the pending row carries, 0039), and with the dictionary's
 *    words added inside the write (moved to the merge by 0038).
 *    "Before" is kinder to the base than the base itself in what made the index row cheaper since (the partitions,
 *    one vector instead of three), and charges it a row trigger's own cost.
 *
 * Prints a table with the ratio current ÷ base (for 3: now ÷ before) and writes bench/results/search-writes-<timestamp>.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { sql, type Kysely } from 'kysely';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { openPostgres, type Database } from '../src/platform/db/database.ts';
import { withTransaction } from '../src/platform/db/executor.ts';
import { migrateTo, migrateToLatest } from '../src/platform/db/migrate.ts';
import * as partitionTriggers from '../src/platform/db/migrations/2026_12_06_0036_search_partition_triggers.ts';
import * as documentsByClient from '../src/platform/db/migrations/2026_12_07_0037_search_documents_by_client.ts';
import { mergePendingPostings } from '../src/platform/search/postings.ts';
import { prepareIf } from '../src/platform/db/prepared.ts';
import { upsertSearchDocuments, upsertStatement } from '../src/platform/search/writer.ts';
import type { SearchDocument } from '../src/platform/search/types.ts';
import '../src/modules.ts';
import { issueApiKey } from '../src/modules/api-keys/index.ts';
import { createTenant } from '../src/modules/tenants/index.ts';
import { benchDatabaseUrl, intEnv, quantile, recreateDatabase } from './bench-env.ts';
import { documents, load, uuid, words, type BatchWriter } from './search-data.ts';

const ROWS = intEnv('BENCH_SW_ROWS', 200_000, 1_000, 5_000_000);
const CHUNK = intEnv('BENCH_SW_CHUNK', 20_000, 1_000, 1_000_000);
const WRITES = intEnv('BENCH_SW_WRITES', 2_000, 100, 100_000);
const WRITERS = intEnv('BENCH_SEARCH_WRITERS', 2, 1, 16);
const AREA_ROUNDS = intEnv('BENCH_SW_AREA_ROUNDS', 16, 2, 1_000);
const BLOCK = 100;
/** The last migration before the head postings (migration 0028). */
const BASE_MIGRATION = '2026_11_25_0027_asset_list_index';

interface Wal { bytes: number }
interface Side {
  name: 'current' | 'base'; database: Database; tenant: string; admin: string; loadSeconds: number; inserts: number[]; updates: number[];
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
    name, database, tenant: tenant.tenant_id, admin: tenant.user_id, loadSeconds: 0, inserts: [], updates: [], insertWal: { bytes: 0 }, updateWal: { bytes: 0 },
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

/**
 * The base's dictionary words of the rows `d` (tenant, title, subtitle, body) that it did not have yet, inserted: what
 * each write did before migration 0038 moved it to the merge.
 */
const baseWordsInsert = (rows: string) => `
  insert into search_lexicon (tenant, word)
  select distinct d.tenant, w.word
  from ${rows} cross join lateral unnest(tsvector_to_array(to_tsvector('simple'::regconfig,
    coalesce(d.title, '') || ' ' || coalesce(d.subtitle, '') || ' ' || left(coalesce(d.body, ''), 100000)))) as w (word)
  where length(w.word) between 3 and 32 and w.word !~ '[0-9_@./:+-]'
    and not exists (select 1 from search_lexicon l where l.tenant = d.tenant and l.word = w.word)`;

/** The base's write as it was: the document's row into the one table, and its new words in the same statement. */
const baseWrite: BatchWriter = async (db, tenant, docs) => {
  const upsert = upsertStatement(db, 'search_documents', tenant, docs).returning(['tenant', 'title', 'subtitle', 'body']);
  await sql`with written as (${upsert}) ${sql.raw(baseWordsInsert('written d'))}${prepareIf(docs.length === 1)}`.execute(db);
};

/** The writer of each side: the current one writes into the partitions, the base's table had none. */
const writerOf = (side: Side): BatchWriter => (side.name === 'base' ? baseWrite : upsertSearchDocuments);

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

/**
 * Phase 3's switch between the write as it is now and as it was before the head postings: the parts every write pays
 * for since then switched off with their own migrations (the postings' statement triggers on every partition, 0036,
 * and the client index, 0037), and the dictionary's words added by the write again, by a row trigger with the base's
 * statement (a row trigger's own cost, a few µs, is charged to the base: bench/README.md).
 */
async function writeAsBefore(side: Side, before: boolean): Promise<void> {
  const db = side.database.db as unknown as Kysely<unknown>;
  for (const migration of [partitionTriggers, documentsByClient]) await (before ? migration.down(db) : migration.up(db));
  if (before) {
    await sql.raw(`create function bench_words_in_write() returns trigger language plpgsql as $$ begin
      ${baseWordsInsert('(select new.tenant as tenant, new.title as title, new.subtitle as subtitle, new.body as body) d')};
      return null; end $$`).execute(db);
    await sql`create trigger bench_words_in_write after insert or update on search_documents for each row execute function bench_words_in_write()`.execute(db);
  } else {
    await sql`drop trigger bench_words_in_write on search_documents`.execute(db);
    await sql`drop function bench_words_in_write()`.execute(db);
  }
}

/**
 * Phase 3: ticket creates and updates through the app, p50 / p95 µs, the write as it is now and as it was before. The
 * pending postings are merged after each block, outside the timing, as the worker would.
 */
async function areaWrites(side: Side): Promise<Record<'now' | 'before', { create: number[]; update: number[] }>> {
  const HUGE = 100_000_000;
  const issued = await withTransaction(side.database.db, (trx) => issueApiKey(trx, side.tenant, side.admin, { name: 'bench', rate_limit: { burst: HUGE, per_minute: HUGE } }));
  const config = { ...loadConfig({ ...process.env, PSA_RATE_LIMIT_BURST: String(HUGE), PSA_RATE_LIMIT_PER_MINUTE: String(HUGE) }), logLevel: 'warn' };
  const app = await buildApp({ config, database: side.database, logger: false });
  const call = async (method: 'POST' | 'PUT', url: string, body: unknown): Promise<Record<string, string>> => {
    const res = await app.inject({ method, url, headers: { 'x-api-key': issued.api_key, 'content-type': 'application/json' }, payload: JSON.stringify(body) });
    if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body.slice(0, 300)}`);
    return (res.json() as { data: Record<string, string> }).data;
  };
  const times = { now: { create: [] as number[], update: [] as number[] }, before: { create: [] as number[], update: [] as number[] } };
  try {
    const client = await call('POST', '/api/v1/clients', { client_name: 'Bench client', billing_cycle: 'monthly' });
    const write = async (label: string, into?: { create: number[]; update: number[] }) => {
      let started = performance.now();
      const ticket = await call('POST', '/api/v1/tickets', { title: `Printer ${label} toner`, description: 'The printer on floor two jams on every job.', client_id: client.client_id });
      into?.create.push((performance.now() - started) * 1000);
      started = performance.now();
      await call('PUT', `/api/v1/tickets/${ticket.ticket_id}`, { title: `Printer ${label} toner replaced, drum next` });
      into?.update.push((performance.now() - started) * 1000);
    };
    for (let i = 0; i < 1_000; i++) await write(`warm ${i}`);
    await merge(side);
    let before = false;
    for (let round = 0; round < AREA_ROUNDS; round++) {
      const next = round % 4 === 1 || round % 4 === 2;
      if (next !== before) await writeAsBefore(side, (before = next));
      for (let i = 0; i < 5; i++) await write(`settle ${round} ${i}`);
      for (let i = 0; i < BLOCK; i++) await write(`${round} ${i}`, before ? times.before : times.now);
      await merge(side);
    }
    if (before) await writeAsBefore(side, false);
  } finally {
    await app.close();
  }
  return times;
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

    console.error(`bench:search-writes: ${AREA_ROUNDS} blocks of ${BLOCK} ticket creates and updates through the app, the write as it is and as it was before the head postings …`);
    const area = await areaWrites(sides[0]!);

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
    const row = (measure: string, b: number, c: number) => ({ measure, base: b, current: c, ratio: b === 0 ? null : +(c / b).toFixed(2) });
    const statsOf = (t: { create: number[]; update: number[] }) => ({ create: stats(t.create), update: stats(t.update) });
    const areaStats = { now: statsOf(area.now), before: statsOf(area.before) };
    const table = [
      ...measures.map(([measure, of]) => row(measure, of(base!), of(current!))),
      row('ticket create through the app, p50 µs (now ÷ before)', areaStats.before.create.p50_us, areaStats.now.create.p50_us),
      row('ticket create through the app, p95 µs (now ÷ before)', areaStats.before.create.p95_us, areaStats.now.create.p95_us),
      row('ticket update through the app, p50 µs (now ÷ before)', areaStats.before.update.p50_us, areaStats.now.update.p50_us),
      row('ticket update through the app, p95 µs (now ÷ before)', areaStats.before.update.p95_us, areaStats.now.update.p95_us),
    ];
    console.table(table);
    mkdirSync('bench/results', { recursive: true });
    const file = `bench/results/search-writes-${new Date().toISOString().replace(/:/g, '-')}.json`;
    writeFileSync(file, `${JSON.stringify({
      settings: { rows: ROWS, chunk: CHUNK, writes: WRITES, writers: WRITERS, area_rounds: AREA_ROUNDS, base_migration: BASE_MIGRATION, node: process.version, cpus: os.cpus().length },
      current, base, area: areaStats, table,
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
