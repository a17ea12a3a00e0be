/**
 * What every benchmark script shares: validated integer settings from the environment, and the
 * throw-away PostgreSQL database each run drops and recreates (loopback only, name must contain "bench").
 */
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
