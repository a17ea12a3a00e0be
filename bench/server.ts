/**
 * The benchmark's server process, started by bench/run.ts (not meant to be run on its own): the real
 * app on PostgreSQL plus two extra public routes over the same Kysely pool: GET /bench/baseline, a
 * bare point SELECT, and GET /bench/baseline-prepared, the same SELECT as a prepared statement. It
 * listens on a free port on 127.0.0.1, tells the parent the port over IPC, and exits when the parent asks (SIGTERM), when the parent goes away (IPC disconnect), or after
 * BENCH_MAX_LIFETIME_MS, whichever comes first.
 *
 * Environment (set by run.ts): DATABASE_URL, LOG_LEVEL, BENCH_TENANT, BENCH_POOL_SIZE,
 * BENCH_MAX_LIFETIME_MS, PSA_RATE_LIMIT_BURST / PSA_RATE_LIMIT_PER_MINUTE, and BENCH_API_KEY for the list floors.
 *
 * The list floors (GET /bench/floor/{list}): before the measured app is built, a probe app over the same pool
 * answers the first page of each benchmarked list once (app.inject, with BENCH_API_KEY), and the statement
 * each request ran is kept (its compiled SQL and parameters, caught by a Kysely plugin that only the probe has,
 * so the measured app runs exactly as in production). The floor route runs that same prepared statement
 * over the same pool and returns its rows with JSON.stringify: no authentication, no query building, no
 * mapping, no response schema. Its ratio to the baseline is the most the list could reach on this machine
 * while it runs that statement and returns those rows. For a list that keeps its mapped rows by version
 * (src/platform/http/list-cache.ts) it is the page read whole, as when its rows are not kept: the list
 * then answers from a narrower statement and can pass its floor.
 */
import { randomBytes } from 'node:crypto';
import { Type } from 'typebox';
import { buildApp, type App } from '../src/app.ts';
import { loadConfig, type Config } from '../src/config.ts';
import { openPostgres, type Database } from '../src/platform/db/database.ts';
import { sql, type CompiledQuery, type KyselyPlugin, type QueryId, type RootOperationNode } from 'kysely';
import { notFound } from '../src/platform/http/errors.ts';
import { PREPARE_MARK, preparedQuery } from '../src/platform/db/prepared.ts';
import { FLOOR_LISTS, type ServerMessage } from './bench-env.ts';


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
  const key = process.env.BENCH_API_KEY;
  const floors: Floors = key ? await listStatements(database, config, key) : new Map();

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
      instance.get<{ Params: { list: string } }>('/bench/floor/:list', { schema: { operationId: 'benchListFloor', tags: ['Bench'], summary: 'Benchmark list floor: the list\'s own statement, rows as JSON' }, config: { public: true } }, async (req, reply) => {
        const compiled = floors.get(req.params.list);
        if (!compiled) throw notFound('List floor', req.params.list);
        const { rows } = await db.executeQuery(compiled);
        return reply.type('application/json; charset=utf-8').send(JSON.stringify({ data: rows, pagination: { total: Number(rows[0]?.__list_total ?? 0) } }));
      });
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

type PageStatement = CompiledQuery<Record<string, unknown>>;
/** Each floor list's page statement, by list name. */
type Floors = Map<string, PageStatement>;

/** The page statement each floor list runs, caught from one request to a probe app (see the header). */
async function listStatements(opened: Database, config: Config, key: string): Promise<Floors> {
  let caught: { node: RootOperationNode; queryId: QueryId }[] = [];
  const catcher: KyselyPlugin = {
    transformQuery: (args) => {
      caught.push({ node: args.node, queryId: args.queryId });
      return args.node;
    },
    transformResult: async (args) => args.result,
  };
  const probe = await buildApp({ config, database: { ...opened, db: opened.db.withPlugin(catcher) } });
  const floors: Floors = new Map();
  try {
    for (const list of FLOOR_LISTS) {
      caught = [];
      const res = await probe.inject({ method: 'GET', url: `/api/v1/${list}?limit=25`, headers: { 'x-api-key': key } });
      const pages = caught.map((c) => opened.db.getExecutor().compileQuery(c.node, c.queryId)).filter((c) => c.sql.endsWith(PREPARE_MARK));
      // A list that keeps its rows (list-cache.ts) first reads their ids and versions; on this first request
      // none is kept, so it then reads the page whole: that last statement is its floor.
      if (res.statusCode !== 200 || pages.length < 1 || pages.length > 2) throw new Error(`list floor ${list}: expected a 200 that ran one or two page statements, got ${res.statusCode} and ${pages.length}`);
      floors.set(list, pages.at(-1) as PageStatement);
    }
  } finally {
    await probe.close();
  }
  return floors;
}

main().catch((err: unknown) => {
  console.error('bench server failed:', err);
  process.send?.({ type: 'error', message: err instanceof Error ? err.message : String(err) } satisfies ServerMessage);
  void shutdown(1);
});
