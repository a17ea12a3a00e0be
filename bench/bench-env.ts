/**
 * What every benchmark script shares: validated integer settings from the environment, and the
 * throw-away PostgreSQL database each run drops and recreates (loopback only, name must contain "bench").
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

export class BenchError extends Error {}

export function intEnv(name: string, fallback: number, min: number, max: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) throw new BenchError(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  return n;
}

/** BENCH_DATABASE_URL or the given default, refused unless it is a local database named like a bench one. */
export function benchDatabaseUrl(fallbackName: string): URL {
  const raw = process.env.BENCH_DATABASE_URL || `postgres://postgres@127.0.0.1:5432/${fallbackName}`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new BenchError('BENCH_DATABASE_URL is not a valid URL');
  }
  if (!/^postgres(ql)?:$/.test(url.protocol)) throw new BenchError('BENCH_DATABASE_URL must start with postgres:// or postgresql://');
  if (!['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname)) {
    throw new BenchError(`BENCH_DATABASE_URL must point at this machine (127.0.0.1), got host "${url.hostname}"`);
  }
  const name = decodeURIComponent(url.pathname.slice(1));
  // The database is dropped and recreated on every run: refuse anything that is not obviously a bench database.
  if (!/^[a-z0-9_]*bench[a-z0-9_]*$/i.test(name)) {
    throw new BenchError(`BENCH_DATABASE_URL database "${name}" is dropped on every run, so its name must contain "bench" (letters, digits, _)`);
  }
  return url;
}

export async function recreateDatabase(url: URL): Promise<void> {
  const adminUrl = new URL(url);
  adminUrl.pathname = '/postgres';
  const admin = new pg.Client({ connectionString: adminUrl.toString() });
  await admin.connect();
  try {
    const ident = pg.escapeIdentifier(decodeURIComponent(url.pathname.slice(1)));
    await admin.query(`drop database if exists ${ident} with (force)`);
    await admin.query(`create database ${ident}`);
  } finally {
    await admin.end();
  }
}

/** The value at quantile q (0–1) of already sorted numbers. */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

/** What bench/server.ts tells its parent over IPC. */
export type ServerMessage = { type: 'listening'; port: number } | { type: 'error'; message: string };

/** The lists whose floor bench/server.ts measures (GET /bench/floor/{list}); bench/run.ts benchmarks the same ones. */
export const FLOOR_LISTS = ['clients', 'tickets', 'assets', 'projects', 'contacts'] as const;

export interface BenchServerOptions {
  dbUrl: URL;
  host: string;
  tenant: string;
  poolSize: number;
  maxLifetimeMs: number;
  logLevel: string;
  /** Burst and per-minute limit of every API key (high enough that the limiter never answers). */
  rateLimit: number;
  /** Run the server with --cpu-prof (profiles in bench/results/profile/). */
  profile?: boolean;
  /** A key of the tenant: the server uses it once to catch each list's statement for its floor route. */
  apiKey?: string;
}

/**
 * Forks bench/server.ts (the real app plus the baseline routes) listening on `host` at a free port. `onChild`
 * gets the process at once, so an interrupt can stop it; the promise, its port once it listens and /readyz
 * answers. Its logs go to stderr, so a script's stdout stays its results.
 */
export async function forkBenchServer(o: BenchServerOptions, onChild: (child: ChildProcess) => void): Promise<number> {
  const child = fork(fileURLToPath(new URL('./server.ts', import.meta.url)), [], {
    execArgv: ['--import', 'tsx', ...(o.profile ? ['--cpu-prof', '--cpu-prof-dir=bench/results/profile'] : [])],
    stdio: ['ignore', process.stderr, 'inherit', 'ipc'],
    env: {
      ...process.env,
      DATABASE_URL: o.dbUrl.toString(),
      HOST: o.host,
      PORT: '0',
      LOG_LEVEL: o.logLevel,
      PSA_RATE_LIMIT_BURST: String(o.rateLimit),
      PSA_RATE_LIMIT_PER_MINUTE: String(o.rateLimit),
      PSA_TRUST_PROXY: 'false',
      BENCH_TENANT: o.tenant,
      BENCH_POOL_SIZE: String(o.poolSize),
      BENCH_MAX_LIFETIME_MS: String(o.maxLifetimeMs),
      ...(o.apiKey ? { BENCH_API_KEY: o.apiKey } : {}),
    },
  });
  onChild(child);
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => done(new BenchError('the bench server did not start within 60 s')), 60_000);
    const onExit = (code: number | null, signal: string | null) => done(new BenchError(`the bench server exited before listening (code ${code}, signal ${signal})`));
    const onMessage = (m: ServerMessage) => (m.type === 'listening' ? done(undefined, m.port) : done(new BenchError(`the bench server failed: ${m.message}`)));
    function done(err: Error | undefined, value?: number) {
      clearTimeout(timer);
      child.off('exit', onExit);
      child.off('message', onMessage);
      if (err) reject(err);
      else resolve(value!);
    }
    child.on('exit', onExit);
    child.on('message', onMessage);
  });
  await waitReady(o.host, port);
  return port;
}

/** Waits for the bench server's /readyz, bounded: 100 tries, 100 ms apart. */
export async function waitReady(host: string, port: number): Promise<void> {
  for (let attempt = 1; attempt <= 100; attempt++) {
    const res = await fetch(`http://${host}:${port}/readyz`).catch(() => undefined);
    if (res?.ok) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new BenchError('the bench server never answered /readyz with 200');
}

/** The clients table row every benchmark seeds: "Bench Client 00042", a monthly company in USD. */
export function benchClientRow(tenant: string, client_id: string, n: number) {
  return {
    tenant,
    client_id,
    client_name: `Bench Client ${String(n).padStart(5, '0')}`,
    client_type: 'company' as const,
    billing_cycle: 'monthly' as const,
    payment_terms: 'net_30',
    default_currency_code: 'USD',
    client_since: '2024-01-01',
    tax_id_number: null,
    notes: null,
    merged_into_client_id: null,
    merged_at: null,
  };
}
