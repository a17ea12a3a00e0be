import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../../../test/harness.ts';
import type { Database } from '../db/database.ts';
import { withTransaction } from '../db/executor.ts';
import { newId } from '../ids.ts';
import { enqueue } from './enqueue.ts';
import { completeJob, failJob } from './jobs.repo.ts';
import { JobRunner } from './runner.ts';
import type { JobDefinition } from './types.ts';

let database: Database;
beforeAll(async () => { database = await createTestDatabase(); });
afterAll(async () => database.close());

const T0 = Date.UTC(2030, 0, 1);
const at = (ms: number) => () => new Date(T0 + ms);
const quiet = { info: () => undefined, error: () => undefined };

/** A job kind of this test only (runners claim only the names they know). */
function kind(handle: JobDefinition['handle'] = async () => undefined, extra: Partial<JobDefinition> = {}): JobDefinition {
  return { name: `test-${newId()}`, handle, ...extra };
}

const rowsOf = (name: string) => database.db.selectFrom('jobs').selectAll().where('name', '=', name).orderBy('job_id').execute();
const enqueueNow = (name: string, payload: Record<string, unknown> = {}) => withTransaction(database.db, (trx) => enqueue(trx, { name, payload, runAt: new Date(T0) }));

describe('enqueue', () => {
  it('exists only if the transaction commits, and a dedupe key enqueues once', async () => {
    const job = kind();
    await expect(withTransaction(database.db, async (trx) => {
      await enqueue(trx, { name: job.name });
      throw new Error('rollback');
    })).rejects.toThrow('rollback');
    expect(await rowsOf(job.name)).toEqual([]);

    const tenant = newId();
    const first = await withTransaction(database.db, (trx) => enqueue(trx, { name: job.name, tenant, payload: { n: 1 }, dedupeKey: 'k' }));
    const second = await withTransaction(database.db, (trx) => enqueue(trx, { name: job.name, tenant, payload: { n: 2 }, dedupeKey: 'k' }));
    expect(first).toBeDefined();
    expect(second).toBeUndefined();
    expect(await rowsOf(job.name)).toMatchObject([{ tenant, job_id: first, status: 'pending', attempts: 0, payload: { n: 1 } }]);
  });
});

describe('JobRunner', () => {
  it('two runners on one queue run every job exactly once', async () => {
    const runs = new Map<number, number>();
    const job = kind(async (payload) => {
      await new Promise((r) => setTimeout(r, 2));
      const n = payload.n as number;
      runs.set(n, (runs.get(n) ?? 0) + 1);
    });
    await withTransaction(database.db, async (trx) => {
      for (let n = 0; n < 40; n++) await enqueue(trx, { name: job.name, payload: { n } });
    });
    const runners = [0, 1].map(() => new JobRunner(database, [job], quiet, { pollMs: 20, concurrency: 4 }));
    await Promise.all(runners.map((r) => r.start()));
    try {
      await expect.poll(async () => (await rowsOf(job.name)).filter((r) => r.status === 'done').length, { timeout: 15_000 }).toBe(40);
    } finally {
      await Promise.all(runners.map((r) => r.stop()));
    }
    expect(runs.size).toBe(40);
    expect([...runs.values()].every((count) => count === 1)).toBe(true);
    expect((await rowsOf(job.name)).every((r) => r.attempts === 1 && r.claim_token === null)).toBe(true);
  });

  it('re-claims a job whose lease expired (a crashed worker), not one whose lease is held or renewed', async () => {
    const job = kind();
    await enqueueNow(job.name);
    const lease = 30_000;
    const crashed = new JobRunner(database, [job], quiet, { leaseMs: lease, now: at(0) });
    const [held] = (await crashed.claim(1)).items;
    expect(held).toMatchObject({ name: job.name, attempts: 1 });
    expect((await new JobRunner(database, [job], quiet, { leaseMs: lease, now: at(lease - 1) }).claim(1)).claimed).toBe(0);

    // Renewed a third of the way in: the lease now ends at lease/3 + lease.
    await new JobRunner(database, [job], quiet, { leaseMs: lease, now: at(lease / 3) }).renew([held!]);
    expect((await new JobRunner(database, [job], quiet, { leaseMs: lease, now: at(lease + 1) }).claim(1)).claimed).toBe(0);

    const takeover = await new JobRunner(database, [job], quiet, { leaseMs: lease, now: at(lease / 3 + lease + 1) }).claim(1);
    expect(takeover.items).toMatchObject([{ job_id: held!.job_id, attempts: 2 }]);
    expect(takeover.items[0]!.token).not.toBe(held!.token);
  });

  it('a live runner renews its leases while a slow job runs, so no other runner takes it', async () => {
    let release: () => void = () => undefined;
    let started = 0;
    const job = kind(() => {
      started++;
      return new Promise<void>((resolve) => { release = resolve; });
    });
    await withTransaction(database.db, (trx) => enqueue(trx, { name: job.name }));
    const live = new JobRunner(database, [job], quiet, { leaseMs: 300, pollMs: 20 });
    await live.start();
    try {
      await expect.poll(() => started).toBe(1);
      const other = new JobRunner(database, [job], quiet, { leaseMs: 300 });
      for (let i = 0; i < 6; i++) {
        expect(await other.runOnce()).toBe(0);
        await new Promise((r) => setTimeout(r, 150));
      }
      expect(started).toBe(1);
    } finally {
      release();
      await live.stop();
    }
    expect(await rowsOf(job.name)).toMatchObject([{ status: 'done', attempts: 1 }]);
  });

  it('stop() lets a running job finish and records it before returning', async () => {
    let started = false;
    const job = kind(async () => {
      started = true;
      await new Promise((r) => setTimeout(r, 200));
    });
    await withTransaction(database.db, (trx) => enqueue(trx, { name: job.name }));
    const runner = new JobRunner(database, [job], quiet, { pollMs: 20 });
    await runner.start();
    await expect.poll(() => started).toBe(true);
    await runner.stop();
    expect(await rowsOf(job.name)).toMatchObject([{ status: 'done', attempts: 1 }]);
  });

  it('ignores a stale completion: the claim that took the job over decides', async () => {
    const job = kind();
    await enqueueNow(job.name);
    const [stale] = (await new JobRunner(database, [job], quiet, { leaseMs: 1000, now: at(0) }).claim(1)).items;
    const [current] = (await new JobRunner(database, [job], quiet, { leaseMs: 1000, now: at(2000) }).claim(1)).items;
    expect(current!.job_id).toBe(stale!.job_id);

    expect(await completeJob(database.db, stale!, new Date(T0 + 2500))).toBe(false);
    expect(await failJob(database.db, stale!, { error: 'late', retryAt: new Date(T0), now: new Date(T0 + 2500) })).toBe(false);
    expect(await rowsOf(job.name)).toMatchObject([{ status: 'running', claim_token: current!.token, last_error: null }]);

    expect(await completeJob(database.db, current!, new Date(T0 + 3000))).toBe(true);
    expect(await rowsOf(job.name)).toMatchObject([{ status: 'done', claim_token: null, attempts: 2 }]);
  });

  it('retries a failing job with backoff, then marks it dead with the last error', async () => {
    let calls = 0;
    const job = kind(async () => {
      calls++;
      throw new Error(`boom ${calls}`);
    }, { maxAttempts: 3, backoff: (attempt) => attempt * 1000 });
    await enqueueNow(job.name);
    const runner = (ms: number) => new JobRunner(database, [job], quiet, { now: at(ms) });

    expect(await runner(0).runOnce()).toBe(1);
    let [row] = await rowsOf(job.name);
    expect(row).toMatchObject({ status: 'pending', attempts: 1, last_error: 'boom 1', claim_token: null });
    expect(row!.run_at.getTime()).toBe(T0 + 1000);

    expect(await runner(999).runOnce(), 'not due before its backoff').toBe(0);
    expect(await runner(1000).runOnce()).toBe(1);
    [row] = await rowsOf(job.name);
    expect(row).toMatchObject({ status: 'pending', attempts: 2, last_error: 'boom 2' });
    expect(row!.run_at.getTime()).toBe(T0 + 1000 + 2000);

    expect(await runner(3000).runOnce()).toBe(1);
    [row] = await rowsOf(job.name);
    expect(row).toMatchObject({ status: 'dead', attempts: 3, last_error: 'boom 3' });
    expect(row!.finished_at).toBeInstanceOf(Date);
    expect(await runner(10_000_000).runOnce(), 'a dead job is never claimed').toBe(0);
    expect(calls).toBe(3);
  });

  it('hands a batch kind its jobs in chunks of its size, each chunk one slot; records each outcome', async () => {
    const chunks: number[][] = [];
    const job = kind(async () => { throw new Error('handle() is not used for a batch kind'); }, {
      maxAttempts: 2,
      backoff: () => 1000,
      batch: {
        size: 3,
        parallel: 2,
        handle: async (jobs) => {
          chunks.push(jobs.map((j) => j.payload.n as number));
          return jobs.map((j) => (j.payload.n === 4 ? 'four fails' : undefined));
        },
      },
    });
    const single = kind();
    await withTransaction(database.db, async (trx) => {
      for (let n = 0; n < 7; n++) await enqueue(trx, { name: job.name, payload: { n }, runAt: new Date(T0 + n) });
      await enqueue(trx, { name: single.name, runAt: new Date(T0) });
    });
    // Two slots: the single job takes one, the batch kind's three jobs the other.
    expect(await new JobRunner(database, [job, single], quiet, { now: at(10), concurrency: 2 }).runOnce()).toBe(4);
    expect(chunks).toEqual([[0, 1, 2]]);
    expect(await rowsOf(single.name)).toMatchObject([{ status: 'done' }]);
    // Three slots: the four left in chunks of three and one.
    expect(await new JobRunner(database, [job, single], quiet, { now: at(10), concurrency: 3 }).runOnce()).toBe(4);
    expect(chunks.slice(1).map((c) => [...c].sort())).toEqual([[3, 4, 5], [6]]);
    const rows = await rowsOf(job.name);
    const byN = new Map(rows.map((r) => [(r.payload as { n: number }).n, r]));
    expect(byN.get(4)).toMatchObject({ status: 'pending', attempts: 1, last_error: 'four fails', claim_token: null });
    expect(byN.get(4)!.run_at.getTime()).toBe(T0 + 10 + 1000);
    expect([0, 1, 2, 3, 5, 6].map((n) => byN.get(n)!.status)).toEqual(Array(6).fill('done'));
  });

  it('runs one batch of a kind at a time unless the kind allows more (batch.parallel)', async () => {
    let inFlight = 0;
    let most = 0;
    const job = kind(async () => undefined, {
      batch: {
        size: 2,
        handle: async (jobs) => {
          most = Math.max(most, ++inFlight);
          await new Promise((r) => setTimeout(r, 30));
          inFlight--;
          return jobs.map(() => undefined);
        },
      },
    });
    await withTransaction(database.db, async (trx) => {
      for (let n = 0; n < 5; n++) await enqueue(trx, { name: job.name, payload: { n }, runAt: new Date(T0) });
    });
    expect(await new JobRunner(database, [job], quiet, { now: at(0), concurrency: 10 }).runOnce()).toBe(2);
    const runner = new JobRunner(database, [job], quiet, { now: at(0), pollMs: 10, concurrency: 10 });
    await runner.start();
    try {
      await expect.poll(async () => (await rowsOf(job.name)).filter((r) => r.status === 'done').length, { timeout: 10_000 }).toBe(5);
    } finally {
      await runner.stop();
    }
    expect(most).toBe(1);
  });

  it('a batch handler that throws fails every job of its batch', async () => {
    const job = kind(async () => undefined, { batch: { size: 5, handle: async () => { throw new Error('batch broke'); } } });
    await withTransaction(database.db, async (trx) => {
      for (let n = 0; n < 2; n++) await enqueue(trx, { name: job.name, payload: { n }, runAt: new Date(T0) });
    });
    expect(await new JobRunner(database, [job], quiet, { now: at(0) }).runOnce()).toBe(2);
    expect((await rowsOf(job.name)).map((r) => [r.status, r.last_error])).toEqual([['pending', 'batch broke'], ['pending', 'batch broke']]);
  });

  it('deletes the succeeded jobs of a kind that keeps none (keepDone: false) and keeps its failures, single and batch', async () => {
    const single = kind(async (payload) => { if (payload.fail) throw new Error('no'); }, { keepDone: false, maxAttempts: 1 });
    const batched = kind(async () => undefined, {
      keepDone: false,
      maxAttempts: 1,
      batch: { size: 10, handle: async (jobs) => jobs.map((j) => (j.payload.fail ? 'no' : undefined)) },
    });
    const kept = kind();
    for (const name of [single.name, batched.name]) {
      await enqueueNow(name, { fail: false });
      await enqueueNow(name, { fail: true });
    }
    await enqueueNow(kept.name);
    expect(await new JobRunner(database, [single, batched, kept], quiet, { now: at(0), concurrency: 4 }).runOnce()).toBe(5);
    for (const name of [single.name, batched.name]) {
      expect(await rowsOf(name), name).toMatchObject([{ status: 'dead', payload: { fail: true }, last_error: 'no' }]);
    }
    expect(await rowsOf(kept.name), 'the default keeps a done job').toMatchObject([{ status: 'done' }]);
  });

  it('hands the handler its payload and context', async () => {
    const seen: unknown[] = [];
    const job = kind(async (payload, ctx) => void seen.push({ payload, ctx }));
    const tenant = newId();
    const jobId = await withTransaction(database.db, (trx) => enqueue(trx, { name: job.name, tenant, payload: { a: 'b' }, runAt: new Date(T0) }));
    await new JobRunner(database, [job], quiet, { now: at(0) }).runOnce();
    expect(seen).toEqual([{ payload: { a: 'b' }, ctx: { tenant, jobId, attempt: 1 } }]);
  });
});
