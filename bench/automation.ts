/**
 * npm run bench:automation — the automation engine on PostgreSQL, end to end: outbox event → event consumer
 * (conditions of every active rule) → execution + job → a transactional action (set_storage_record through
 * the storage area's writes) → completed execution.
 *
 * Recreates BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/psa_bench_automation), creates a
 * tenant and BENCH_RULES active rules through the API, all listening to `ticket.updated`, rule i with the
 * condition `data.bucket equals i` — so every event is checked against every rule and starts exactly one
 * execution. Then one worker process (`src/worker.ts`, as in production) runs while this process writes
 * BENCH_RATE outbox events per second for BENCH_SECONDS (in 100 ms slices, written as emit() writes them).
 *
 * Reports: executions/s while the load runs (executions completed ÷ the load's duration) and to the end of the
 * drain, trigger-to-action latency (execution completed_at − event occurred_at) p50/p95/max over every
 * execution, and whether every event ran exactly once (one execution per event, one storage record per event).
 * The baseline measured in the same run is the database's own rate for the same event writes (events/s the
 * producer sustained), so the ratio says how close the engine comes to keeping up with its input.
 * Targets (issue 21): ≥ 500 executions/s per worker and p95 < 1 s. Writes bench/results/automation-<timestamp>.json.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { sql } from 'kysely';
import { buildApp, type App } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { openPostgres, type Database } from '../src/platform/db/database.ts';
import { withTransaction } from '../src/platform/db/executor.ts';
import { migrateToLatest } from '../src/platform/db/migrate.ts';
import { newId } from '../src/platform/ids.ts';
import { issueApiKey } from '../src/modules/api-keys/index.ts';
import { createStorageService } from '../src/modules/storage/index.ts';
import { createTenant } from '../src/modules/tenants/index.ts';
import { loadOwnerActor } from '../src/platform/auth/owner-actor.ts';
import { BenchError, benchDatabaseUrl, intEnv, quantile, recreateDatabase } from './bench-env.ts';

const HUGE = 100_000_000;
const SECRET_KEY = Buffer.alloc(32, 5).toString('base64url');
const TARGET_PER_WORKER = 500;
const TARGET_P95_MS = 1000;
/** The engine's batch size (automation.execute jobs per transaction), for the baseline's transactions. */
const DIRECT_BATCH = 50;

const settings = {
  rules: intEnv('BENCH_RULES', 50, 1, 500),
  rate: intEnv('BENCH_RATE', 1000, 1, 20_000),
  seconds: intEnv('BENCH_SECONDS', 30, 1, 600),
  drain_s: intEnv('BENCH_DRAIN_SECONDS', 300, 10, 3600),
  /** Rule i (and the events of bucket i) belong to tenant i mod tenants: each tenant's storage counters are its own. */
  tenants: intEnv('BENCH_TENANTS', 1, 1, 50),
};
const dbUrl = benchDatabaseUrl('psa_bench_automation');
const log = (message: string) => console.error(`bench:automation: ${message}`);

function startWorker(): ChildProcess {
  // BENCH_CPU_PROF=<dir>: the worker writes a V8 CPU profile there when it stops.
  const prof = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
  return spawn(process.execPath, [...prof, '--import', 'tsx', 'src/worker.ts'], {
    env: { ...process.env, DATABASE_URL: dbUrl.toString(), PSA_SECRET_KEY: SECRET_KEY, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
}

async function stopWorker(w: ChildProcess): Promise<void> {
  if (w.exitCode !== null || w.signalCode !== null) return;
  await new Promise<void>((resolve) => {
    w.once('exit', () => resolve());
    w.kill('SIGTERM');
    setTimeout(() => w.kill('SIGKILL'), 10_000).unref();
  });
}

async function call(app: App, apiKey: string, url: string, payload: unknown): Promise<Record<string, unknown>> {
  const res = await app.inject({ method: 'POST', url, payload: payload as object, headers: { 'x-api-key': apiKey } });
  if (res.statusCode >= 300) throw new BenchError(`POST ${url} answered ${res.statusCode}: ${res.body.slice(0, 300)}`);
  return (res.json() as { data: Record<string, unknown> }).data;
}

/** Writes `count` ticket.updated events as emit() does (one statement, then the NOTIFY that wakes the worker). */
async function writeEvents(database: Database, tenants: readonly string[], first: number, count: number): Promise<void> {
  const now = new Date();
  const rows = Array.from({ length: count }, (_, i) => {
    const n = first + i;
    return {
      tenant: tenants[(n % settings.rules) % tenants.length]!,
      event_id: newId(),
      event_type: 'ticket.updated',
      aggregate_type: 'ticket',
      aggregate_id: newId(),
      payload: JSON.stringify({ data: { bucket: n % settings.rules, n, key: `k${n}` } }),
      occurred_at: now,
      next_attempt_at: now,
    };
  });
  await withTransaction(database.db, async (trx) => {
    await trx.insertInto('events').values(rows).execute();
    await sql`select pg_notify('psa_events', '')`.execute(trx);
  });
}

/**
 * The baseline: the action's own writes without the engine — the same storage puts through the storage
 * service's in-transaction write, BATCH per transaction like the engine's batches, in a tenant of their own
 * (its own usage counters). Returns writes/s.
 */
async function directWrites(database: Database, count: number): Promise<number> {
  const t = await createTenant(database.db, { name: 'Bench Baseline', slug: 'bench-baseline', adminEmail: 'baseline@example.com' });
  const actor = await loadOwnerActor(database.db, t.tenant_id, t.user_id, newId());
  if (!actor) throw new BenchError('the baseline tenant has no admin');
  const storage = createStorageService({ db: database.db });
  const started = performance.now();
  for (let first = 0; first < count; first += DIRECT_BATCH) {
    await withTransaction(database.db, async (trx) => {
      for (let n = first; n < Math.min(count, first + DIRECT_BATCH); n++) await storage.putInTrx(trx, actor, 'bench', `k${n}`, { value: { n: String(n), rule: n % settings.rules } });
    });
  }
  return Math.round((count / (performance.now() - started)) * 1000);
}

async function main(): Promise<void> {
  await recreateDatabase(dbUrl);
  let database: Database | undefined;
  let app: App | undefined;
  let worker: ChildProcess | undefined;
  try {
    database = await openPostgres(dbUrl.toString(), 10);
    await migrateToLatest(database.db);
    const tenants: { tenant_id: string; apiKey: string }[] = [];
    for (let k = 0; k < settings.tenants; k++) {
      const t = await createTenant(database.db, { name: `Bench Automation ${k}`, slug: `bench-automation-${k}`, adminEmail: `bench${k}@example.com` });
      const { api_key: apiKey } = await withTransaction(database.db, (trx) => issueApiKey(trx, t.tenant_id, t.user_id, { name: 'bench', rate_limit: { burst: HUGE, per_minute: HUGE } }));
      tenants.push({ tenant_id: t.tenant_id, apiKey });
    }
    const tenantIds = tenants.map((t) => t.tenant_id);
    const config = { ...loadConfig({ ...process.env, PSA_SECRET_KEY: SECRET_KEY }), logLevel: 'warn' };
    app = await buildApp({ config, database, logger: false });
    await app.ready();
    for (let i = 0; i < settings.rules; i++) {
      await call(app, tenants[i % tenants.length]!.apiKey, '/api/v1/automation/rules', {
        name: `Bench rule ${i}`,
        status: 'active',
        trigger_type: 'event',
        trigger_config: { event_type: 'ticket.updated' },
        conditions: [{ field: 'data.bucket', operator: 'equals', value: i }],
        actions: [{ type: 'set_storage_record', config: { namespace: 'bench', key: '{{data.key}}', value: { n: '{{data.n}}', rule: i } } }],
        max_concurrent_executions: 100,
      });
    }
    log(`${settings.rules} active rules in ${settings.tenants} tenant(s); ${settings.rate} events/s for ${settings.seconds} s; one worker`);

    const directPerS = await directWrites(database, Math.min(5000, settings.rate * settings.seconds));
    log(`baseline: ${directPerS} direct storage writes/s`);
    const autovacuum = (await sql<{ autovacuum: string }>`show autovacuum`.execute(database.db)).rows[0]!.autovacuum;

    worker = startWorker();
    await new Promise((r) => setTimeout(r, 3000));
    const total = settings.rate * settings.seconds;
    const perSlice = settings.rate / 10;
    const started = Date.now();
    let written = 0;
    for (let slice = 0; written < total; slice++) {
      const count = Math.min(total - written, Math.round((slice + 1) * perSlice) - written);
      if (count > 0) await writeEvents(database, tenantIds, written, count);
      written += Math.max(0, count);
      const due = started + (slice + 1) * 100;
      const wait = due - Date.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    }
    const loadEnded = Date.now();
    const producedPerS = Math.round((total / (loadEnded - started)) * 1000);
    const completedAt = async () =>
      Number((await sql<{ n: string }>`select count(*) as n from automation_executions where tenant = any(${tenantIds}::uuid[]) and status in ('completed', 'failed')`.execute(database!.db)).rows[0]!.n);
    const duringLoad = await completedAt();
    const deadline = Date.now() + settings.drain_s * 1000;
    while ((await completedAt()) < total) {
      if (Date.now() > deadline) throw new BenchError(`drain timed out: ${await completedAt()} of ${total} executions finished`);
      await new Promise((r) => setTimeout(r, 250));
    }
    const drained = Date.now();

    const { rows } = await sql<{ ms: number; status: string }>`
      select extract(epoch from (x.completed_at - e.occurred_at)) * 1000 as ms, x.status
      from automation_executions x join events e on e.tenant = x.tenant and e.event_id::text = x.trigger_key
      where x.tenant = any(${tenantIds}::uuid[])`.execute(database.db);
    const latencies = rows.map((r) => Number(r.ms)).sort((a, b) => a - b);
    const failed = rows.filter((r) => r.status !== 'completed').length;
    const records = Number((await sql<{ n: string }>`select count(*) as n from storage_records where tenant = any(${tenantIds}::uuid[]) and namespace = 'bench'`.execute(database.db).catch(() => ({ rows: [{ n: '-1' }] }))).rows[0]!.n);
    const result = {
      machine: { cpus: os.cpus().length, platform: `${os.platform()} ${os.arch()}` },
      settings,
      events: total,
      executions: rows.length,
      failed,
      storage_records: records,
      exactly_once: rows.length === total && failed === 0,
      produced_events_per_s: producedPerS,
      executions_per_s_during_load: Math.round((duringLoad / (loadEnded - started)) * 1000),
      executions_per_s_to_drain: Math.round((total / (drained - started)) * 1000),
      ratio_to_input_rate: Number((total / (drained - started) * 1000 / producedPerS).toFixed(2)),
      direct_writes_per_s: directPerS,
      ratio_to_direct_writes: Number((total / (drained - started) * 1000 / directPerS).toFixed(2)),
      postgres_autovacuum: autovacuum,
      latency_ms: { p50: Math.round(quantile(latencies, 0.5)), p95: Math.round(quantile(latencies, 0.95)), max: Math.round(latencies.at(-1) ?? NaN) },
      targets: { executions_per_s_per_worker: TARGET_PER_WORKER, p95_ms: TARGET_P95_MS },
    };
    mkdirSync('bench/results', { recursive: true });
    const file = `bench/results/automation-${new Date().toISOString().replace(/[:.]/g, '-')}.json`;
    writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
    console.log(JSON.stringify(result, null, 2));
    log(`written to ${file}`);
    if (!result.exactly_once) throw new BenchError(`${result.executions} executions (${failed} not completed) for ${total} events`);
  } finally {
    if (worker) await stopWorker(worker);
    await app?.close();
    await database?.close();
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof BenchError ? `bench:automation: ${err.message}` : err);
  process.exit(1);
});
