/**
 * The benchmark's server process, started by bench/run.ts (not meant to be run on its own): the real
 * app on PostgreSQL plus two extra public routes over the same Kysely pool: GET /bench/baseline, a
 * bare point SELECT, and GET /bench/baseline-prepared, the same SELECT as a prepared statement. It
 * listens on a free port on 127.0.0.1, tells the parent the port over IPC, and exits when the parent asks (SIGTERM), when the parent goes away (IPC disconnect), or after
 * BENCH_MAX_LIFETIME_MS, whichever comes first.
 *
 * Environment (set by run.ts): DATABASE_URL, LOG_LEVEL, BENCH_TENANT, BENCH_POOL_SIZE,
 * BENCH_MAX_LIFETIME_MS, PSA_RATE_LIMIT_BURST / PSA_RATE_LIMIT_PER_MINUTE.
 */
import { randomBytes } from 'node:crypto';
import { Type } from 'typebox';
import { buildApp, type App } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { openPostgres, type Database } from '../src/platform/db/database.ts';
import { sql } from 'kysely';
import { notFound } from '../src/platform/http/errors.ts';
import { preparedQuery } from '../src/platform/db/prepared.ts';

/** What the server tells run.ts over IPC. */
export type ServerMessage = { type: 'listening'; port: number } | { type: 'error'; message: string };

const BaselineRow = Type.Object({ client_id: Type.String(), client_name: Type.String() });

let app: App | undefined;
let database: Database | undefined;
let closing = false;

async function shutdown(code: number): Promise<void> {
  if (closing) return;
  closing = true;
  setTimeout(() => process.exit(code || 1), 5_000).unref(); // closing must not hang the run
  await app?.close().catch(() => undefined);
  await database?.close().catch(() => undefined);
  process.exit(code);
}

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set (start the benchmark with npm run bench)`);
  return value;
}

async function main(): Promise<void> {
  if (!process.send) throw new Error('bench/server.ts must be started by bench/run.ts (it needs an IPC channel)');
  const url = required('DATABASE_URL');
  const tenant = required('BENCH_TENANT');
  const poolSize = Number(process.env.BENCH_POOL_SIZE || '10');
  const maxLifetimeMs = Number(process.env.BENCH_MAX_LIFETIME_MS || '600000');

  process.on('SIGTERM', () => void shutdown(0));
  process.on('SIGINT', () => void shutdown(0));
  process.on('disconnect', () => void shutdown(0)); // the parent exited or let go of us
  setTimeout(() => {
    console.error(`bench server: maximum lifetime of ${maxLifetimeMs} ms reached, exiting`);
    void shutdown(1);
  }, maxLifetimeMs).unref();

  // Loopback and an ephemeral port, whatever the inherited environment says.
  // A throw-away secret key: the benchmark encrypts nothing it must read back later.
  const config = { ...loadConfig(process.env), host: '127.0.0.1', port: 0, secretKey: randomBytes(32).toString('base64url') };
  database = await openPostgres(url, poolSize);
  const db = database.db;

  const rows = await db.selectFrom('clients').select('client_id').where('tenant', '=', tenant).execute();
  const ids = rows.map((r) => r.client_id);
  if (ids.length === 0) throw new Error(`no clients seeded for tenant ${tenant}`);

  // The second reference uses the API point read's statement machinery (a prepared statement on
  // PostgreSQL), so its ratio isolates the API stack (auth, validation, join, mapping, serialization).
  const pointSelect = preparedQuery(['tenant', 'id'], (executor, v) =>
    executor.selectFrom('clients').select(['client_id', 'client_name']).where('tenant', '=', v.tenant).where('client_id', '=', v.id),
  );

  app = await buildApp({
    config,
    database,
    extend: (instance) => {
      instance.get('/bench/baseline', {
        schema: {
          operationId: 'benchBaseline',
          tags: ['Bench'],
          summary: 'Benchmark baseline: one point SELECT of a random seeded client over the app pool',
          response: { 200: BaselineRow },
        },
        config: { public: true },
      }, async () => {
        const id = ids[Math.floor(Math.random() * ids.length)]!;
        const { rows: found } = await sql<{ client_id: string; client_name: string }>`
          select client_id, client_name from clients where tenant = ${tenant} and client_id = ${id}`.execute(db);
        if (!found[0]) throw notFound('Client', id);
        return found[0];
      });
      instance.get('/bench/baseline-prepared', {
        schema: {
          operationId: 'benchBaselinePrepared',
          tags: ['Bench'],
          summary: 'Second reference: the same point SELECT as a prepared statement (as the API point read runs)',
          response: { 200: BaselineRow },
        },
        config: { public: true },
      }, async () => {
        const id = ids[Math.floor(Math.random() * ids.length)]!;
        const [found] = await pointSelect(db, { tenant, id });
        if (!found) throw notFound('Client', id);
        return found;
      });
    },
  });
  await app.listen({ host: config.host, port: config.port });
  const address = app.server.address();
  if (!address || typeof address === 'string') throw new Error('server did not bind a TCP port');
  process.send({ type: 'listening', port: address.port } satisfies ServerMessage);
}

main().catch((err: unknown) => {
  console.error('bench server failed:', err);
  process.send?.({ type: 'error', message: err instanceof Error ? err.message : String(err) } satisfies ServerMessage);
  void shutdown(1);
});
