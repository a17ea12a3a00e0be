/**
 * npm run bench:webhooks — outbound webhook delivery on PostgreSQL, end to end: ticket write → outbox →
 * fan-out → signed POST → a local receiver that verifies every signature.
 *
 * Recreates BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/psa_bench_webhooks), creates a
 * tenant, BENCH_TICKETS tickets and BENCH_WEBHOOKS webhooks subscribed to ticket.updated, all pointing at a
 * receiver on 127.0.0.1 that runs in its own process (bench/webhook-receiver.ts). Ticket updates go through
 * the real app (in this process, app.inject); delivery runs in real worker processes (`src/worker.ts`), as in
 * production.
 *
 * 1. Burst: with no worker running, BENCH_BURST ticket updates queue BENCH_BURST × BENCH_WEBHOOKS deliveries.
 *    Then 1 (and then 2) worker processes start, and the rate is deliveries ÷ (last receipt − first receipt).
 * 2. Steady: one worker; BENCH_STEADY_SECONDS of ticket updates at BENCH_RATE per second; latency is receipt
 *    time − the envelope's occurred_at (same clock), p50/p95 over every delivery of that window.
 *
 * Every delivery's signature is checked with the receiver's own HMAC code; a bad signature or a missing
 * delivery fails the run. Duplicates (delivery is at least once) are counted and reported. Writes bench/results/webhooks-<timestamp>.json.
 */
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { buildApp, type App } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { openPostgres, type Database } from '../src/platform/db/database.ts';
import { withTransaction } from '../src/platform/db/executor.ts';
import { migrateToLatest } from '../src/platform/db/migrate.ts';
import { issueApiKey } from '../src/modules/api-keys/index.ts';
import { createTenant } from '../src/modules/tenants/index.ts';
import { BenchError, benchDatabaseUrl, intEnv, quantile, recreateDatabase } from './bench-env.ts';
import type { ParentMessage, ReceiverStats } from './webhook-receiver.ts';

const HUGE = 100_000_000;
const SECRET_KEY = Buffer.alloc(32, 3).toString('base64url'); // this run's at-rest key, shared with the workers
const TARGET_PER_WORKER = 1000;
const TARGET_P95_MS = 500;

const settings = {
  webhooks: intEnv('BENCH_WEBHOOKS', 10, 1, 200),
  tickets: intEnv('BENCH_TICKETS', 100, 1, 10_000),
  burst: intEnv('BENCH_BURST', 1000, 1, 100_000),
  rate: intEnv('BENCH_RATE', 100, 1, 2000),
  steady_s: intEnv('BENCH_STEADY_SECONDS', 15, 1, 600),
};
const dbUrl = benchDatabaseUrl('psa_bench_webhooks');
const log = (message: string) => console.error(`bench:webhooks: ${message}`);

// ------------------------------------------------------------------ receiver

/** The receiver child process (bench/webhook-receiver.ts), driven over IPC. */
class Receiver {
  private child: ChildProcess = fork(fileURLToPath(new URL('./webhook-receiver.ts', import.meta.url)), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });

  listen(): Promise<string> {
    return new Promise((resolve, reject) => {
      this.child.once('message', (m: { type: string; url: string }) => (m.type === 'listening' ? resolve(m.url) : reject(new BenchError('receiver failed'))));
      this.child.once('exit', (code) => reject(new BenchError(`the receiver exited (${code})`)));
    });
  }

  send(message: ParentMessage): void {
    this.child.send(message);
  }

  stats(): Promise<ReceiverStats> {
    return new Promise((resolve) => {
      this.child.once('message', (m: ReceiverStats) => resolve(m));
      this.child.send({ type: 'stats' } satisfies ParentMessage);
    });
  }

  close(): void {
    this.child.kill('SIGTERM');
  }
}

// ------------------------------------------------------------------ workers

function startWorker(): ChildProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/worker.ts'], {
    env: {
      ...process.env,
      DATABASE_URL: dbUrl.toString(),
      PSA_SECRET_KEY: SECRET_KEY,
      PSA_WEBHOOK_ALLOW_PRIVATE: '127.0.0.1/32',
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  return child;
}

async function stopWorkers(workers: ChildProcess[]): Promise<void> {
  await Promise.all(
    workers.map(
      (w) =>
        new Promise<void>((resolve) => {
          if (w.exitCode !== null || w.signalCode !== null) return resolve();
          w.once('exit', () => resolve());
          w.kill('SIGTERM');
          setTimeout(() => w.kill('SIGKILL'), 10_000).unref();
        }),
    ),
  );
}

/** Polls the receiver until `expected` deliveries arrived, then waits a moment for any duplicate. */
async function waitForDeliveries(receiver: Receiver, expected: number, timeoutMs: number): Promise<ReceiverStats> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const stats = await receiver.stats();
    if (stats.received >= expected) break;
    if (Date.now() > until) throw new BenchError(`timed out waiting for ${expected} deliveries (${stats.received} arrived)`);
    await new Promise((r) => setTimeout(r, 50));
  }
  await new Promise((r) => setTimeout(r, 500));
  return receiver.stats();
}

// ------------------------------------------------------------------ load

async function call(app: App, apiKey: string, method: 'POST' | 'PUT', url: string, payload: unknown): Promise<Record<string, unknown>> {
  const res = await app.inject({ method, url, payload: payload as object, headers: { 'x-api-key': apiKey } });
  if (res.statusCode >= 300) throw new BenchError(`${method} ${url} answered ${res.statusCode}: ${res.body.slice(0, 300)}`);
  return (res.json() as { data: Record<string, unknown> }).data;
}

let updates = 0;
const updateTicket = (app: App, apiKey: string, ticketIds: string[]) => {
  const n = updates++;
  return call(app, apiKey, 'PUT', `/api/v1/tickets/${ticketIds[n % ticketIds.length]}`, { title: `Bench update ${n}` });
};

/** n ticket updates, 8 at a time. */
async function burst(app: App, apiKey: string, ticketIds: string[], n: number): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < n) {
        next++;
        await updateTicket(app, apiKey, ticketIds);
      }
    }),
  );
}

function checkComplete(stats: ReceiverStats, expected: number, phase: string): void {
  if (stats.badSignatures > 0) throw new BenchError(`${phase}: ${stats.badSignatures} deliveries failed signature verification`);
  if (stats.distinct !== expected) throw new BenchError(`${phase}: ${stats.distinct} distinct (event, webhook) deliveries, expected ${expected}`);
}

// ------------------------------------------------------------------ main

async function main(): Promise<void> {
  await recreateDatabase(dbUrl);
  const receiver = new Receiver();
  const hookUrl = await receiver.listen();
  let database: Database | undefined;
  let app: App | undefined;
  const workers: ChildProcess[] = [];
  try {
    database = await openPostgres(dbUrl.toString(), 10);
    await migrateToLatest(database.db);
    const t = await createTenant(database.db, { name: 'Bench Webhooks', slug: 'bench-webhooks', adminEmail: 'bench@example.com' });
    const { api_key: apiKey } = await withTransaction(database.db, (trx) =>
      issueApiKey(trx, t.tenant_id, t.user_id, { name: 'bench', rate_limit: { burst: HUGE, per_minute: HUGE } }),
    );
    const config = {
      ...loadConfig({ ...process.env, PSA_SECRET_KEY: SECRET_KEY, PSA_WEBHOOK_ALLOW_PRIVATE: '127.0.0.1/32' }),
      logLevel: 'warn',
    };
    app = await buildApp({ config, database, logger: false });
    await app.ready();

    const client = await call(app, apiKey, 'POST', '/api/v1/clients', { client_name: 'Bench client', billing_cycle: 'monthly' });
    const ticketIds: string[] = [];
    for (let i = 0; i < settings.tickets; i++) {
      ticketIds.push(String((await call(app, apiKey, 'POST', '/api/v1/tickets', { title: `Bench ticket ${i}`, client_id: client.client_id }))['ticket_id']));
    }
    const secrets: Record<string, string> = {};
    for (let i = 0; i < settings.webhooks; i++) {
      const hook = await call(app, apiKey, 'POST', '/api/v1/webhooks', {
        name: `Bench hook ${i}`,
        url: hookUrl,
        event_types: ['ticket.updated'],
        rate_limit_per_minute: 10_000,
      });
      secrets[String(hook.webhook_id)] = String(hook.secret);
    }
    receiver.send({ type: 'secrets', secrets });
    log(`${settings.tickets} tickets, ${settings.webhooks} webhooks on ${hookUrl}`);

    const bursts: { workers: number; deliveries: number; duplicates: number; seconds: number; deliveries_per_s: number }[] = [];
    for (const count of [1, 2]) {
      receiver.send({ type: 'reset' });
      const queuing = Date.now();
      await burst(app, apiKey, ticketIds, settings.burst);
      const expected = settings.burst * settings.webhooks;
      log(`burst: ${settings.burst} updates queued in ${Date.now() - queuing} ms (${expected} deliveries); starting ${count} worker(s)`);
      for (let i = 0; i < count; i++) workers.push(startWorker());
      const stats = await waitForDeliveries(receiver, expected, 300_000);
      checkComplete(stats, expected, `burst with ${count} worker(s)`);
      await stopWorkers(workers.splice(0));
      const seconds = (stats.lastAt - stats.firstAt) / 1000;
      bursts.push({ workers: count, deliveries: expected, duplicates: stats.received - stats.distinct, seconds: Number(seconds.toFixed(2)), deliveries_per_s: Math.round(expected / Math.max(seconds, 0.001)) });
    }

    receiver.send({ type: 'reset' });
    workers.push(startWorker());
    await burst(app, apiKey, ticketIds, 1); // the worker is up once this first event arrives
    await waitForDeliveries(receiver, settings.webhooks, 60_000);
    receiver.send({ type: 'reset' });
    log(`steady: ${settings.rate} updates/s for ${settings.steady_s} s with 1 worker`);
    const total = settings.rate * settings.steady_s;
    const started = Date.now();
    const pending: Promise<unknown>[] = [];
    for (let i = 0; i < total; i++) {
      const due = started + (i * 1000) / settings.rate;
      const wait = due - Date.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      pending.push(updateTicket(app, apiKey, ticketIds));
    }
    await Promise.all(pending);
    const expected = total * settings.webhooks;
    const stats = await waitForDeliveries(receiver, expected, 120_000);
    checkComplete(stats, expected, 'steady');
    await stopWorkers(workers.splice(0));
    const latencies = stats.latencies.sort((a, b) => a - b);
    const steady = {
      events_per_s: settings.rate,
      deliveries: expected,
      duplicates: stats.received - stats.distinct,
      achieved_events_per_s: Math.round(total / ((Date.now() - started) / 1000)),
      p50_ms: quantile(latencies, 0.5),
      p95_ms: quantile(latencies, 0.95),
      max_ms: latencies[latencies.length - 1],
    };

    console.table(bursts);
    console.table([steady]);
    const oneWorker = bursts[0]!.deliveries_per_s;
    console.log(`one worker: ${oneWorker} deliveries/s (target ≥ ${TARGET_PER_WORKER}) — ${oneWorker >= TARGET_PER_WORKER ? 'met' : 'MISSED'}`);
    console.log(`steady p95: ${steady.p95_ms} ms (target < ${TARGET_P95_MS}) — ${steady.p95_ms < TARGET_P95_MS ? 'met' : 'MISSED'}`);
    mkdirSync('bench/results', { recursive: true });
    const file = `bench/results/webhooks-${new Date().toISOString().replace(/:/g, '-')}.json`;
    writeFileSync(file, `${JSON.stringify({ settings: { ...settings, node: process.version, cpus: os.cpus().length }, bursts, steady }, null, 2)}\n`);
    log(`wrote ${file}`);
  } finally {
    await stopWorkers(workers);
    await app?.close().catch(() => undefined);
    await database?.close().catch(() => undefined);
    receiver.close();
  }
}

main().catch((err: unknown) => {
  console.error('bench:webhooks failed:', err instanceof BenchError ? err.message : err);
  process.exit(1);
});
