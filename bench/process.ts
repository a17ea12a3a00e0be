/**
 * npm run bench:process — see bench/README.md.
 *
 * Measures the process itself, the way a user starts it:
 *
 *   1. embedded, fresh: the start command (`npm start` unless BENCH_START says otherwise) with an empty data
 *      directory (PSA_DATA_DIR in a temp dir). Time from spawn to the first 200 of GET /healthz, polled every
 *      25 ms; then ~10 s idle and the server's VmRSS.
 *   2. embedded, later: the same command again on that data directory (BENCH_LATER_RUNS times).
 *   3. PostgreSQL: the same command with DATABASE_URL (a recreated bench database, seeded with one tenant,
 *      an unlimited API key and 1,000 clients), then autocannon on GET /api/v1/clients?limit=25 and
 *      GET /api/v1/clients/{id} (10 connections, BENCH_DURATION s); VmRSS sampled every 250 ms, max reported.
 *
 * RSS is that of the server: the largest process in the spawned tree (npm and sh stay as small parents).
 * The tree's total is shown too. Prints a table with the targets (MET / NOT MET), writes
 * bench/results/process-latest.json, and exits non-zero only if a measurement failed.
 */
import { randomBytes } from 'node:crypto';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { openPostgres } from '../src/platform/db/database.ts';
import { withTransaction } from '../src/platform/db/executor.ts';
import { migrateToLatest } from '../src/platform/db/migrate.ts';
import { newId } from '../src/platform/ids.ts';
// The module list installs the permission catalogue that createTenant seeds roles from.
import '../src/modules.ts';
import { issueApiKey } from '../src/modules/api-keys/index.ts';
import { createTenant } from '../src/modules/tenants/index.ts';
import { benchClientRow, benchDatabaseUrl, BenchError, intEnv, recreateDatabase } from './bench-env.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const HOST = '127.0.0.1';
const HUGE_LIMIT = 100_000_000;
const POLL_MS = 25;
const RSS_SAMPLE_MS = 250;
const CLIENTS = 1_000;

const TARGETS = { fresh_first_answer_s: 3, later_first_answer_s: 1.5, embedded_idle_rss_mb: 250, pg_load_rss_mb: 200 };

function settingsFromEnv() {
  return {
    start: (process.env.BENCH_START || 'npm start').split(/\s+/).filter(Boolean),
    idle_s: intEnv('BENCH_IDLE', 10, 0, 120),
    later_runs: intEnv('BENCH_LATER_RUNS', 3, 1, 20),
    duration_s: intEnv('BENCH_DURATION', 10, 1, 300),
    connections: intEnv('BENCH_CONNECTIONS', 10, 1, 256),
    start_timeout_s: intEnv('BENCH_START_TIMEOUT', 120, 5, 600),
    /** embedded, pg or both (default). */
    only: process.env.BENCH_ONLY || 'both',
    dbUrl: benchDatabaseUrl('psa_bench_process'),
  };
}

let settings: ReturnType<typeof settingsFromEnv>;
try {
  settings = settingsFromEnv();
} catch (err) {
  if (!(err instanceof BenchError)) throw err;
  console.error(`bench: ${err.message}`);
  process.exit(2);
}

const log = (message: string) => console.error(message);

// ---------------------------------------------------------------- processes

/** pid → ppid for every process, from /proc. */
function parents(): Map<number, number> {
  const map = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // pid (comm) state ppid …; comm may hold spaces and parentheses, so split after the last ')'.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      map.set(Number(entry), ppid);
    } catch {
      // the process went away
    }
  }
  return map;
}

function tree(root: number): number[] {
  const byParent = parents();
  const out = [root];
  for (let i = 0; i < out.length; i++) for (const [pid, ppid] of byParent) if (ppid === out[i]) out.push(pid);
  return out;
}

const CLOCK_TICKS = 100; // USER_HZ on Linux

/** CPU seconds (user + system) of the spawned tree so far, including its reaped children (initdb's). */
function cpuSeconds(root: number): number {
  let ticks = 0;
  for (const pid of tree(root)) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // fields after the comm: state(0) ppid(1) … utime(11) stime(12) cutime(13) cstime(14)
      ticks += Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]);
    } catch {
      // gone
    }
  }
  return round(ticks / CLOCK_TICKS, 2);
}

function rssKb(pid: number): number {
  try {
    const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

interface RssSample {
  /** The largest process of the tree (the server), MB. */
  server_mb: number;
  server_cmd: string;
  tree_mb: number;
  processes: number;
}

function sampleRss(root: number): RssSample {
  let best = { pid: root, kb: 0 };
  let total = 0;
  const pids = tree(root);
  for (const pid of pids) {
    const kb = rssKb(pid);
    total += kb;
    if (kb > best.kb) best = { pid, kb };
  }
  let cmd = '';
  try {
    cmd = readFileSync(`/proc/${best.pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ');
  } catch {
    // gone
  }
  return { server_mb: round(best.kb / 1024), server_cmd: cmd.slice(0, 120), tree_mb: round(total / 1024), processes: pids.length };
}

const round = (n: number, digits = 1) => Number(n.toFixed(digits));

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, HOST, () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

const children = new Set<ChildProcess>();

/** Spawns the start command in its own process group so the whole tree can be stopped. */
function startProcess(env: Record<string, string>, port: number): { child: ChildProcess; output: () => string } {
  const [cmd, ...args] = settings.start;
  const child = spawn(cmd!, args, {
    cwd: ROOT,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, HOST, PORT: String(port), LOG_LEVEL: 'warn', NODE_ENV: 'production', ...env },
  });
  children.add(child);
  let out = '';
  child.stdout!.on('data', (d: Buffer) => void (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => void (out += d.toString()));
  child.once('exit', () => children.delete(child));
  return { child, output: () => out };
}

function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
    }, 20_000);
    child.once('exit', () => {
      clearTimeout(force);
      // npm may exit before its child: give the group a moment, then make sure nothing is left.
      setTimeout(() => {
        try {
          process.kill(-child.pid!, 'SIGKILL');
        } catch {
          // already gone
        }
        resolve();
      }, 500);
    });
    try {
      process.kill(-child.pid!, 'SIGTERM');
    } catch {
      resolve();
    }
  });
}

/** Polls GET /healthz every 25 ms from spawn; returns seconds from spawn to the first 200. */
async function firstAnswer(child: ChildProcess, spawnedAt: number, port: number, output: () => string): Promise<number> {
  const deadline = spawnedAt + settings.start_timeout_s * 1000;
  while (performance.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new BenchError(`the server exited before answering (code ${child.exitCode}, signal ${child.signalCode}):\n${output().slice(-2000)}`);
    }
    const ok = await fetch(`http://${HOST}:${port}/healthz`, { signal: AbortSignal.timeout(1000) }).then((r) => r.status === 200, () => false);
    if (ok) return round((performance.now() - spawnedAt) / 1000, 2);
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
  throw new BenchError(`no 200 from /healthz within ${settings.start_timeout_s} s:\n${output().slice(-2000)}`);
}

interface StartResult {
  first_answer_s: number;
  /** CPU time the spawned tree used until the first answer: steadier than wall time on a busy machine. */
  cpu_to_first_answer_s: number;
  idle_rss: RssSample;
  demo_key_printed: boolean;
}

async function embeddedStart(dataDir: string): Promise<StartResult> {
  const port = await freePort();
  const spawnedAt = performance.now();
  const { child, output } = startProcess({ PSA_DATA_DIR: dataDir }, port);
  try {
    const first = await firstAnswer(child, spawnedAt, port, output);
    const cpu = cpuSeconds(child.pid!);
    await new Promise((r) => setTimeout(r, settings.idle_s * 1000));
    if (child.exitCode !== null) throw new BenchError(`the server exited while idle:\n${output().slice(-2000)}`);
    const idle = sampleRss(child.pid!);
    return { first_answer_s: first, cpu_to_first_answer_s: cpu, idle_rss: idle, demo_key_printed: /API key \(shown once/.test(output()) };
  } finally {
    await stopProcess(child);
  }
}

// ---------------------------------------------------------------- PostgreSQL under load

async function seed(url: URL): Promise<{ apiKey: string; clientIds: string[] }> {
  await recreateDatabase(url);
  const database = await openPostgres(url.toString(), 2);
  try {
    const db = database.db;
    await migrateToLatest(db);
    const t = await createTenant(db, { name: 'Bench Co', slug: 'bench', adminEmail: 'bench@example.com' });
    const key = await withTransaction(db, (trx) =>
      issueApiKey(trx, t.tenant_id, t.user_id, { name: 'bench', rate_limit: { burst: HUGE_LIMIT, per_minute: HUGE_LIMIT } }),
    );
    const clientIds = Array.from({ length: CLIENTS }, () => newId());
    await withTransaction(db, async (trx) => {
      await trx.insertInto('clients').values(clientIds.map((client_id, i) => benchClientRow(t.tenant_id, client_id, i + 1))).execute();
    });
    return { apiKey: key.api_key, clientIds };
  } finally {
    await database.close();
  }
}

interface LoadResult {
  first_answer_s: number;
  max_rss: RssSample;
  requests: number;
  rps: number;
  non2xx: number;
  errors: number;
}

async function postgresUnderLoad(): Promise<LoadResult> {
  const { apiKey, clientIds } = await seed(settings.dbUrl);
  const port = await freePort();
  const spawnedAt = performance.now();
  const { child, output } = startProcess(
    {
      DATABASE_URL: settings.dbUrl.toString(),
      // A throw-away key: the benchmark encrypts nothing it must read back later.
      PSA_SECRET_KEY: randomBytes(32).toString('base64'),
      PSA_RATE_LIMIT_BURST: String(HUGE_LIMIT),
      PSA_RATE_LIMIT_PER_MINUTE: String(HUGE_LIMIT),
    },
    port,
  );
  try {
    const first = await firstAnswer(child, spawnedAt, port, output);
    const headers = { 'x-api-key': apiKey };
    const check = await fetch(`http://${HOST}:${port}/api/v1/clients?limit=25`, { headers });
    if (check.status !== 200) throw new BenchError(`preflight GET /api/v1/clients?limit=25 answered ${check.status}: ${(await check.text()).slice(0, 300)}`);
    let max: RssSample = sampleRss(child.pid!);
    const sampler = setInterval(() => {
      const s = sampleRss(child.pid!);
      if (s.server_mb > max.server_mb) max = s;
    }, RSS_SAMPLE_MS);
    const randomId = () => clientIds[Math.floor(Math.random() * clientIds.length)]!;
    let result: autocannon.Result;
    try {
      result = await autocannon({
        url: `http://${HOST}:${port}`,
        connections: settings.connections,
        duration: settings.duration_s,
        headers,
        requests: [
          { method: 'GET', path: '/api/v1/clients?limit=25' },
          { method: 'GET', setupRequest: (req) => ({ ...req, path: `/api/v1/clients/${randomId()}` }) },
        ],
      });
    } finally {
      clearInterval(sampler);
    }
    const last = sampleRss(child.pid!);
    if (last.server_mb > max.server_mb) max = last;
    return {
      first_answer_s: first,
      max_rss: max,
      requests: result.requests.total,
      rps: round(result.requests.average, 0),
      non2xx: result.non2xx,
      errors: result.errors + result.timeouts,
    };
  } finally {
    await stopProcess(child);
  }
}

// ---------------------------------------------------------------- run

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    for (const child of children) {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // gone
      }
    }
    process.exit(130);
  });
}

const verdict = (ok: boolean) => (ok ? 'MET' : 'NOT MET');

async function main(): Promise<void> {
  if (!['both', 'embedded', 'pg'].includes(settings.only)) throw new BenchError(`BENCH_ONLY must be embedded, pg or both, got "${settings.only}"`);
  const tmp = mkdtempSync(join(os.tmpdir(), 'psa-bench-process-'));
  const dataDir = join(tmp, 'data');
  try {
    log(`bench:process: start command "${settings.start.join(' ')}", data dir ${dataDir}`);
    let fresh: StartResult | undefined;
    const later: StartResult[] = [];
    if (settings.only !== 'pg') {
      log('embedded, fresh data dir …');
      fresh = await embeddedStart(dataDir);
      if (!fresh.demo_key_printed) throw new BenchError('the fresh start did not print a demo API key');
      log(`  first answer ${fresh.first_answer_s} s (${fresh.cpu_to_first_answer_s} s CPU), idle RSS ${fresh.idle_rss.server_mb} MB`);
      for (let i = 0; i < settings.later_runs; i++) {
        log(`embedded, later start ${i + 1}/${settings.later_runs} …`);
        const r = await embeddedStart(dataDir);
        log(`  first answer ${r.first_answer_s} s (${r.cpu_to_first_answer_s} s CPU), idle RSS ${r.idle_rss.server_mb} MB`);
        later.push(r);
      }
    }
    let pgResult: LoadResult | undefined;
    if (settings.only !== 'embedded') {
      log(`PostgreSQL (${settings.dbUrl.pathname.slice(1)}), ${settings.duration_s} s at ${settings.connections} connections …`);
      pgResult = await postgresUnderLoad();
      if (pgResult.non2xx > 0 || pgResult.errors > 0) {
        throw new BenchError(`load run had ${pgResult.non2xx} non-2xx answers and ${pgResult.errors} errors/timeouts`);
      }
      log(`  first answer ${pgResult.first_answer_s} s, max RSS ${pgResult.max_rss.server_mb} MB, ${pgResult.rps} req/s`);
    }

    const rows: [string, string, string, string][] = [];
    if (fresh) {
      const laterFirst = Math.max(...later.map((r) => r.first_answer_s));
      const idleRss = Math.max(fresh.idle_rss.server_mb, ...later.map((r) => r.idle_rss.server_mb));
      rows.push(
        ['first answer, fresh data dir', `${fresh.first_answer_s} s`, `≤ ${TARGETS.fresh_first_answer_s} s`, verdict(fresh.first_answer_s <= TARGETS.fresh_first_answer_s)],
        [
          `first answer, later start (max of ${later.map((r) => r.first_answer_s).join(', ')})`,
          `${laterFirst} s`,
          `≤ ${TARGETS.later_first_answer_s} s`,
          verdict(laterFirst <= TARGETS.later_first_answer_s),
        ],
        [
          `embedded idle RSS after ${settings.idle_s} s (max of fresh ${fresh.idle_rss.server_mb}, later ${later.map((r) => r.idle_rss.server_mb).join(', ')})`,
          `${idleRss} MB`,
          `≤ ${TARGETS.embedded_idle_rss_mb} MB`,
          verdict(idleRss <= TARGETS.embedded_idle_rss_mb),
        ],
      );
    }
    if (pgResult) {
      rows.push([
        `PostgreSQL RSS under load (max, ${pgResult.rps} req/s, ${pgResult.requests} requests)`,
        `${pgResult.max_rss.server_mb} MB`,
        `≤ ${TARGETS.pg_load_rss_mb} MB`,
        verdict(pgResult.max_rss.server_mb <= TARGETS.pg_load_rss_mb),
      ]);
    }
    const widths = [0, 1, 2, 3].map((i) => Math.max(...rows.map((r) => r[i]!.length), ['measurement', 'value', 'target', ''][i]!.length));
    const line = (r: string[]) => r.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd();
    console.log('');
    console.log(line(['measurement', 'value', 'target', '']));
    for (const r of rows) console.log(line(r));
    console.log('');
    const sample = fresh?.idle_rss ?? pgResult!.max_rss;
    console.log(`server process: ${sample.server_cmd}`);
    console.log(
      'whole spawned tree (incl. npm/sh parents): ' +
        [
          fresh && `embedded idle ${fresh.idle_rss.tree_mb} MB in ${fresh.idle_rss.processes} processes`,
          pgResult && `PostgreSQL under load ${pgResult.max_rss.tree_mb} MB in ${pgResult.max_rss.processes} processes`,
        ].filter(Boolean).join('; '),
    );
    if (fresh) {
      console.log(
        `CPU time to the first answer (user+system, whole tree; wall time stretches with the machine's load): fresh ${fresh.cpu_to_first_answer_s} s, ` +
          `later ${later.map((r) => r.cpu_to_first_answer_s).join(', ')} s`,
      );
    }
    console.log(`load average at the end: ${os.loadavg().map((l) => l.toFixed(2)).join(' ')} (${os.cpus().length} CPUs)`);

    mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
    const record = {
      at: new Date().toISOString(),
      machine: { cpus: os.cpus().length, node: process.version, load: os.loadavg() },
      settings: { ...settings, dbUrl: undefined },
      targets: TARGETS,
      fresh,
      later,
      postgres: pgResult,
    };
    writeFileSync(join(ROOT, 'bench/results/process-latest.json'), `${JSON.stringify(record, null, 2)}\n`);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(`bench:process: ${err instanceof BenchError ? err.message : (err as Error).stack}`);
  for (const child of children) {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // gone
    }
  }
  process.exit(1);
});
