/**
 * npm run bench:storage — throughput of the storage API on PostgreSQL.
 *
 * Recreates BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/psa_bench_storage; loopback
 * hosts and database names containing "bench" only), migrates it, creates one tenant and key, starts
 * the app in this process on 127.0.0.1 (an ephemeral port), seeds 10,000 records through the API, and
 * measures with autocannon, each for BENCH_DURATION seconds (default 5) with BENCH_CONNECTIONS (10):
 * single PUTs, bulk writes of 100 items, GETs and list pages. Prints a table, writes
 * bench/results/storage-<timestamp>.json, and exits non-zero on any non-2xx answer or connection error.
 * Client and server share one process here, so the numbers are a floor, not a ceiling.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import autocannon from 'autocannon';
import { buildApp, type App } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { openPostgres, type Database } from '../src/platform/db/database.ts';
import { withTransaction } from '../src/platform/db/executor.ts';
import { migrateToLatest } from '../src/platform/db/migrate.ts';
import { issueApiKey } from '../src/modules/api-keys/index.ts';
import { createTenant } from '../src/modules/tenants/index.ts';
import { benchDatabaseUrl, intEnv, recreateDatabase } from './bench-env.ts';

const HOST = '127.0.0.1';
const KEYS = 10_000;
const HUGE = 100_000_000;

const duration = intEnv('BENCH_DURATION', 5, 1, 120);
const connections = intEnv('BENCH_CONNECTIONS', 10, 1, 256);
const dbUrl = benchDatabaseUrl('psa_bench_storage');

const key = (i: number) => `key-${String(i).padStart(5, '0')}`;
const rand = (n: number) => Math.floor(Math.random() * n);
const value = (i: number) => ({ id: i, name: `record ${i}`, tags: ['a', 'b', 'c'], at: '2026-11-21T00:00:00.000Z' });
const cursorAt = (k: string) => Buffer.from(JSON.stringify({ k }), 'utf8').toString('base64url');

interface Scenario {
  name: string;
  method: 'GET' | 'PUT' | 'POST';
  path: () => string;
  body?: () => string;
  /** Items written per request (bulk). */
  items?: number;
}

const base = '/api/v1/storage/namespaces/bench/records';
const scenarios: Scenario[] = [
  { name: 'PUT single', method: 'PUT', path: () => `${base}/${key(rand(KEYS))}`, body: () => JSON.stringify({ value: value(rand(KEYS)), ttlSeconds: 86_400 }) },
  {
    name: 'POST bulk 100',
    method: 'POST',
    path: () => base,
    body: () => {
      const start = rand(KEYS / 100) * 100;
      return JSON.stringify({ items: Array.from({ length: 100 }, (_, i) => ({ key: key(start + i), value: value(start + i) })) });
    },
    items: 100,
  },
  { name: 'GET record', method: 'GET', path: () => `${base}/${key(rand(KEYS))}` },
  { name: 'GET list page (25)', method: 'GET', path: () => `${base}?limit=25&cursor=${cursorAt(key(rand(KEYS - 25)))}` },
];

function measure(port: number, apiKey: string, s: Scenario): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    autocannon({
      url: `http://${HOST}:${port}`,
      connections,
      duration,
      timeout: 10,
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
      requests: [{ method: s.method, setupRequest: (req) => Object.assign(req, { path: s.path(), ...(s.body ? { body: s.body() } : {}) }) }],
    }, (err, result) => (err ? reject(err instanceof Error ? err : new Error(String(err))) : resolve(result)));
  });
}

async function main(): Promise<void> {
  await recreateDatabase(dbUrl);
  let database: Database | undefined;
  let app: App | undefined;
  try {
    database = await openPostgres(dbUrl.toString(), 10);
    await migrateToLatest(database.db);
    const t = await createTenant(database.db, { name: 'Bench Storage', slug: 'bench-storage', adminEmail: 'bench@example.com' });
    const issued = await withTransaction(database.db, (trx) => issueApiKey(trx, t.tenant_id, t.user_id, { name: 'bench', rate_limit: { burst: HUGE, per_minute: HUGE } }));
    const config = { ...loadConfig({ ...process.env, PSA_RATE_LIMIT_BURST: String(HUGE), PSA_RATE_LIMIT_PER_MINUTE: String(HUGE) }), host: HOST, port: 0, logLevel: 'warn' };
    app = await buildApp({ config, database, logger: false });
    await app.listen({ host: HOST, port: 0 });
    const address = app.server.address();
    if (!address || typeof address === 'string') throw new Error('no TCP port');
    const port = address.port;

    for (let start = 0; start < KEYS; start += 100) {
      const res = await fetch(`http://${HOST}:${port}${base}`, {
        method: 'POST',
        headers: { 'x-api-key': issued.api_key, 'content-type': 'application/json' },
        body: JSON.stringify({ items: Array.from({ length: 100 }, (_, i) => ({ key: key(start + i), value: value(start + i) })) }),
      });
      if (res.status !== 200) throw new Error(`seeding failed: ${res.status} ${await res.text()}`);
    }

    const rows: { scenario: string; requests_per_s: number; items_per_s: number; p50_ms: number; p99_ms: number; non2xx: number; errors: number }[] = [];
    for (const s of scenarios) {
      const r = await measure(port, issued.api_key, s);
      rows.push({
        scenario: s.name,
        requests_per_s: Math.round(r.requests.average),
        items_per_s: Math.round(r.requests.average * (s.items ?? 1)),
        p50_ms: r.latency.p50,
        p99_ms: r.latency.p99,
        non2xx: r.non2xx,
        errors: r.errors + r.timeouts,
      });
    }
    console.table(rows);
    mkdirSync('bench/results', { recursive: true });
    const file = `bench/results/storage-${new Date().toISOString().replace(/:/g, '-')}.json`;
    writeFileSync(file, `${JSON.stringify({ settings: { duration_s: duration, connections, keys: KEYS, node: process.version, cpus: os.cpus().length }, results: rows }, null, 2)}\n`);
    console.error(`bench:storage: wrote ${file}`);
    const bad = rows.filter((r) => r.non2xx > 0 || r.errors > 0);
    if (bad.length) {
      console.error(`bench:storage: non-2xx answers or errors in ${bad.map((b) => b.scenario).join(', ')}; the numbers are not valid`);
      process.exitCode = 1;
    }
  } finally {
    await app?.close().catch(() => undefined);
    await database?.close().catch(() => undefined);
  }
}

main().catch((err: unknown) => {
  console.error('bench:storage failed:', err);
  process.exit(1);
});
