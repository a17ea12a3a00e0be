/**
 * npm run bench — see bench/README.md.
 *
 * Recreates the bench database on PostgreSQL, migrates it, seeds one tenant with 10,000 clients,
 * starts bench/server.ts in a child process on 127.0.0.1 and measures, with autocannon in this
 * process, each route for the same duration and connection count:
 *
 *   baseline → GET /api/v1/clients/{id} → GET /api/v1/clients?limit=25 → baseline
 *
 * The baseline runs first and last so drift shows; every route's ratio is against their average.
 * Prints a table, writes bench/results/<timestamp>.json and bench/results/latest.json, and exits
 * non-zero if any request got a non-2xx answer or a connection error (the numbers would be wrong).
 */
import type { ChildProcess } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { sql } from 'kysely';
import { openPostgres, type Database } from '../src/platform/db/database.ts';
import { withTransaction } from '../src/platform/db/executor.ts';
import { migrateToLatest } from '../src/platform/db/migrate.ts';
import { newId } from '../src/platform/ids.ts';
// The module list installs the permission catalogue that createTenant seeds roles from.
import '../src/modules.ts';
import { issueApiKey } from '../src/modules/api-keys/index.ts';
import { createTenant } from '../src/modules/tenants/index.ts';
import { benchClientRow, FLOOR_LISTS, benchDatabaseUrl, BenchError, forkBenchServer, intEnv, recreateDatabase } from './bench-env.ts';

// ---------------------------------------------------------------- settings

const CLIENTS = 10_000;
/** Rows of each other listed table (tickets, assets, projects, contacts). */
const ROWS = 10_000;
const SEED_BATCH = 1_000;
const POOL_SIZE = 10; // the server's pool, shared by the baseline and the API routes
/** Each measured route's target, as a ratio of the bare baseline's req/s in the same round. */
const TARGETS: Record<string, number> = {
  'clients.get': 0.8, 'tickets.get': 0.8, 'assets.get': 0.8,
  'clients.list': 0.4, 'tickets.list': 0.4, 'assets.list': 0.4, 'projects.list': 0.4, 'contacts.list': 0.4,
};
/** Creates per second at 50 connections, their p99, and no lower than at 10 connections. */
const WRITE_TARGET = { connections: 50, min_rps: 250, max_p99_ms: 300 };
const WRITE_CONNECTIONS = [1, 10, 50];
/**
 * The order of one scenario's measurements: every count above one is measured twice, mirrored, and reported as
 * the mean of its two runs. What changes with time during the scenario (its table grows by thousands of rows,
 * autovacuum follows them) then weighs the same on 10 and 50 connections; measured once each in a fixed order,
 * 50 always ran after 10, on the bigger tables.
 */
const WRITE_ORDER = [1, 10, 50, 50, 10];
const HOST = '127.0.0.1'; // benchmark traffic goes to loopback only
const HUGE_LIMIT = 100_000_000; // the bench key is never rate limited

function fromEnv() {
  const settings = {
    duration_s: intEnv('BENCH_DURATION', 6, 1, 300),
    write_duration_s: intEnv('BENCH_WRITE_DURATION', 8, 1, 300),
    connections: intEnv('BENCH_CONNECTIONS', 10, 1, 256),
    warmup_s: intEnv('BENCH_WARMUP', 1, 0, 60),
    rounds: intEnv('BENCH_ROUNDS', 3, 1, 20),
    clients: CLIENTS,
    rows_per_table: ROWS,
    pool_size: POOL_SIZE,
    log_level: 'warn',
    pipelining: 1,
  };
  const dbUrl = benchDatabaseUrl('psa_bench');
  const redacted = new URL(dbUrl);
  if (redacted.password) redacted.password = '***';
  return { settings, dbUrl, dbName: decodeURIComponent(dbUrl.pathname.slice(1)), redactedDbUrl: redacted.toString() };
}

let env: ReturnType<typeof fromEnv>;
try {
  env = fromEnv();
} catch (err) {
  if (!(err instanceof BenchError)) throw err;
  console.error(`bench: ${err.message}`);
  process.exit(2);
}
const { settings, dbUrl, dbName, redactedDbUrl } = env;

// ---------------------------------------------------------------- lifecycle

let seedDb: Database | undefined;
let server: ChildProcess | undefined;
let running: autocannon.Instance | undefined;
let cleaning: Promise<void> | undefined;
let interrupted = false;

function stopServer(): Promise<void> {
  const child = server;
  server = undefined;
  if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill('SIGKILL'), 6_000);
    child.once('exit', () => {
      clearTimeout(force);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

function cleanup(): Promise<void> {
  cleaning ??= (async () => {
    running?.stop();
    await stopServer();
    await seedDb?.close().catch(() => undefined);
    seedDb = undefined;
  })();
  return cleaning;
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    interrupted = true;
    console.error(`\n${signal}: stopping the benchmark`);
    void cleanup().finally(() => process.exit(130));
  });
}

const log = (message: string) => console.error(message);
const seconds = (since: number) => `${((performance.now() - since) / 1000).toFixed(1)} s`;

// ---------------------------------------------------------------- database


interface Seeded {
  tenant: string;
  apiKey: string;
  clientIds: string[];
  ticketIds: string[];
  assetIds: string[];
}

async function seed(db: Database['db']): Promise<Seeded> {
  const t = await createTenant(db, { name: 'Bench Co', slug: 'bench', adminEmail: 'bench@example.com' });
  const key = await withTransaction(db, (trx) =>
    issueApiKey(trx, t.tenant_id, t.user_id, { name: 'bench', rate_limit: { burst: HUGE_LIMIT, per_minute: HUGE_LIMIT } }),
  );
  const tenant = t.tenant_id;
  const clientIds: string[] = [];
  for (let start = 0; start < CLIENTS; start += SEED_BATCH) {
    const batch = Array.from({ length: Math.min(SEED_BATCH, CLIENTS - start) }, (_, i) => ({ n: start + i + 1, client_id: newId() }));
    await withTransaction(db, async (trx) => {
      await trx.insertInto('clients').values(batch.map(({ n, client_id }) => benchClientRow(tenant, client_id, n))).execute();
      await trx.insertInto('client_locations').values(batch.map(({ n, client_id }) => ({
        tenant,
        location_id: newId(),
        client_id,
        location_name: 'Head office',
        address_line1: `${n} Main Street`,
        address_line2: null,
        city: 'Springfield',
        state_province: 'IL',
        postal_code: '62701',
        country_code: 'US',
        country_name: 'United States',
        phone: `+1 555 ${String(n % 10_000).padStart(4, '0')}`,
        email: `office@client${n}.example.com`,
        is_default: true,
        is_active: true,
      }))).execute();
      await trx.insertInto('client_billing_profiles').values(batch.map(({ client_id }) => ({
        tenant,
        billing_profile_id: newId(),
        client_id,
        name: 'Default',
        is_default: true,
        is_active: true,
      }))).execute();
    });
    clientIds.push(...batch.map((b) => b.client_id));
  }
  await seedOthers(db, tenant, clientIds);
  // Leave nothing for autovacuum or a checkpoint to do during the measurements: set hint bits and the
  // visibility map now, refresh the planner's statistics, and flush. CHECKPOINT needs superuser or
  // pg_checkpoint, so it is best effort.
  await sql`vacuum (analyze)`.execute(db);
  await sql`checkpoint`.execute(db).catch(() => log('bench: CHECKPOINT not permitted for this user; skipped'));
  const idsOf = async (table: 'tickets' | 'assets', column: 'ticket_id' | 'asset_id') =>
    (await sql<{ id: string }>`select ${sql.ref(column)} as id from ${sql.table(table)} where tenant = ${tenant}`.execute(db)).rows.map((r) => r.id);
  return { tenant, apiKey: key.api_key, clientIds, ticketIds: await idsOf('tickets', 'ticket_id'), assetIds: await idsOf('assets', 'asset_id') };
}

/**
 * ROWS tickets, assets, projects and contacts spread over the clients, with the tenant's default board,
 * status and priority, and the number counters where the API would have left them. Set-based inserts:
 * the list routes read these tables, nothing here goes through the write path being measured.
 */
async function seedOthers(db: Database['db'], tenant: string, clientIds: string[]): Promise<void> {
  const ids = sql`${clientIds}::uuid[]`;
  const client = sql`(${ids})[1 + n % ${clientIds.length}]`;
  const at = sql`now() - n * interval '1 minute'`;
  await sql`
    insert into tickets (tenant, ticket_id, ticket_seq, ticket_number, title, board_id, status_id, priority_id, client_id, entered_at, updated_at)
    select ${tenant}, gen_random_uuid(), n, 'T-' || lpad(n::text, 6, '0'), 'Bench ticket ' || n,
      (select board_id from boards where tenant = ${tenant} and is_default),
      (select s.status_id from ticket_statuses s join boards b on b.tenant = s.tenant and b.board_id = s.board_id and b.is_default where s.tenant = ${tenant} and s.is_default),
      (select priority_id from ticket_priorities where tenant = ${tenant} and is_default),
      ${client}, ${at}, ${at}
    from generate_series(1, ${ROWS}) n`.execute(db);
  await sql`insert into ticket_number_counters (tenant, last_number) values (${tenant}, ${ROWS})`.execute(db);
  await sql`
    insert into assets (tenant, asset_id, client_id, asset_type, asset_tag, name, status, created_at, updated_at)
    select ${tenant}, gen_random_uuid(), ${client}, 'workstation', 'TAG-' || n, 'Workstation ' || n, 'active', ${at}, ${at}
    from generate_series(1, ${ROWS}) n`.execute(db);
  await sql`
    insert into projects (tenant, project_id, project_seq, project_number, project_name, client_id, status_id, created_at, updated_at)
    select ${tenant}, gen_random_uuid(), n, 'P-' || lpad(n::text, 6, '0'), 'Bench project ' || n, ${client},
      (select status_id from project_statuses where tenant = ${tenant} and is_default), ${at}, ${at}
    from generate_series(1, ${ROWS}) n`.execute(db);
  await sql`insert into project_number_counters (tenant, last_number) values (${tenant}, ${ROWS})`.execute(db);
  await sql`
    insert into contacts (tenant, contact_id, full_name, client_id, email, created_at, updated_at)
    select ${tenant}, gen_random_uuid(), 'Contact ' || n, ${client}, 'contact' || n || '@bench.example.com', ${at}, ${at}
    from generate_series(1, ${ROWS}) n`.execute(db);
}

// ---------------------------------------------------------------- server

function startServer(seeded: Seeded, maxLifetimeMs: number): Promise<number> {
  return forkBenchServer(
    {
      dbUrl, host: HOST, tenant: seeded.tenant, poolSize: POOL_SIZE, maxLifetimeMs, logLevel: settings.log_level, rateLimit: HUGE_LIMIT,
      profile: Boolean(process.env.BENCH_SERVER_PROFILE), apiKey: seeded.apiKey,
    },
    (child) => (server = child),
  );
}

// ---------------------------------------------------------------- measurement

interface Route {
  name: string;
  /** The request as shown in the table; {id} is a random seeded client per request. */
  label: string;
  path: () => string;
  /** Whether the path changes per request (autocannon rebuilds the request only then). */
  dynamic: boolean;
  headers: Record<string, string>;
  /** A POST's body (write scenarios); GET without it. */
  body?: string;
  /** What a correct 200 body looks like (checked once before measuring). */
  check: (body: unknown, path: string) => string | undefined;
}

interface Measurement {
  route: string;
  request: string;
  run: number;
  rps: number;
  p50_ms: number;
  p99_ms: number;
  latency_avg_ms: number;
  /** autocannon's own percentiles, whole milliseconds (truncated). */
  autocannon_latency_ms: { p50: number; p90: number; p99: number; max: number };
  requests_total: number;
  duration_s: number;
  non2xx: number;
  status_codes: Record<string, number>;
  errors: number;
  timeouts: number;
  warmup: { requests_total: number; non2xx: number; errors: number; status_codes: Record<string, number> } | null;
  ratio_to_baseline?: number;
  ratio_to_prepared_baseline?: number;
}

function routes(seeded: Seeded): Route[] {
  const auth = { 'x-api-key': seeded.apiKey };
  const pick = (ids: string[]) => () => ids[Math.floor(Math.random() * ids.length)]!;
  const isObject = (b: unknown): b is Record<string, unknown> => typeof b === 'object' && b !== null;
  const baseline = (name: string, path: string): Route => ({
    name,
    label: `GET ${path}`,
    path: () => path,
    dynamic: false,
    headers: {},
    check: (b) => (isObject(b) && typeof b.client_id === 'string' ? undefined : 'expected { client_id, client_name }'),
  });
  const pointRead = (name: string, resource: string, ids: string[]): Route => {
    const id = pick(ids);
    return {
      name,
      label: `GET /api/v1/${resource}/{id}`,
      path: () => `/api/v1/${resource}/${id()}`,
      dynamic: true,
      headers: auth,
      check: (b, path) => (JSON.stringify(b).includes(path.slice(path.lastIndexOf('/') + 1)) ? undefined : `the body does not contain the requested id`),
    };
  };
  const list = (name: string, resource: string): Route => ({
    name,
    label: `GET /api/v1/${resource}?limit=25`,
    path: () => `/api/v1/${resource}?limit=25`,
    dynamic: false,
    headers: auth,
    check: (b) => (isObject(b) && Array.isArray(b.data) && b.data.length === 25 && isObject(b.pagination) && b.pagination.total === (resource === 'clients' ? CLIENTS : ROWS)
      ? undefined
      : `expected { data: [25 ${resource}], pagination.total: ${resource === 'clients' ? CLIENTS : ROWS} }`),
  });
  return [
    baseline('baseline', '/bench/baseline'),
    baseline('baseline.prepared', '/bench/baseline-prepared'),
    pointRead('clients.get', 'clients', seeded.clientIds),
    pointRead('tickets.get', 'tickets', seeded.ticketIds),
    pointRead('assets.get', 'assets', seeded.assetIds),
    list('clients.list', 'clients'),
    list('tickets.list', 'tickets'),
    list('assets.list', 'assets'),
    list('projects.list', 'projects'),
    list('contacts.list', 'contacts'),
    // The floor answers the list's page as the list does (same rows, same total), without a key.
    ...FLOOR_LISTS.map((resource): Route => ({
      ...list(`${resource}.floor`, resource), label: `GET /bench/floor/${resource}`, path: () => `/bench/floor/${resource}`, headers: {},
    })),
  ];
}

/** One request per route before any load: a wrong route fails here, with the answer, not as a pile of 404s. */
async function preflight(port: number, route: Route): Promise<void> {
  const path = route.path();
  const res = await fetch(`http://${HOST}:${port}${path}`, { headers: route.headers });
  const text = await res.text();
  if (res.status !== 200) {
    const hint = res.status === 404 && /no route/i.test(text) ? ' (is the route registered in src/app.ts?)' : '';
    throw new BenchError(`preflight GET ${path} answered ${res.status}${hint}: ${text.slice(0, 300)}`);
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new BenchError(`preflight GET ${path} did not answer JSON: ${text.slice(0, 300)}`);
  }
  const problem = route.check(body, path);
  if (problem) throw new BenchError(`preflight GET ${path}: ${problem}: ${text.slice(0, 300)}`);
}

/**
 * Latency of 2xx responses at 10 µs resolution (autocannon's own histogram keeps whole milliseconds,
 * too coarse when p50 is 1–2 ms). Fixed memory: one counter per 10 µs up to 10 s, then an overflow bucket.
 */
class LatencyRecorder {
  private static readonly PER_MS = 100;
  private readonly buckets = new Uint32Array(10_000 * LatencyRecorder.PER_MS + 1);
  count = 0;

  record(ms: number): void {
    this.buckets[Math.min(Math.round(ms * LatencyRecorder.PER_MS), this.buckets.length - 1)]! += 1;
    this.count += 1;
  }

  percentile(p: number): number {
    if (this.count === 0) return Number.NaN;
    const rank = Math.max(1, Math.ceil((p / 100) * this.count));
    let seen = 0;
    for (let i = 0; i < this.buckets.length; i++) {
      seen += this.buckets[i]!;
      if (seen >= rank) return i / LatencyRecorder.PER_MS;
    }
    return (this.buckets.length - 1) / LatencyRecorder.PER_MS;
  }
}

function cannon(port: number, route: Route, durationS: number, latency?: LatencyRecorder, connections = settings.connections): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    running = autocannon({
      url: `http://${HOST}:${port}`,
      connections,
      pipelining: settings.pipelining,
      duration: durationS,
      timeout: 10,
      headers: route.headers,
      requests: [
        route.body !== undefined
          ? { method: 'POST', path: route.path(), body: route.body }
          : route.dynamic
            ? { method: 'GET', setupRequest: (req) => Object.assign(req, { path: route.path() }) }
            : { method: 'GET', path: route.path() },
      ],
    }, (err, result) => {
      running = undefined;
      if (interrupted) reject(new BenchError('interrupted'));
      else if (err) reject(err instanceof Error ? err : new Error(String(err)));
      else resolve(result);
    });
    if (latency) {
      running.on('response', (_client, statusCode, _bytes, responseTime) => {
        if (statusCode >= 200 && statusCode < 300) latency.record(responseTime);
      });
    }
  });
}

const statusCodes = (r: autocannon.Result): Record<string, number> =>
  Object.fromEntries(Object.entries(r.statusCodeStats ?? {}).map(([code, s]) => [code, s.count ?? 0]));

async function measure(port: number, route: Route, run: number): Promise<Measurement> {
  let warmup: Measurement['warmup'] = null;
  if (settings.warmup_s > 0) {
    const w = await cannon(port, route, settings.warmup_s);
    warmup = { requests_total: w.requests.total, non2xx: w.non2xx, errors: w.errors, status_codes: statusCodes(w) };
  }
  const latency = new LatencyRecorder();
  const r = await cannon(port, route, settings.duration_s, latency);
  return {
    route: route.name,
    request: route.label,
    run,
    rps: round2(r.requests.average, 1),
    p50_ms: latency.percentile(50),
    p99_ms: latency.percentile(99),
    latency_avg_ms: round2(r.latency.average, 2),
    autocannon_latency_ms: { p50: r.latency.p50, p90: r.latency.p90, p99: r.latency.p99, max: r.latency.max },
    requests_total: r.requests.total,
    duration_s: r.duration,
    non2xx: r.non2xx,
    status_codes: statusCodes(r),
    errors: r.errors,
    timeouts: r.timeouts,
    warmup,
  };
}

const round2 = (n: number, digits: number) => Math.round(n * 10 ** digits) / 10 ** digits;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

interface Summary {
  route: string;
  request: string;
  rounds: number;
  rps: number;
  p50_ms: number;
  p99_ms: number;
  ratio_to_baseline: number;
  ratio_to_prepared_baseline: number;
  non2xx: number;
  errors: number;
}

/** Medians over the rounds of one route. */
function summarise(route: Route, runs: Measurement[]): Summary {
  return {
    route: route.name,
    request: route.label,
    rounds: runs.length,
    rps: round2(median(runs.map((m) => m.rps)), 1),
    p50_ms: round2(median(runs.map((m) => m.p50_ms)), 2),
    p99_ms: round2(median(runs.map((m) => m.p99_ms)), 2),
    ratio_to_baseline: round2(median(runs.map((m) => m.ratio_to_baseline!)), 3),
    ratio_to_prepared_baseline: round2(median(runs.map((m) => m.ratio_to_prepared_baseline!)), 3),
    non2xx: runs.reduce((n, m) => n + m.non2xx + (m.warmup?.non2xx ?? 0), 0),
    errors: runs.reduce((n, m) => n + m.errors + (m.warmup?.errors ?? 0), 0),
  };
}

// ---------------------------------------------------------------- writes

interface WriteMeasurement {
  scenario: string;
  request: string;
  connections: number;
  /** The mean of runs_rps: each count above one is measured twice, mirrored (WRITE_ORDER). */
  rps: number;
  runs_rps: number[];
  p50_ms: number;
  p99_ms: number;
  requests_total: number;
  non2xx: number;
  status_codes: Record<string, number>;
  errors: number;
}

/**
 * The create scenarios: tickets and projects through the API, and tickets through an inbound webhook
 * (a direct create_ticket action, HMAC-signed), each in the one bench tenant.
 */
async function writeScenarios(port: number, seeded: Seeded): Promise<Route[]> {
  const json = { 'x-api-key': seeded.apiKey, 'content-type': 'application/json' };
  const clientId = seeded.clientIds[0]!;
  const res = await fetch(`http://${HOST}:${port}/api/v1/inbound-webhooks`, {
    method: 'POST',
    headers: json,
    body: JSON.stringify({
      name: 'Bench alerts', slug: 'bench-alerts', auth_type: 'hmac_sha256', handler_type: 'direct_action', rate_limit_per_minute: 60_000,
      handler_config: { action: 'create_ticket', field_mapping: { title: 'subject', client_id: `"${clientId}"` } },
    }),
  });
  const hook = (await res.json()) as { data?: { secret?: string } };
  if (res.status !== 201 || !hook.data?.secret) throw new BenchError(`could not create the bench inbound webhook: ${res.status} ${JSON.stringify(hook).slice(0, 300)}`);
  const alert = JSON.stringify({ subject: 'Disk space low on BENCH-01' });
  const signature = `sha256=${createHmac('sha256', hook.data.secret).update(alert).digest('hex')}`;
  const created = (b: unknown) => (typeof b === 'object' && b !== null ? undefined : 'expected a JSON body');
  return [
    { name: 'tickets.create', label: 'POST /api/v1/tickets', path: () => '/api/v1/tickets', dynamic: false, headers: json, body: JSON.stringify({ title: 'Bench ticket', client_id: clientId }), check: created },
    { name: 'projects.create', label: 'POST /api/v1/projects', path: () => '/api/v1/projects', dynamic: false, headers: json, body: JSON.stringify({ project_name: 'Bench project', client_id: clientId }), check: created },
    { name: 'inbound.ticket', label: 'POST /api/inbound/bench/bench-alerts', path: () => '/api/inbound/bench/bench-alerts', dynamic: false, headers: { 'content-type': 'application/json', 'x-webhook-signature': signature }, body: alert, check: created },
  ];
}

/** A scenario's runs at one connection count, their latencies recorded together. */
interface WriteRuns {
  latency: LatencyRecorder;
  results: autocannon.Result[];
}

/** The mean rate of the runs, and latency percentiles over all their requests. */
function writeMeasurement(route: Route, connections: number, { latency, results }: WriteRuns): WriteMeasurement {
  const sum = (f: (r: autocannon.Result) => number) => results.reduce((n, r) => n + f(r), 0);
  const codes: Record<string, number> = {};
  for (const r of results) for (const [code, n] of Object.entries(statusCodes(r))) codes[code] = (codes[code] ?? 0) + n;
  return {
    scenario: route.name,
    request: route.label,
    connections,
    rps: round2(sum((r) => r.requests.average) / results.length, 1),
    runs_rps: results.map((r) => round2(r.requests.average, 1)),
    p50_ms: latency.percentile(50),
    p99_ms: latency.percentile(99),
    requests_total: sum((r) => r.requests.total),
    non2xx: sum((r) => r.non2xx),
    status_codes: codes,
    errors: sum((r) => r.errors),
  };
}

/**
 * Numbers unique and gapless after the creates: every number the counter gave out is on exactly one record
 * or still reserved (by a create the server's shutdown cut off; the next create reuses it).
 */
async function numbersGapless(tenant: string): Promise<string[]> {
  const db = await openPostgres(dbUrl.toString(), 1);
  try {
    const problems: string[] = [];
    for (const [sequence, table, column, counter] of [
      ['ticket', 'tickets', 'ticket_seq', 'ticket_number_counters'],
      ['project', 'projects', 'project_seq', 'project_number_counters'],
    ] as const) {
      const { rows } = await sql<{ used: number; distinct_used: number; reserved: number; given_out: number }>`
        select
          (select count(*)::int from ${sql.table(table)} where tenant = ${tenant}) as used,
          (select count(distinct ${sql.ref(column)})::int from ${sql.table(table)} where tenant = ${tenant}) as distinct_used,
          (select count(*)::int from number_reservations r where r.tenant = ${tenant} and r.sequence = ${sequence}
             and not exists (select 1 from ${sql.table(table)} x where x.tenant = r.tenant and x.${sql.ref(column)} = r.seq)) as reserved,
          (select coalesce(max(last_number), 0)::int from ${sql.table(counter)} where tenant = ${tenant}) as given_out`.execute(db.db);
      const { used, distinct_used, reserved, given_out } = rows[0]!;
      if (used !== distinct_used || used + reserved !== given_out) {
        problems.push(`${table}: ${used} records (${distinct_used} distinct numbers) and ${reserved} reserved, but ${given_out} numbers given out`);
      }
    }
    return problems;
  } finally {
    await db.close();
  }
}

function writeTable(rows: WriteMeasurement[]): string {
  const head = ['create (one tenant)', 'conns', 'req/s', 'p50 ms', 'p99 ms', 'non-2xx', 'errors'];
  const body = rows.map((m) => [m.request, String(m.connections), m.rps.toFixed(1), m.p50_ms.toFixed(2), m.p99_ms.toFixed(2), String(m.non2xx), String(m.errors)]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [line(head), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(line)].join('\n');
}

// ---------------------------------------------------------------- report

function table(rows: Summary[]): string {
  const head = ['route (median of rounds)', 'req/s', 'p50 ms', 'p99 ms', '× baseline', '× prepared', 'non-2xx', 'errors'];
  const body = rows.map((m) => [
    m.request,
    m.rps.toFixed(1),
    Number.isNaN(m.p50_ms) ? '-' : m.p50_ms.toFixed(2),
    Number.isNaN(m.p99_ms) ? '-' : m.p99_ms.toFixed(2),
    `${m.ratio_to_baseline.toFixed(2)}×`,
    `${m.ratio_to_prepared_baseline.toFixed(2)}×`,
    String(m.non2xx),
    String(m.errors),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [line(head), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(line)].join('\n');
}

// ---------------------------------------------------------------- main

async function main(): Promise<number> {
  const startedAt = new Date();
  const t0 = performance.now();
  log(`bench: ${redactedDbUrl}, ${settings.duration_s} s × ${settings.connections} connections per route (warm-up ${settings.warmup_s} s)`);

  await recreateDatabase(dbUrl);
  seedDb = await openPostgres(dbUrl.toString(), 2);
  await migrateToLatest(seedDb.db);
  const tSeed = performance.now();
  const seeded = await seed(seedDb.db);
  await seedDb.close();
  seedDb = undefined;
  log(`bench: database ${dbName} recreated, migrated and seeded with ${CLIENTS} clients (seed ${seconds(tSeed)})`);

  const all = routes(seeded);
  // Interleaved rounds: each route's ratio is taken against the baseline of its own round, and the
  // median over rounds is reported, so a noisy neighbour during one measurement cannot decide the result.
  const round = all;
  const plan = Array.from({ length: settings.rounds }, () => round).flat();
  // The server stops by itself well after the plan (and the write scenarios) should be over.
  const writeSeconds = 3 * WRITE_ORDER.length * (settings.write_duration_s + 1);
  const maxLifetimeMs = (plan.length * (settings.warmup_s + settings.duration_s) + writeSeconds + 180) * 1000;
  const port = await startServer(seeded, maxLifetimeMs);
  log(`bench: server pid ${server?.pid} listening on http://${HOST}:${port}`);
  const rss = sampleRss(server!.pid!);

  for (const route of all) await preflight(port, route);

  const results: Measurement[] = [];
  const runs = new Map<string, number>();
  for (const route of plan) {
    const run = (runs.get(route.name) ?? 0) + 1;
    runs.set(route.name, run);
    log(`bench: ${route.label} (round ${run}) …`);
    const m = await measure(port, route, run);
    results.push(m);
    log(`bench:   ${m.rps.toFixed(1)} req/s, p50 ${m.p50_ms.toFixed(2)} ms, p99 ${m.p99_ms.toFixed(2)} ms, non-2xx ${m.non2xx}, errors ${m.errors}`);
  }

  const writes: WriteMeasurement[] = [];
  for (const scenario of await writeScenarios(port, seeded)) {
    const runs = new Map<number, WriteRuns>();
    for (const connections of WRITE_ORDER) {
      const at = runs.get(connections) ?? { latency: new LatencyRecorder(), results: [] };
      runs.set(connections, at);
      log(`bench: ${scenario.label} × ${connections} connections …`);
      const r = await cannon(port, scenario, settings.write_duration_s, at.latency, connections);
      at.results.push(r);
      log(`bench:   ${r.requests.average.toFixed(1)} creates/s, non-2xx ${r.non2xx} ${JSON.stringify(statusCodes(r))}`);
    }
    for (const connections of WRITE_CONNECTIONS) {
      const w = writeMeasurement(scenario, connections, runs.get(connections)!);
      writes.push(w);
      log(`bench: ${scenario.label} × ${connections}: ${w.rps.toFixed(1)} creates/s (runs ${w.runs_rps.join(', ')}), p50 ${w.p50_ms.toFixed(2)} ms, p99 ${w.p99_ms.toFixed(2)} ms`);
    }
  }
  const rssMaxMb = rss.stop();
  // Creates still in flight when autocannon stopped finish before the server is stopped.
  await new Promise((r) => setTimeout(r, 2_000));
  await stopServer();
  const numbering = await numbersGapless(seeded.tenant);

  const baselines = results.filter((m) => m.route === 'baseline');
  const baselineRps = median(baselines.map((m) => m.rps));
  const driftPct = round2(((baselines.at(-1)!.rps - baselines[0]!.rps) / baselines[0]!.rps) * 100, 1);
  const roundOf = (name: string, run: number) => results.find((m) => m.route === name && m.run === run)!;
  for (const m of results) {
    m.ratio_to_baseline = round2(m.rps / roundOf('baseline', m.run).rps, 3);
    m.ratio_to_prepared_baseline = round2(m.rps / roundOf('baseline.prepared', m.run).rps, 3);
  }
  const summary = round.map((r) => summarise(r, results.filter((m) => m.route === r.name)));

  const failures = results.flatMap((m) => {
    const where = `${m.request} (round ${m.run})`;
    const out: string[] = [];
    const non2xx = m.non2xx + (m.warmup?.non2xx ?? 0);
    if (non2xx > 0) {
      out.push(`${where}: ${non2xx} non-2xx responses (status codes measured ${JSON.stringify(m.status_codes)}, warm-up ${JSON.stringify(m.warmup?.status_codes ?? {})})`);
    }
    const errors = m.errors + (m.warmup?.errors ?? 0);
    if (errors > 0) out.push(`${where}: ${errors} connection errors (${m.timeouts} timeouts)`);
    if (m.requests_total === 0) out.push(`${where}: no requests completed`);
    return out;
  });
  for (const w of writes) {
    if (w.non2xx > 0 || w.errors > 0) failures.push(`${w.request} × ${w.connections}: ${w.non2xx} non-2xx ${JSON.stringify(w.status_codes)}, ${w.errors} errors`);
  }
  for (const problem of numbering) failures.push(`numbering: ${problem}`);

  // An invalid run says nothing about the targets.
  const valid = failures.length === 0;
  const targets = [
    ...summary.filter((m) => TARGETS[m.route] !== undefined).map((m) => ({
      what: `${m.request} ≥ ${TARGETS[m.route]}× baseline`, value: `${m.ratio_to_baseline.toFixed(2)}×`, met: valid ? m.ratio_to_baseline >= TARGETS[m.route]! : null,
    })),
    ...[...new Set(writes.map((w) => w.scenario))].map((scenario) => {
      const at = (c: number) => writes.find((w) => w.scenario === scenario && w.connections === c)!;
      const top = at(WRITE_TARGET.connections);
      const ten = at(10);
      return {
        what: `${top.request} × ${WRITE_TARGET.connections}: ≥ ${WRITE_TARGET.min_rps}/s, p99 ≤ ${WRITE_TARGET.max_p99_ms} ms, ≥ × 10`,
        value: `${top.rps.toFixed(0)}/s, p99 ${top.p99_ms.toFixed(0)} ms (× 10: ${ten.rps.toFixed(0)}/s)`,
        met: valid ? top.rps >= WRITE_TARGET.min_rps && top.p99_ms <= WRITE_TARGET.max_p99_ms && top.rps >= ten.rps : null,
      };
    }),
  ];

  const report = {
    started_at: startedAt.toISOString(),
    finished_at: new Date().toISOString(),
    ok: valid,
    failures,
    targets,
    baseline: { median_rps: round2(baselineRps, 1), first_rps: baselines[0]!.rps, last_rps: baselines.at(-1)!.rps, drift_pct: driftPct },
    summary,
    writes,
    server_rss_max_mb: rssMaxMb,
    runs: results,
    settings: { ...settings, database_url: redactedDbUrl, host: HOST, order: plan.map((r) => r.name), write_connections: WRITE_CONNECTIONS, write_order: WRITE_ORDER },
    machine: {
      node: process.version,
      platform: `${os.platform()} ${os.release()}`,
      arch: os.arch(),
      cpus: os.cpus().length,
      cpu_model: os.cpus()[0]?.model ?? 'unknown',
      total_memory_mb: Math.round(os.totalmem() / 2 ** 20),
    },
  };

  console.log('');
  console.log(table(summary));
  console.log('');
  console.log(writeTable(writes));
  console.log('');
  console.log(`baseline median ${baselineRps.toFixed(1)} req/s (first ${baselines[0]!.rps.toFixed(1)}, last ${baselines.at(-1)!.rps.toFixed(1)}, drift ${driftPct > 0 ? '+' : ''}${driftPct}%)`);
  const spreadPct = round2(((Math.max(...baselines.map((m) => m.rps)) - Math.min(...baselines.map((m) => m.rps))) / baselineRps) * 100, 1);
  if (spreadPct > 20) console.log(`note: the baseline varied ${spreadPct}% between rounds (a busy machine); each ratio is taken within its round and the median is reported`);
  console.log(`server RSS, highest under load: ${rssMaxMb} MB`);
  console.log(`numbering after the creates: ${numbering.length === 0 ? 'unique and gapless' : numbering.join('; ')}`);
  console.log('targets:');
  for (const t of targets) console.log(`  ${t.met === null ? 'NOT EVALUATED' : t.met ? 'MET    ' : 'NOT MET'}  ${t.what} → ${t.value}`);

  const dir = fileURLToPath(new URL('./results/', import.meta.url));
  mkdirSync(dir, { recursive: true });
  const file = `${dir}${startedAt.toISOString().replace(/:/g, '-')}.json`;
  const json = `${JSON.stringify(report, null, 2)}\n`;
  writeFileSync(file, json);
  if (report.ok) writeFileSync(`${dir}latest.json`, json);
  console.log(`results: ${file}${report.ok ? ' (and latest.json)' : ''}  [total ${seconds(t0)}]`);

  if (failures.length > 0) {
    console.error('\nBENCHMARK FAILED — the measurement is not valid:');
    for (const f of failures) console.error(`  - ${f}`);
    return 1;
  }
  return 0;
}

/** The highest resident set size of a process, sampled every 250 ms from /proc (Linux). */
function sampleRss(pid: number): { stop(): number } {
  let maxKb = 0;
  const read = () => {
    try {
      const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
      maxKb = Math.max(maxKb, kb);
    } catch {
      // Not Linux, or the process is gone: the figure is what was seen.
    }
  };
  read();
  const timer = setInterval(read, 250);
  return {
    stop() {
      clearInterval(timer);
      read();
      return Math.round(maxKb / 1024);
    },
  };
}

function exit(code: number): void {
  process.exitCode = code;
  setTimeout(() => process.exit(code), 2_000).unref(); // in case a stray handle keeps the loop alive
}

main()
  .then(async (code) => {
    await cleanup();
    exit(code);
  })
  .catch(async (err: unknown) => {
    console.error(`\nBENCHMARK FAILED: ${err instanceof BenchError ? err.message : err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    await cleanup();
    exit(1);
  });
