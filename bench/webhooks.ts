/**
 * npm run bench:webhooks — outbound webhook delivery on PostgreSQL, end to end: ticket write → outbox →
 * fan-out → signed POST → a local receiver that verifies every signature.
 *
 * Recreates BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/psa_bench_webhooks), creates a
 * tenant, BENCH_TICKETS tickets and BENCH_WEBHOOKS webhooks subscribed to ticket.updated, all pointing at a
 * receiver in this process on 127.0.0.1. Ticket updates go through the real app (in-process, app.inject);
 * delivery runs in real worker processes (`src/worker.ts`), as in production.
 *
 * 1. Burst: with no worker running, BENCH_BURST ticket updates queue BENCH_BURST × BENCH_WEBHOOKS deliveries.
 *    Then 1 (and then 2) worker processes start, and the rate is deliveries ÷ (last receipt − first receipt).
 * 2. Steady: one worker; BENCH_STEADY_SECONDS of ticket updates at BENCH_RATE per second; latency is receipt
 *    time − the envelope's occurred_at (same clock), p50/p95 over every delivery of that window.
 *
 * Every delivery's signature is checked with the receiver's own HMAC code; a bad signature, a missing or a
 * duplicated delivery fails the run. Writes bench/results/webhooks-<timestamp>.json.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import { buildApp, type App } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { openPostgres, type Database } from '../src/platform/db/database.ts';
import { withTransaction } from '../src/platform/db/executor.ts';
import { migrateToLatest } from '../src/platform/db/migrate.ts';
import { issueApiKey } from '../src/modules/api-keys/index.ts';
import { createTenant } from '../src/modules/tenants/index.ts';
import { BenchError, benchDatabaseUrl, intEnv, quantile, recreateDatabase } from './bench-env.ts';

const HOST = '127.0.0.1';
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

interface Receipt {
  at: number;
  occurredAt: number;
  deliveryId: string;
  eventId: string;
  webhookId: string;
}

class Receiver {
  readonly secrets = new Map<string, string>();
  receipts: Receipt[] = [];
  badSignatures = 0;
  private server = createServer((req, res) => void this.handle(req, res));

  async listen(): Promise<string> {
    this.server.keepAliveTimeout = 60_000;
    await new Promise<void>((resolve) => this.server.listen(0, HOST, resolve));
    return `http://${HOST}:${(this.server.address() as AddressInfo).port}/hook`;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const webhookId = String(req.headers['x-service-webhook-id']);
    if (!this.verify(this.secrets.get(webhookId), String(req.headers['x-service-signature']), body)) {
      this.badSignatures++;
      res.writeHead(401).end();
      return;
    }
    const envelope = JSON.parse(body) as { event_id: string; occurred_at: string };
    this.receipts.push({
      at: Date.now(),
      occurredAt: Date.parse(envelope.occurred_at),
      deliveryId: String(req.headers['x-service-delivery-id']),
      eventId: envelope.event_id,
      webhookId,
    });
    res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
  }

  /** The receiver's own check: t=<unix>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>, 5-minute tolerance. */
  private verify(secret: string | undefined, header: string, body: string): boolean {
    if (!secret) return false;
    const parts = Object.fromEntries(header.split(',').map((p) => p.split('=', 2) as [string, string]));
    const t = Number(parts.t);
    if (!Number.isInteger(t) || Math.abs(Date.now() / 1000 - t) > 300 || !parts.v1) return false;
    const expected = createHmac('sha256', secret).update(`${t}.${body}`).digest();
    const given = Buffer.from(parts.v1, 'hex');
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
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

async function waitFor(what: string, done: () => boolean, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > until) throw new BenchError(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
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

function checkComplete(receiver: Receiver, expected: number, phase: string): void {
  const ids = new Set(receiver.receipts.map((r) => `${r.eventId}/${r.webhookId}`));
  if (receiver.badSignatures > 0) throw new BenchError(`${phase}: ${receiver.badSignatures} deliveries failed signature verification`);
  if (ids.size !== expected) throw new BenchError(`${phase}: ${ids.size} distinct (event, webhook) deliveries, expected ${expected}`);
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

    const client = await call(app, apiKey, 'POST', '/api/v1/clients', { client_name: 'Bench client' });
    const ticketIds: string[] = [];
    for (let i = 0; i < settings.tickets; i++) {
      ticketIds.push(String((await call(app, apiKey, 'POST', '/api/v1/tickets', { title: `Bench ticket ${i}`, client_id: client.client_id }))['ticket_id']));
    }
    for (let i = 0; i < settings.webhooks; i++) {
      const hook = await call(app, apiKey, 'POST', '/api/v1/webhooks', {
        name: `Bench hook ${i}`,
        url: hookUrl,
        event_types: ['ticket.updated'],
        rate_limit_per_minute: 10_000,
      });
      receiver.secrets.set(String(hook.webhook_id), String(hook.secret));
    }
    log(`${settings.tickets} tickets, ${settings.webhooks} webhooks on ${hookUrl}`);

    const bursts: { workers: number; deliveries: number; seconds: number; deliveries_per_s: number }[] = [];
    for (const count of [1, 2]) {
      receiver.receipts = [];
      await burst(app, apiKey, ticketIds, settings.burst);
      const expected = settings.burst * settings.webhooks;
      log(`burst: ${settings.burst} updates queued (${expected} deliveries); starting ${count} worker(s)`);
      for (let i = 0; i < count; i++) workers.push(startWorker());
      await waitFor(`${expected} deliveries`, () => receiver.receipts.length >= expected, 300_000);
      await new Promise((r) => setTimeout(r, 500)); // any duplicate would arrive now
      checkComplete(receiver, expected, `burst with ${count} worker(s)`);
      await stopWorkers(workers.splice(0));
      const times = receiver.receipts.map((r) => r.at);
      const seconds = (Math.max(...times) - Math.min(...times)) / 1000;
      bursts.push({ workers: count, deliveries: expected, seconds: Number(seconds.toFixed(2)), deliveries_per_s: Math.round(expected / Math.max(seconds, 0.001)) });
    }

    receiver.receipts = [];
    workers.push(startWorker());
    await burst(app, apiKey, ticketIds, 1); // the worker is up once this first event arrives
    await waitFor('the worker to start', () => receiver.receipts.length >= settings.webhooks, 60_000);
    receiver.receipts = [];
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
    await waitFor(`${expected} steady deliveries`, () => receiver.receipts.length >= expected, 120_000);
    await new Promise((r) => setTimeout(r, 500));
    checkComplete(receiver, expected, 'steady');
    await stopWorkers(workers.splice(0));
    const latencies = receiver.receipts.map((r) => r.at - r.occurredAt).sort((a, b) => a - b);
    const steady = {
      events_per_s: settings.rate,
      deliveries: expected,
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
    await receiver.close();
  }
}

main().catch((err: unknown) => {
  console.error('bench:webhooks failed:', err instanceof BenchError ? err.message : err);
  process.exit(1);
});
