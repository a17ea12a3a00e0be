/**
 * npm run bench:search — unified search on PostgreSQL at scale.
 *
 * Recreates BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/psa_bench_search; loopback
 * hosts and database names containing "bench" only), migrates it, creates one big tenant and
 * BENCH_SEARCH_TENANTS (10) small ones, and loads BENCH_SEARCH_ROWS (1,000,000) index rows into the big
 * tenant plus BENCH_SEARCH_OTHER_ROWS (10,000) into each small one, across record types, through the real
 * writer (upsertSearchDocuments, batches of 1,000 written one statement per record type, BENCH_SEARCH_WRITERS (2)
 * concurrent writers): that is the indexing throughput of the writes. Their head postings are then merged
 * (platform/search/postings.ts, what the worker does every second) and checkpointed, each timed on its own. Text is drawn from a Zipf-distributed synthetic vocabulary, so there are genuinely
 * common words, rare words and identifiers (T-000123, INV-000045, P-000067).
 *
 * After VACUUM ANALYZE it runs BENCH_SEARCH_QUERIES (40) searches per query class through the real query
 * engine (the search service, as an Admin actor, first page, limit 30, counts included): common word,
 * mid-frequency word, rare word, prefix, typo (correction fallback), identifier, identifier typed without its
 * hyphen (T000123), a frequent word shaped like an identifier (letters then digits, like office365), two-word query, next page
 * of a common word (cursor), sort=recent, a narrow-permission caller (Technician: no invoices), a three-letter
 * prefix (what a type-ahead box sends first), and a client-portal user (one client's rows) with a common and a mid word; a
 * few classes also through HTTP (app.inject); and the common word, the mid word and the typo again with BENCH_SEARCH_PENDING (1,000)
 * documents written and not merged yet (a second's writes at several hundred per second; deleted afterwards, so a reused run writes them anew). Baseline: a primary-key point lookup of one index row,
 * measured in the same run; every class is reported as p50/p95, as a ratio of the baseline's p50, and by
 * whether its answers' counts were exact (countsExact) or stopped at the cap. Sizes: the documents (summed
 * over their partitions), their indexes and the head postings, and the index bytes per million rows.
 * Prints a table and writes bench/results/search-<timestamp>.json. Target: p95 ≤ 50 ms per class at 1M rows.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { sql } from 'kysely';
import { buildApp, type App } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { openPostgres, type Database } from '../src/platform/db/database.ts';
import { withTransaction } from '../src/platform/db/executor.ts';
import { migrateToLatest } from '../src/platform/db/migrate.ts';
import { mergePendingPostings } from '../src/platform/search/postings.ts';
import { allPermissions, builtinRoles } from '../src/platform/auth/permissions.ts';
import '../src/modules.ts';
import type { Actor } from '../src/platform/auth/context.ts';
import { issueApiKey } from '../src/modules/api-keys/index.ts';
import { createTenant } from '../src/modules/tenants/index.ts';
import { createSearchService, type SearchQuery } from '../src/modules/search/index.ts';
import { benchDatabaseUrl, intEnv, quantile, recreateDatabase } from './bench-env.ts';
import { BATCH, load, pick, rnd, uuid, words } from './search-data.ts';

const ROWS = intEnv('BENCH_SEARCH_ROWS', 1_000_000, 1_000, 20_000_000);
const TENANTS = intEnv('BENCH_SEARCH_TENANTS', 10, 0, 100);
const OTHER_ROWS = intEnv('BENCH_SEARCH_OTHER_ROWS', 10_000, 0, 1_000_000);
const QUERIES = intEnv('BENCH_SEARCH_QUERIES', 40, 5, 10_000);
const WRITERS = intEnv('BENCH_SEARCH_WRITERS', 2, 1, 16);
/** 1 = keep the database of the previous run (same settings) and measure queries only. */
const REUSE = intEnv('BENCH_SEARCH_REUSE', 0, 0, 1) === 1;
const PENDING = intEnv('BENCH_SEARCH_PENDING', 1_000, 0, 100_000);
const HUGE = 100_000_000;
const dbUrl = benchDatabaseUrl('psa_bench_search');

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

/**
 * How much of the data the searches can find in memory: PostgreSQL's own cache, and what the OS caches as they start
 * (Linux's page cache; null elsewhere). A VM may hand its page cache back to the host within minutes of a pause
 * (bench/README.md, "Issue 23", fourteenth session), so a run's cold classes depend on both.
 */
async function memory(db: Database['db']): Promise<{ shared_buffers: string; os_page_cache_mb: number | null }> {
  const { rows } = await sql<{ shared_buffers: string }>`select current_setting('shared_buffers') as shared_buffers`.execute(db);
  const cached = existsSync('/proc/meminfo') ? /^Cached:\s+(\d+) kB$/m.exec(readFileSync('/proc/meminfo', 'utf8')) : null;
  return { shared_buffers: rows[0]!.shared_buffers, os_page_cache_mb: cached ? Math.round(Number(cached[1]) / 1024) : null };
}

interface Row { class: string; via: string; p50_ms: number; p95_ms: number; max_ms: number; ratio_p50: number; median_total: number; counts_exact: string; queries: number }

async function main(): Promise<void> {
  if (!REUSE) await recreateDatabase(dbUrl);
  let database: Database | undefined;
  let app: App | undefined;
  try {
    database = await openPostgres(dbUrl.toString(), WRITERS + 2);
    const { db } = database;
    await migrateToLatest(db);
    const clients = Array.from({ length: 500 }, uuid);
    const users = Array.from({ length: 50 }, uuid);
    let main: { tenant_id: string; user_id: string };
    let seconds = NaN;
    let mergeSeconds = NaN;
    let checkpointSeconds = NaN;
    if (REUSE) {
      main = await db.selectFrom('users as u').innerJoin('tenants as t', 't.tenant_id', 'u.tenant').select(['u.tenant as tenant_id', 'u.user_id'])
        .where('t.slug', '=', 'bench-search').executeTakeFirstOrThrow();
    } else {
      main = await createTenant(db, { name: 'Bench Search', slug: 'bench-search', adminEmail: 'bench@example.com' });
      console.error(`bench:search: loading ${ROWS} rows (+${TENANTS} × ${OTHER_ROWS}) with ${WRITERS} writers …`);
      seconds = await load(database, main.tenant_id, ROWS, clients, users, WRITERS);
      for (let i = 0; i < TENANTS; i++) {
        const other = await createTenant(db, { name: `Other ${i}`, slug: `bench-other-${i}`, adminEmail: `o${i}@example.com` });
        await load(database, other.tenant_id, OTHER_ROWS, clients, users, WRITERS);
      }
      console.error('bench:search: merging the head postings …');
      mergeSeconds = await timed(() => mergePendingPostings(db)) / 1000;
      await sql`vacuum analyze search_documents`.execute(db);
      await sql`vacuum analyze search_postings`.execute(db);
      // The load's pages written out before the queries (a server does it within checkpoint_timeout): measured
      // during that write-back, a fresh run's searches timed the disk (bench/README.md, "writes into the partitions").
      checkpointSeconds = await timed(() => sql`checkpoint`.execute(db)) / 1000;
    }
    // The documents are partitioned by type: their sizes are the sums over the partitions.
    const sizes = (await sql<{ table_mb: number; indexes_mb: number; postings_mb: number; documents: number }>`
      select (select sum(pg_table_size(relid)) from pg_partition_tree('search_documents')) / 1048576.0 as table_mb,
        (select sum(pg_indexes_size(relid)) from pg_partition_tree('search_documents')) / 1048576.0 as indexes_mb,
        pg_total_relation_size('search_postings') / 1048576.0 as postings_mb,
        (select count(*) from search_documents)::float8 as documents`.execute(db)).rows[0]!;
    const perMillion = (mb: number) => Math.round((Number(mb) * 1_000_000) / sizes.documents);
    const size = {
      table_mb: Math.round(Number(sizes.table_mb)), indexes_mb: Math.round(Number(sizes.indexes_mb)), postings_mb: Math.round(Number(sizes.postings_mb)),
      index_mb_per_million_rows: perMillion(Number(sizes.indexes_mb) + Number(sizes.postings_mb)),
    };
    const merged = Math.round((ROWS + TENANTS * OTHER_ROWS) / mergeSeconds);
    const loaded = REUSE ? 'reusing the previous run\'s rows'
      : `loaded in ${seconds.toFixed(1)} s (${Math.round(ROWS / seconds)} rows/s), postings merged in ${mergeSeconds.toFixed(1)} s (${merged} rows/s), checkpoint ${checkpointSeconds.toFixed(1)} s`;
    console.error(`bench:search: ${loaded}; documents ${size.table_mb} MB, their indexes ${size.indexes_mb} MB, head postings ${size.postings_mb} MB; index ${size.index_mb_per_million_rows} MB per million rows`);

    const mem = await memory(db);
    console.error(`bench:search: shared_buffers ${mem.shared_buffers}, OS page cache ${mem.os_page_cache_mb ?? 'unknown'} MB as the queries start`);

    const secret = { mac: (d: string) => `m${d.length}`, verifyMac: (d: string, m: string) => m === `m${d.length}` };
    const service = createSearchService({ db, cursorMac: secret });
    const actor = (permissions: readonly string[]): Actor => ({
      tenant: main.tenant_id, tenantSlug: 'bench-search', userId: users[0]!, apiKeyId: 'bench', userType: 'internal', clientId: null, contactId: null, permissions: new Set(permissions), scopes: null,
    });
    const admin = actor(allPermissions());
    const tech = actor(builtinRoles().find((r) => r.role_name === 'Technician')!.permissions);
    const clientUser = builtinRoles().find((r) => r.role_name === 'Client User')!.permissions;
    // Without rnd(), so the other classes draw the same queries as before these were added.
    const portal = (client: string): Actor => ({ ...actor(clientUser), userType: 'client', clientId: client });

    // Query inputs per class, drawn from the same vocabulary the data used.
    const rankRange = (lo: number, hi: number) => () => words[lo + Math.floor(rnd() * (hi - lo))]!;
    const typo = (w: string) => { const i = 1 + Math.floor(rnd() * (w.length - 3)); return w.slice(0, i) + w[i + 1] + w[i] + w.slice(i + 2); };
    const identifiers = (await sql<{ identifier: string }>`select identifier from search_documents where tenant = ${main.tenant_id}::uuid and identifier is not null limit 2000`.execute(db)).rows.map((r) => r.identifier.toUpperCase());
    const ident = () => pick(identifiers);
    const classes: { name: string; actor: Actor; query: () => Partial<SearchQuery> & { query: string }; nextPage?: boolean }[] = [
      { name: 'common word (rank 1–10)', actor: admin, query: () => ({ query: rankRange(0, 10)() }) },
      { name: 'mid word (rank 100–300)', actor: admin, query: () => ({ query: rankRange(100, 300)() }) },
      { name: 'rare word (rank 20k–30k)', actor: admin, query: () => ({ query: rankRange(20_000, 30_000)() }) },
      { name: 'prefix (4 letters, rank 50–500)', actor: admin, query: () => ({ query: rankRange(50, 500)().slice(0, 4) }) },
      { name: 'typo (rank 1k–5k)', actor: admin, query: () => ({ query: typo(rankRange(1000, 5000)()) }) },
      { name: 'identifier (T-/P-/INV-nnnnnn)', actor: admin, query: () => ({ query: ident() }) },
      { name: 'identifier typed as a word (T000123)', actor: admin, query: () => ({ query: ident().replace('-', '') }) },
      { name: 'word shaped like an identifier (rank 10–50)', actor: admin, query: () => ({ query: rankRange(10, 50)() }) },
      { name: 'two words', actor: admin, query: () => ({ query: `${rankRange(0, 200)()} ${rankRange(200, 2000)()}` }) },
      { name: 'common word, page 2 (cursor)', actor: admin, query: () => ({ query: rankRange(0, 10)() }), nextPage: true },
      { name: 'common word, sort=recent', actor: admin, query: () => ({ query: rankRange(0, 10)(), sort: 'recent' }) },
      { name: 'common word, Technician', actor: tech, query: () => ({ query: rankRange(0, 10)() }) },
      // Last, so the classes before it draw the same queries as before it was added.
      { name: 'prefix (3 letters, rank 50–500)', actor: admin, query: () => ({ query: rankRange(50, 500)().slice(0, 3) }) },
      // A client-portal user (one client's rows, one in 500 here) searching a frequent and a mid word.
      { name: 'common word, client portal', actor: portal(clients[0]!), query: () => ({ query: rankRange(0, 10)() }) },
      { name: 'mid word, client portal', actor: portal(clients[1]!), query: () => ({ query: rankRange(100, 300)() }) },
    ];

    const ids = (await sql<{ object_type: string; object_id: string }>`select object_type, object_id from search_documents where tenant = ${main.tenant_id}::uuid limit 1000`.execute(db)).rows;
    const baseline: number[] = [];
    for (let i = 0; i < QUERIES * 2; i++) {
      const r = pick(ids);
      baseline.push(await timed(() => sql`select * from search_documents where tenant = ${main.tenant_id}::uuid and object_type = ${r.object_type} and object_id = ${r.object_id}::uuid`.execute(db)));
    }
    baseline.sort((a, b) => a - b);
    const base50 = quantile(baseline, 0.5);
    const rows: Row[] = [{ class: 'baseline: PK point lookup', via: 'sql', p50_ms: +base50.toFixed(2), p95_ms: +quantile(baseline, 0.95).toFixed(2), max_ms: +baseline.at(-1)!.toFixed(2), ratio_p50: 1, median_total: 1, counts_exact: 'yes', queries: baseline.length }];

    /** `exact`: how many of the class's answers said countsExact. */
    const record = (name: string, via: string, times: number[], totals: number[], exact: number) => {
      times.sort((a, b) => a - b);
      totals.sort((a, b) => a - b);
      const countsExact = exact === times.length ? 'yes' : exact === 0 ? 'no (capped)' : `${exact} of ${times.length}`;
      rows.push({ class: name, via, p50_ms: +quantile(times, 0.5).toFixed(1), p95_ms: +quantile(times, 0.95).toFixed(1), max_ms: +times.at(-1)!.toFixed(1), ratio_p50: +(quantile(times, 0.5) / base50).toFixed(0), median_total: quantile(totals, 0.5), counts_exact: countsExact, queries: times.length });
    };

    /** One warm-up, then QUERIES measured searches of the class, recorded under `name`. */
    const measure = async (c: (typeof classes)[number], name: string) => {
      await service.search(c.actor, { limit: 30, ...c.query() });
      const times: number[] = [];
      const totals: number[] = [];
      let exact = 0;
      for (let i = 0; i < QUERIES; i++) {
        let q: Partial<SearchQuery> & { query: string } = { limit: 30, ...c.query() };
        if (c.nextPage) {
          const first = await service.search(c.actor, q);
          if (!first.nextCursor) continue;
          q = { ...q, cursor: first.nextCursor };
        }
        let page: Awaited<ReturnType<typeof service.search>> | undefined;
        times.push(await timed(async () => { page = await service.search(c.actor, q); }));
        totals.push(page!.totalCount);
        if (page!.countsExact) exact++;
      }
      if (times.length > 0) record(name, 'engine', times, totals, exact);
      console.error(`bench:search: ${name} done`);
    };
    for (const c of classes) await measure(c, c.name);

    // A few classes end to end through HTTP (routing, auth, validation, serialization).
    const issued = await withTransaction(db, (trx) => issueApiKey(trx, main.tenant_id, main.user_id, { name: 'bench', rate_limit: { burst: HUGE, per_minute: HUGE } }));
    const config = { ...loadConfig({ ...process.env, PSA_RATE_LIMIT_BURST: String(HUGE), PSA_RATE_LIMIT_PER_MINUTE: String(HUGE) }), logLevel: 'warn' };
    app = await buildApp({ config, database, logger: false });
    await app.ready();
    for (const c of [classes[0]!, classes[2]!, classes[5]!]) {
      const times: number[] = [];
      const totals: number[] = [];
      let exact = 0;
      for (let i = 0; i < QUERIES; i++) {
        const url = `/api/v1/search?${new URLSearchParams({ limit: '30', ...c.query() } as Record<string, string>).toString()}`;
        let body = '';
        times.push(await timed(async () => {
          const res = await app!.inject({ method: 'GET', url, headers: { 'x-api-key': issued.api_key } });
          if (res.statusCode !== 200) throw new Error(`HTTP ${res.statusCode}: ${res.body}`);
          body = res.body;
        }));
        const data = (JSON.parse(body) as { data: { totalCount: number; countsExact: boolean } }).data;
        totals.push(data.totalCount);
        if (data.countsExact) exact++;
      }
      record(c.name, 'http', times, totals, exact);
    }

    // A backlog: documents written since the last merge, whose postings each search computes from their rows.
    if (PENDING > 0) {
      const since = (await sql<{ at: Date }>`select clock_timestamp() as at`.execute(db)).rows[0]!.at;
      await load(database, main.tenant_id, PENDING, clients, users, WRITERS);
      // The typo class last, so the common and mid word draw the same queries as before it was added; it reads the
      // pending documents' words besides the dictionary (migrations 0038, 0039).
      for (const c of [classes[0]!, classes[1]!, classes[4]!]) await measure(c, `${c.name}, ${PENDING} writes not merged`);
      // Deleted again: a reused run draws the same documents, and written unchanged they would leave nothing pending.
      await sql`delete from search_documents where tenant = ${main.tenant_id}::uuid and indexed_at >= ${since}`.execute(db);
      await mergePendingPostings(db);
    }

    console.table(rows);
    const target = rows.filter((r) => r.via !== 'sql' && r.p95_ms > 50).map((r) => `${r.class} (${r.via})`);
    console.error(target.length ? `bench:search: above the 50 ms p95 target: ${target.join('; ')}` : 'bench:search: every class within the 50 ms p95 target');
    mkdirSync('bench/results', { recursive: true });
    const file = `bench/results/search-${new Date().toISOString().replace(/:/g, '-')}.json`;
    writeFileSync(file, `${JSON.stringify({
      settings: { rows: ROWS, other_tenants: TENANTS, other_rows: OTHER_ROWS, queries_per_class: QUERIES, writers: WRITERS, batch: BATCH, node: process.version, cpus: os.cpus().length, ...mem },
      indexing: {
        seconds: +seconds.toFixed(1), rows_per_s: Math.round(ROWS / seconds),
        merge_seconds: +mergeSeconds.toFixed(1), merge_rows_per_s: merged, checkpoint_seconds: +checkpointSeconds.toFixed(1), ...size,
      },
      results: rows,
    }, null, 2)}\n`);
    console.error(`bench:search: wrote ${file}`);
  } finally {
    await app?.close().catch(() => undefined);
    await database?.close().catch(() => undefined);
  }
}

main().catch((err: unknown) => {
  console.error('bench:search failed:', err);
  process.exit(1);
});
