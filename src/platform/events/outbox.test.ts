import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, engine, type TestApp } from '../../../test/harness.ts';
import { makeTenant } from '../../../test/factories.ts';
import { withTransaction } from '../db/executor.ts';
import { emit } from './outbox.ts';
import { OutboxRelay, type Consumer, type OutboxEvent } from './relay.ts';
import { startWorker } from './worker.ts';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => t.close());

const quiet = { error: () => undefined, info: () => undefined };
const event = (tenant: string, n = 0) => ({ tenant, event_type: 'thing.happened', aggregate_type: 'thing', aggregate_id: `thing-${n}`, payload: { n } });

async function rowsOf(tenant: string) {
  return t.database.db.selectFrom('events').selectAll().where('tenant', '=', tenant).orderBy('aggregate_id').execute();
}

/** Runs the relay until nothing is due for this tenant (other files' tenants live in other databases). */
async function drain(relay: OutboxRelay) {
  for (let i = 0; i < 20 && (await relay.runOnce()) > 0; i++);
}

describe('emit', () => {
  it('commits the event with the write, and not at all when the transaction rolls back', async () => {
    const { tenant } = await makeTenant(t);
    await withTransaction(t.database.db, (trx) => emit(trx, event(tenant, 1)));
    await expect(withTransaction(t.database.db, async (trx) => {
      await emit(trx, event(tenant, 2));
      throw new Error('rollback');
    })).rejects.toThrow('rollback');
    const rows = await rowsOf(tenant);
    expect(rows.map((r) => r.aggregate_id)).toEqual(['thing-1']);
    expect(rows[0]).toMatchObject({ status: 'pending', attempts: 0, event_type: 'thing.happened', payload: { n: 1 } });
    expect(rows[0]!.occurred_at).toBeInstanceOf(Date);
  });
});

describe('OutboxRelay', () => {
  it('dispatches each event to every consumer and marks it done', async () => {
    const { tenant } = await makeTenant(t);
    await withTransaction(t.database.db, async (trx) => {
      await emit(trx, event(tenant, 1));
      await emit(trx, event(tenant, 2));
    });
    const seen: string[] = [];
    const consumers: Consumer[] = [
      { name: 'a', handle: async (e) => void (e.tenant === tenant && seen.push(`a:${e.aggregate_id}`)) },
      { name: 'b', handle: async (e) => void (e.tenant === tenant && seen.push(`b:${e.aggregate_id}`)) },
    ];
    await drain(new OutboxRelay(t.database.db, consumers, quiet));
    expect(seen.sort()).toEqual(['a:thing-1', 'a:thing-2', 'b:thing-1', 'b:thing-2']);
    const rows = await rowsOf(tenant);
    expect(rows.every((r) => r.status === 'done' && r.processed_at !== null)).toBe(true);
    expect(rows[0]!.completed_consumers.sort()).toEqual(['a', 'b']);
  });

  it('records a failure for retry with backoff, and does not repeat consumers that already succeeded', async () => {
    const { tenant } = await makeTenant(t);
    await withTransaction(t.database.db, (trx) => emit(trx, event(tenant, 1)));
    let aCalls = 0;
    let bFails = true;
    const consumers: Consumer[] = [
      { name: 'a', handle: async (e) => { if (e.tenant === tenant) aCalls++; } },
      { name: 'b', handle: async (e) => { if (e.tenant === tenant && bFails) throw new Error('receiver down'); } },
    ];
    const relay = new OutboxRelay(t.database.db, consumers, quiet, { backoffMs: () => 0 });
    await relay.runOnce();
    let [row] = await rowsOf(tenant);
    expect(row).toMatchObject({ status: 'pending', attempts: 1, completed_consumers: ['a'] });
    expect(row!.last_error).toContain('b: receiver down');
    bFails = false;
    await drain(relay);
    [row] = await rowsOf(tenant);
    expect(row).toMatchObject({ status: 'done', attempts: 2, last_error: null });
    expect(aCalls).toBe(1);
  });

  it('gives up after maxAttempts and marks the event dead', async () => {
    const { tenant } = await makeTenant(t);
    await withTransaction(t.database.db, (trx) => emit(trx, event(tenant, 1)));
    const failing: Consumer = { name: 'x', handle: async (e) => { if (e.tenant === tenant) throw new Error('nope'); } };
    const relay = new OutboxRelay(t.database.db, [failing], quiet, { maxAttempts: 3, backoffMs: () => 0 });
    await drain(relay);
    const [row] = await rowsOf(tenant);
    expect(row).toMatchObject({ status: 'dead', attempts: 3 });
  });

  it('waits for next_attempt_at before retrying', async () => {
    const { tenant } = await makeTenant(t);
    await withTransaction(t.database.db, (trx) => emit(trx, event(tenant, 1)));
    const failing: Consumer = { name: 'x', handle: async (e) => { if (e.tenant === tenant) throw new Error('nope'); } };
    const relay = new OutboxRelay(t.database.db, [failing], quiet, { backoffMs: () => 60_000 });
    await drain(relay);
    const [row] = await rowsOf(tenant);
    expect(row!.attempts).toBe(1);
    expect(row!.next_attempt_at.getTime()).toBeGreaterThan(Date.now() + 50_000);
  });

  it('takes over an event whose claim expired (a crashed worker)', async () => {
    const { tenant } = await makeTenant(t);
    await withTransaction(t.database.db, (trx) => emit(trx, event(tenant, 1)));
    const crashed = new OutboxRelay(t.database.db, [], quiet, { leaseMs: 1 });
    const claimed = await crashed.claim();
    expect(claimed.some((e) => e.tenant === tenant)).toBe(true);
    await new Promise((r) => setTimeout(r, 20));
    const handled: OutboxEvent[] = [];
    await drain(new OutboxRelay(t.database.db, [{ name: 'ok', handle: async (e) => void handled.push(e) }], quiet));
    expect(handled.some((e) => e.tenant === tenant)).toBe(true);
    const [row] = await rowsOf(tenant);
    expect(row).toMatchObject({ status: 'done', attempts: 2 });
  });

  it('hands a consumer with handleBatch the whole batch at once, and falls back to one event at a time when the batch fails', async () => {
    const { tenant } = await makeTenant(t);
    await withTransaction(t.database.db, async (trx) => {
      for (let i = 0; i < 3; i++) await emit(trx, event(tenant, i));
    });
    const batches: string[][] = [];
    const singles: string[] = [];
    let batchFails = false;
    const consumer: Consumer = {
      name: 'batched',
      handle: async (e) => void (e.tenant === tenant && singles.push(e.aggregate_id)),
      handleBatch: async (events) => {
        const mine = events.filter((e) => e.tenant === tenant).map((e) => e.aggregate_id);
        if (batchFails && mine.length > 0) throw new Error('batch down');
        if (mine.length > 0) batches.push(mine.sort());
      },
    };
    const errors: string[] = [];
    const relay = new OutboxRelay(t.database.db, [consumer], { error: (_o, msg) => void errors.push(msg) });
    await drain(relay);
    expect(batches).toEqual([['thing-0', 'thing-1', 'thing-2']]);
    expect(singles).toEqual([]);
    let rows = await rowsOf(tenant);
    expect(rows.every((r) => r.status === 'done' && r.completed_consumers.join() === 'batched' && r.attempts === 1)).toBe(true);

    batchFails = true;
    await withTransaction(t.database.db, async (trx) => {
      for (let i = 3; i < 5; i++) await emit(trx, event(tenant, i));
    });
    await drain(relay);
    expect(singles.sort()).toEqual(['thing-3', 'thing-4']);
    expect(errors).toContain('event consumer batch failed; handling its events one by one');
    rows = await rowsOf(tenant);
    expect(rows.map((r) => r.status)).toEqual(['done', 'done', 'done', 'done', 'done']);
  });

  it('concurrent relays never claim the same event (FOR UPDATE SKIP LOCKED)', async () => {
    const { tenant } = await makeTenant(t);
    await withTransaction(t.database.db, async (trx) => {
      for (let i = 0; i < 40; i++) await emit(trx, event(tenant, i));
    });
    const relays = [1, 2, 3].map(() => new OutboxRelay(t.database.db, [], quiet, { batchSize: 5 }));
    const claims = await Promise.all(relays.flatMap((r) => [r.claim(), r.claim(), r.claim()]));
    const ids = claims.flat().filter((e) => e.tenant === tenant).map((e) => e.event_id);
    expect(ids.length).toBeGreaterThan(0);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe('worker loop', () => {
  it(`delivers events emitted after it started, woken by NOTIFY (${engine})`, async () => {
    const { tenant } = await makeTenant(t);
    const seen: string[] = [];
    const worker = await startWorker({
      database: t.database,
      consumers: [{ name: 'collect', handle: async (e) => void (e.tenant === tenant && seen.push(e.aggregate_id)) }],
      log: quiet,
      pollMs: 60_000,
    });
    try {
      await withTransaction(t.database.db, (trx) => emit(trx, event(tenant, 7)));
      await expect.poll(() => seen, { timeout: 5000 }).toEqual(['thing-7']);
    } finally {
      await worker.stop();
    }
  });

  it('renews the leases of the batch it is processing, so no other relay takes a slow event over', async () => {
    const { tenant } = await makeTenant(t);
    let release: () => void = () => undefined;
    let calls = 0;
    const slow: Consumer = {
      name: 'slow',
      handle: (e) => {
        if (e.tenant !== tenant) return Promise.resolve();
        calls++;
        return new Promise<void>((resolve) => { release = resolve; });
      },
    };
    const worker = await startWorker({ database: t.database, consumers: [slow], log: quiet, pollMs: 20, relay: { leaseMs: 300 } });
    try {
      await withTransaction(t.database.db, (trx) => emit(trx, event(tenant, 1)));
      await expect.poll(() => calls, { timeout: 5000 }).toBe(1);
      const other = new OutboxRelay(t.database.db, [], quiet, { leaseMs: 300 });
      for (let i = 0; i < 6; i++) {
        expect((await other.claim()).filter((e) => e.tenant === tenant)).toEqual([]);
        await new Promise((r) => setTimeout(r, 150));
      }
    } finally {
      release();
      await worker.stop();
    }
    expect(await rowsOf(tenant)).toMatchObject([{ status: 'done', attempts: 1 }]);
  });

  it('runs periodic tasks when due and keeps going when one fails', async () => {
    const runs: string[] = [];
    const errors: string[] = [];
    // Scheduled time runs on a clock that the test moves a minute at a time, across one midnight.
    let clock = Date.UTC(2029, 11, 31, 23, 58, 30);
    const worker = await startWorker({
      database: t.database,
      consumers: [],
      log: { info: () => undefined, error: (obj) => void errors.push((obj as { job: string }).job) },
      pollMs: 20,
      jobRunner: { now: () => new Date(clock) },
      schedules: [
        { name: 'often', cron: '* * * * *', run: async () => void runs.push('often') },
        { name: 'rarely', cron: '0 0 * * *', run: async () => void runs.push('rarely') },
        { name: 'broken', cron: '0 0 * * *', run: async () => { throw new Error('boom'); } },
      ],
    });
    const ticking = setInterval(() => {
      if (clock < Date.UTC(2030, 0, 1, 0, 5)) clock += 60_000;
    }, 100);
    try {
      await expect.poll(() => runs.filter((r) => r === 'often').length, { timeout: 5000 }).toBeGreaterThanOrEqual(3);
      expect(runs.filter((r) => r === 'rarely')).toEqual(['rarely']);
      expect(errors).toEqual(['broken']);
    } finally {
      clearInterval(ticking);
      await worker.stop();
    }
  });
});
