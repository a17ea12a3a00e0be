/**
 * npm run bench:keyset — the keyset walk of a list (`sort=updated_at&cursor=`) at depth, on PostgreSQL.
 *
 * Recreates BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/psa_bench_keyset; loopback
 * hosts and database names containing "bench" only), migrates it, creates the walked tenant with
 * BENCH_KEYSET_ROWS (100,000) tickets and a second tenant with BENCH_KEYSET_OTHER_ROWS (20,000) (so the
 * walk reads one tenant's range of a shared index), inserted 1,000 per statement with updated_at spread
 * over a year and many rows sharing a timestamp (the tie-breaker matters). After VACUUM ANALYZE:
 *
 * 1. the plan: one cursor page requested in this process through the real app, its SQL captured and run
 *    again under EXPLAIN (ANALYZE, BUFFERS) at positions 2% and 98% into the walk — both must be an index
 *    range scan of (tenant, updated_at, ticket_id) with no sort of the tickets;
 * 2. the walk: bench/server.ts (the real app, as bench/run.ts starts it) in a child process, and
 *    GET /api/v1/tickets?sort=updated_at&limit=50&cursor=… over HTTP through every page sequentially,
 *    timing each request; then the same deep pages by offset (`page=N`) for contrast.
 *
 * Prints the latency of pages 1–20 vs the last 20 — as the walk met them, and requested again alternately
 * (the ratio; target: within ±20%) — and checks the walk saw every ticket exactly once, in order. Exits
 * non-zero if it repeated, skipped or misordered a row, a request failed, or the plan sorts or scans the table.
 */
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { CompiledQuery, sql, type KyselyPlugin, type PluginTransformQueryArgs, type PluginTransformResultArgs, type QueryResult, type RootOperationNode, type UnknownRow } from 'kysely';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { openPostgres, type Database } from '../src/platform/db/database.ts';
import { withTransaction } from '../src/platform/db/executor.ts';
import { migrateToLatest } from '../src/platform/db/migrate.ts';
import { newId } from '../src/platform/ids.ts';
// The module list installs the permission catalogue that createTenant seeds roles from.
import '../src/modules.ts';
import { issueApiKey } from '../src/modules/api-keys/index.ts';
import { createTenant } from '../src/modules/tenants/index.ts';
import { benchDatabaseUrl, BenchError, forkBenchServer, intEnv, quantile, recreateDatabase } from './bench-env.ts';

const ROWS = intEnv('BENCH_KEYSET_ROWS', 100_000, 1_000, 2_000_000);
const OTHER_ROWS = intEnv('BENCH_KEYSET_OTHER_ROWS', 20_000, 0, 2_000_000);
const LIMIT = 50;
const SAMPLE = 20;
const REPLAYS = 5;
const BATCH = 1_000;
const CLIENTS = 100;
const HOST = '127.0.0.1';
const HUGE_LIMIT = 100_000_000;
const YEAR_S = 365 * 86_400;
const START = Date.UTC(2025, 0, 1);

const log = (message: string) => console.error(message);
const seconds = (since: number) => `${((performance.now() - since) / 1000).toFixed(1)} s`;

interface Seeded {
  tenant: string;
  apiKey: string;
}

/** A tenant (its default board, statuses and priorities come with it), CLIENTS clients and `rows` tickets. */
async function seedTenant(db: Database['db'], slug: string, rows: number): Promise<Seeded> {
  const t = await createTenant(db, { name: `Bench ${slug}`, slug, adminEmail: `bench@${slug}.example.com` });
  const tenant = t.tenant_id;
  const key = await withTransaction(db, (trx) =>
    issueApiKey(trx, tenant, t.user_id, { name: 'bench', rate_limit: { burst: HUGE_LIMIT, per_minute: HUGE_LIMIT } }),
  );
  const board = await db.selectFrom('boards').select('board_id').where('tenant', '=', tenant).where('is_default', '=', true).executeTakeFirstOrThrow();
  const status = await db.selectFrom('ticket_statuses').select('status_id')
    .where('tenant', '=', tenant).where('board_id', '=', board.board_id).where('is_closed', '=', false).orderBy('order_number').executeTakeFirstOrThrow();
  const priority = await db.selectFrom('ticket_priorities').select('priority_id').where('tenant', '=', tenant).orderBy('order_number').executeTakeFirstOrThrow();
  const clientIds = Array.from({ length: CLIENTS }, () => newId());
  await db.insertInto('clients').values(clientIds.map((client_id, i) => ({
    tenant, client_id, client_name: `Bench Client ${i + 1}`, client_type: 'company' as const, billing_cycle: 'monthly' as const,
    payment_terms: 'net_30', default_currency_code: 'USD', client_since: null, tax_id_number: null, notes: null, merged_into_client_id: null, merged_at: null,
  }))).execute();
  for (let start = 0; start < rows; start += BATCH) {
    const batch = Array.from({ length: Math.min(BATCH, rows - start) }, (_, i) => {
      const n = start + i + 1;
      // Whole seconds drawn from half as many slots as rows: most timestamps are shared by two or more tickets.
      const slots = Math.max(1, Math.floor(rows / 2));
      const at = new Date(START + Math.floor((Math.floor(Math.random() * slots) * YEAR_S) / slots) * 1000);
      return {
        tenant, ticket_id: newId(), ticket_seq: n, ticket_number: `T-${String(n).padStart(6, '0')}`, title: `Bench ticket ${n}`, description: null,
        board_id: board.board_id, status_id: status.status_id, priority_id: priority.priority_id, client_id: clientIds[n % CLIENTS]!,
        entered_at: at, updated_at: at,
      };
    });
    await db.insertInto('tickets').values(batch).execute();
  }
  return { tenant, apiKey: key.api_key };
}

/** Captures the SQL of every query the app runs (to EXPLAIN the cursor page exactly as the list use case builds it). */
class CaptureSql implements KyselyPlugin {
  readonly seen: RootOperationNode[] = [];
  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    this.seen.push(args.node);
    return args.node;
  }
  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return args.result;
  }
}

interface PlanCheck {
  /** How far into the walk the position is (0–1). */
  depth: number;
  plan: string[];
  rangeScan: boolean;
  sorted: boolean;
  /** Medians over EXPLAIN_RUNS runs, from EXPLAIN ANALYZE. */
  planningMs: number;
  executionMs: number;
}

const EXPLAIN_RUNS = 5;
const DEPTHS = [0.02, 0.98];

/** One cursor page through the real app in this process; its captured SQL explained near the start and the end. */
async function explainCursorPage(database: Database, seeded: Seeded): Promise<PlanCheck[]> {
  const capture = new CaptureSql();
  const traced: Database = { ...database, db: database.db.withPlugin(capture) };
  const config = { ...loadConfig({ ...process.env, LOG_LEVEL: 'warn' }), secretKey: randomBytes(32).toString('base64url') };
  const app = await buildApp({ config, database: traced, logger: false });
  try {
    const headers = { 'x-api-key': seeded.apiKey };
    const first = await app.inject({ method: 'GET', url: `/api/v1/tickets?sort=updated_at&limit=${LIMIT}`, headers });
    const cursor = (first.json() as { pagination: { nextCursor?: string } }).pagination.nextCursor;
    if (first.statusCode !== 200 || !cursor) throw new BenchError(`first page: ${first.statusCode} ${first.body.slice(0, 200)}`);
    capture.seen.length = 0;
    const next = await app.inject({ method: 'GET', url: `/api/v1/tickets?sort=updated_at&limit=${LIMIT}&cursor=${encodeURIComponent(cursor)}`, headers });
    if (next.statusCode !== 200) throw new BenchError(`cursor page: ${next.statusCode} ${next.body.slice(0, 200)}`);
    const compiled = capture.seen.map((node) => database.db.getExecutor().compileQuery(node, { queryId: 'bench' })).find((q) => q.sql.includes('__keyset_u'));
    if (!compiled) throw new BenchError('the cursor page ran no keyset query');
    const checks: PlanCheck[] = [];
    for (const depth of DEPTHS) {
      // The same statement at another position: the key of the row that far into the walk replaces the cursor's.
      const found = await sql<{ u: string; id: string }>`
        select to_char(updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as u, ticket_id::text as id
        from tickets where tenant = ${seeded.tenant} order by updated_at, ticket_id offset ${Math.floor(ROWS * depth)} limit 1`.execute(database.db);
      const at = found.rows[0]!;
      const key = cursorKey(cursor);
      const params = compiled.parameters.map((p) => (p === key.u ? at.u : p === key.id ? at.id : p));
      const runs: string[][] = [];
      for (let i = 0; i < EXPLAIN_RUNS; i++) {
        const explained = await database.db.executeQuery<{ 'QUERY PLAN': string }>(CompiledQuery.raw(`explain (analyze, buffers, costs off) ${compiled.sql}`, [...params]));
        runs.push(explained.rows.map((r) => r['QUERY PLAN']));
      }
      const timeOf = (plan: string[], label: string) => Number(/([\d.]+) ms/.exec(plan.find((l) => l.includes(label)) ?? '')?.[1] ?? NaN);
      const plan = runs.at(-1)!;
      const text = plan.join('\n');
      checks.push({
        depth,
        plan,
        rangeScan: /Index (Only )?Scan using tickets_updated_idx/.test(text) && /Index Cond: .*ROW\([^)]*updated_at, [^)]*ticket_id\) >/.test(text),
        // The only sort allowed is the per-ticket tag list's (a few rows each); none may order the tickets themselves.
        sorted: /Sort Key: [^\n]*(updated_at|ticket_id)/.test(text),
        planningMs: median(runs.map((r) => timeOf(r, 'Planning Time'))),
        executionMs: median(runs.map((r) => timeOf(r, 'Execution Time'))),
      });
    }
    return checks;
  } finally {
    await app.close();
  }
}

/** The position inside a cursor (its payload is public; only its MAC is secret). */
function cursorKey(cursor: string): { u: string; id: string } {
  const payload = JSON.parse(Buffer.from(cursor.split('.')[0]!, 'base64url').toString('utf8')) as { k: [string, string] };
  return { u: payload.k[0], id: payload.k[1] };
}

let server: ChildProcess | undefined;

function startServer(dbUrl: URL, tenant: string): Promise<number> {
  return forkBenchServer(
    { dbUrl, host: HOST, tenant, poolSize: 4, maxLifetimeMs: 300_000, logLevel: 'warn', rateLimit: HUGE_LIMIT },
    (child) => (server = child),
  );
}

interface PageBody {
  data: { ticket_id: string; updated_at: string }[];
  pagination: { nextCursor?: string; total?: number };
}

async function timedGet(url: string, apiKey: string): Promise<{ ms: number; body: PageBody }> {
  const t0 = performance.now();
  const res = await fetch(url, { headers: { 'x-api-key': apiKey } });
  const text = await res.text();
  const ms = performance.now() - t0;
  if (res.status !== 200) throw new BenchError(`GET ${url.replace(/cursor=[^&]+/, 'cursor=…')}: ${res.status} ${text.slice(0, 300)}`);
  return { ms, body: JSON.parse(text) as PageBody };
}

interface Walk {
  times: number[];
  /** The cursor each page was requested with (undefined for the first). */
  cursors: (string | undefined)[];
  seen: number;
  distinct: number;
  repeated: number;
  pages: number;
  outOfOrder: number;
}

/** Every page by cursor, sequentially; the ids and their order checked as they come. */
async function walkAll(base: string, apiKey: string): Promise<Walk> {
  const times: number[] = [];
  const cursors: (string | undefined)[] = [];
  const ids = new Set<string>();
  let seen = 0;
  let repeated = 0;
  let outOfOrder = 0;
  let last = '';
  let cursor: string | undefined;
  do {
    const { ms, body } = await timedGet(pageUrl(base, cursor), apiKey);
    times.push(ms);
    cursors.push(cursor);
    for (const row of body.data) {
      seen++;
      if (ids.has(row.ticket_id)) repeated++;
      ids.add(row.ticket_id);
      const key = `${row.updated_at}|${row.ticket_id}`;
      if (key <= last) outOfOrder++;
      last = key;
    }
    cursor = body.pagination.nextCursor;
    if (times.length > ROWS / LIMIT + 10) throw new BenchError('the walk did not end');
  } while (cursor !== undefined);
  return { times, cursors, seen, distinct: ids.size, repeated, pages: times.length, outOfOrder };
}

const pageUrl = (base: string, cursor: string | undefined) =>
  `${base}/api/v1/tickets?sort=updated_at&limit=${LIMIT}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;

/**
 * The first and last SAMPLE pages requested again, alternating (first page 1, then the last-but-19, then
 * page 2, …) for REPLAYS rounds: a load that drifts during the minute-long walk (another process on the
 * machine) then weighs on both samples alike. The cursors are the walk's own.
 */
async function replay(base: string, apiKey: string, walk: Walk): Promise<{ head: number[]; tail: number[] }> {
  const head: number[] = [];
  const tail: number[] = [];
  const first = walk.cursors.slice(0, SAMPLE);
  const last = walk.cursors.slice(-SAMPLE);
  for (let round = 0; round < REPLAYS; round++) {
    for (let i = 0; i < SAMPLE; i++) {
      head.push((await timedGet(pageUrl(base, first[i]), apiKey)).ms);
      tail.push((await timedGet(pageUrl(base, last[i]), apiKey)).ms);
    }
  }
  return { head, tail };
}

const median = (xs: number[]) => quantile([...xs].sort((a, b) => a - b), 0.5);
const p95 = (xs: number[]) => quantile([...xs].sort((a, b) => a - b), 0.95);
const fmt = (ms: number) => ms.toFixed(2).padStart(8);

async function main(): Promise<void> {
  const dbUrl = benchDatabaseUrl('psa_bench_keyset');
  const tAll = performance.now();
  await recreateDatabase(dbUrl);
  const database = await openPostgres(dbUrl.toString(), 4);
  let seeded: Seeded;
  let plans: PlanCheck[];
  try {
    await migrateToLatest(database.db);
    const tSeed = performance.now();
    seeded = await seedTenant(database.db, 'keyset', ROWS);
    if (OTHER_ROWS > 0) await seedTenant(database.db, 'keyset-other', OTHER_ROWS);
    await sql`vacuum (analyze)`.execute(database.db);
    log(`bench:keyset: ${ROWS} tickets (+${OTHER_ROWS} in another tenant) seeded and analyzed in ${seconds(tSeed)}`);
    plans = await explainCursorPage(database, seeded);
  } finally {
    await database.close();
  }

  const port = await startServer(dbUrl, seeded.tenant);
  const base = `http://${HOST}:${port}`;
  const tWalk = performance.now();
  const walk = await walkAll(base, seeded.apiKey);
  const walkTime = seconds(tWalk);
  const pages = walk.pages;
  const replayed = await replay(base, seeded.apiKey, walk);
  const offsetDeep: number[] = [];
  for (let n = pages - SAMPLE + 1; n <= pages; n++) offsetDeep.push((await timedGet(`${base}/api/v1/tickets?sort=updated_at&limit=${LIMIT}&page=${n}`, seeded.apiKey)).ms);
  server?.kill('SIGTERM');

  const ratio = median(replayed.tail) / median(replayed.head);
  const rows: [string, number[]][] = [
    [`walk: cursor pages 1–${SAMPLE}`, walk.times.slice(0, SAMPLE)],
    [`walk: cursor pages ${pages - SAMPLE + 1}–${pages}`, walk.times.slice(-SAMPLE)],
    [`replayed ×${REPLAYS}: pages 1–${SAMPLE}`, replayed.head],
    [`replayed ×${REPLAYS}: pages ${pages - SAMPLE + 1}–${pages}`, replayed.tail],
    [`offset pages ${pages - SAMPLE + 1}–${pages} (page=N)`, offsetDeep],
  ];
  const ok = walk.repeated === 0 && walk.distinct === ROWS && walk.seen === ROWS && walk.outOfOrder === 0;
  console.log(`\nbench:keyset — GET /api/v1/tickets?sort=updated_at&limit=${LIMIT}&cursor=…, ${ROWS.toLocaleString('en')} tickets (PostgreSQL, sequential requests)\n`);
  console.log(`${'pages'.padEnd(44)}${'median ms'.padStart(10)}${'p95 ms'.padStart(10)}`);
  for (const [label, xs] of rows) console.log(`${label.padEnd(44)}${fmt(median(xs)).padStart(10)}${fmt(p95(xs)).padStart(10)}`);
  console.log(`\nlast/first median ratio (cursor pages, replayed alternately): ${ratio.toFixed(2)}  (target 0.80–1.20: ${ratio >= 0.8 && ratio <= 1.2 ? 'met' : 'NOT met'})`);
  console.log(`walk: ${pages} pages in ${walkTime}, ${walk.seen} rows, ${walk.distinct} distinct ids, ${walk.repeated} repeated, ${ROWS - walk.distinct} skipped, ${walk.outOfOrder} out of (updated_at, id) order → ${ok ? 'OK' : 'FAILED'}`);
  for (const plan of plans) {
    console.log(`\nplan of a cursor page ${Math.round(plan.depth * 100)}% deep: index range scan on tickets_updated_idx: ${plan.rangeScan ? 'yes' : 'NO'}; `
      + `sort of the tickets: ${plan.sorted ? 'YES' : 'none'}; median of ${EXPLAIN_RUNS} EXPLAIN ANALYZE: planning ${plan.planningMs.toFixed(2)} ms, execution ${plan.executionMs.toFixed(2)} ms`);
    // The plan's lines about the walked table (the rest are the page's joins to names, 51 rows each).
    const shown = plan.plan.filter((l, i, all) => /^\s*Limit|tickets_updated_idx/.test(l) || /tickets_updated_idx/.test(all[i - 1] ?? ''));
    console.log(shown.map((l) => `  ${l.trim()}`).join('\n'));
  }
  console.log(`\ntotal ${seconds(tAll)}`);
  if (!ok || plans.some((p) => !p.rangeScan || p.sorted)) process.exitCode = 1;
}

main().catch((err: unknown) => {
  console.error(err instanceof BenchError ? `bench:keyset: ${err.message}` : err);
  server?.kill('SIGTERM');
  process.exitCode = 1;
});
