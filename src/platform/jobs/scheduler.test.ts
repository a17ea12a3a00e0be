import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../../../test/harness.ts';
import type { Database } from '../db/database.ts';
import { newId } from '../ids.ts';
import { JobRunner } from './runner.ts';
import { Scheduler } from './scheduler.ts';
import { SYSTEM_TENANT, type ScheduleDefinition } from './types.ts';

let database: Database;
beforeAll(async () => { database = await createTestDatabase(); });
afterAll(async () => database.close());

const quiet = { info: () => undefined, error: () => undefined };
const utc = (hh: number, mm: number, ss = 0) => Date.UTC(2030, 0, 1, hh, mm, ss);

/** A clock the test moves; every scheduler and runner of a test reads the same one. */
class Clock {
  constructor(public ms: number) {}
  now = (): Date => new Date(this.ms);
}

const scheduleRow = (name: string) => database.db.selectFrom('schedules').selectAll().where('tenant', '=', SYSTEM_TENANT).where('name', '=', name).executeTakeFirstOrThrow();
const jobsOf = (name: string) => database.db.selectFrom('jobs').selectAll().where('name', '=', name).orderBy('run_at').execute();

describe('Scheduler', () => {
  it('three concurrent workers enqueue exactly one run per due time, and each run happens once', async () => {
    const clock = new Clock(utc(0, 3));
    const runs: number[] = [];
    const schedule: ScheduleDefinition = { name: `every-ten-${newId()}`, cron: '*/10 * * * *', run: async () => void runs.push(clock.ms) };
    const workers = [0, 1, 2].map(() => new Scheduler(database.db, [schedule], { now: clock.now }));
    await Promise.all(workers.map((w) => w.upsert()));
    expect((await scheduleRow(schedule.name)).next_run_at.getTime()).toBe(utc(0, 10));

    expect(await Promise.all(workers.map((w) => w.tick())), 'nothing due yet').toEqual([0, 0, 0]);
    for (const due of [utc(0, 10), utc(0, 20), utc(0, 30)]) {
      clock.ms = due + 500;
      const enqueued = await Promise.all(workers.flatMap((w) => [w.tick(), w.tick()]));
      expect(enqueued.reduce((a, b) => a + b, 0), `one run for ${new Date(due).toISOString()}`).toBe(1);
      expect((await scheduleRow(schedule.name)).next_run_at.getTime()).toBe(due + 10 * 60_000);
    }
    const jobs = await jobsOf(schedule.name);
    expect(jobs.map((j) => [j.tenant, j.run_at.getTime(), j.dedupe_key])).toEqual([utc(0, 10), utc(0, 20), utc(0, 30)].map((due) => [SYSTEM_TENANT, due, `${schedule.name}@${new Date(due).toISOString()}`]));

    // The runs are jobs: three runners drain them, each exactly once.
    const runners = workers.map((w) => new JobRunner(database, w.jobs(), quiet, { now: clock.now }));
    await Promise.all(runners.flatMap((r) => [r.runOnce(), r.runOnce()]));
    expect(runs).toHaveLength(3);
    expect((await jobsOf(schedule.name)).every((j) => j.status === 'done')).toBe(true);
  });

  it('runs a schedule that keeps no runs (keepDone: false) once per due time, and leaves no done rows', async () => {
    const clock = new Clock(utc(2, 0, 0) + 200);
    const runs: number[] = [];
    const schedule: ScheduleDefinition = { name: `every-second-${newId()}`, cron: '* * * * * *', run: async () => void runs.push(clock.ms), keepDone: false };
    const workers = [0, 1].map(() => new Scheduler(database.db, [schedule], { now: clock.now }));
    await Promise.all(workers.map((w) => w.upsert()));
    const runners = workers.map((w) => new JobRunner(database, w.jobs(), quiet, { now: clock.now }));
    for (const second of [1, 2, 3]) {
      clock.ms = utc(2, 0, second) + 200;
      await Promise.all(workers.flatMap((w) => [w.tick(), w.tick()]));
      await Promise.all(runners.map((r) => r.runOnce()));
    }
    expect(runs).toEqual([1, 2, 3].map((second) => utc(2, 0, second) + 200));
    expect(await jobsOf(schedule.name)).toEqual([]);
  });

  it('collapses due times missed while no worker ran into one run', async () => {
    const clock = new Clock(utc(1, 0, 30));
    const scheduler = new Scheduler(database.db, [{ name: `missed-${newId()}`, cron: '* * * * *', run: async () => undefined }], { now: clock.now });
    await scheduler.upsert();
    clock.ms = utc(1, 30, 30);
    expect(await scheduler.tick()).toBe(1);
    expect(await scheduler.tick()).toBe(0);
    const [name] = scheduler.jobs().map((j) => j.name);
    expect((await scheduleRow(name!)).next_run_at.getTime()).toBe(utc(1, 31));
  });

  it('recomputes the next run when the cron changes, and keeps it when it does not', async () => {
    const name = `changing-${newId()}`;
    const clock = new Clock(utc(2, 3));
    await new Scheduler(database.db, [{ name, cron: '*/10 * * * *', run: async () => undefined }], { now: clock.now }).upsert();
    expect((await scheduleRow(name)).next_run_at.getTime()).toBe(utc(2, 10));

    clock.ms = utc(2, 5);
    await new Scheduler(database.db, [{ name, cron: '*/10 * * * *', run: async () => undefined }], { now: clock.now }).upsert();
    expect((await scheduleRow(name)).next_run_at.getTime(), 'a restart keeps the due time').toBe(utc(2, 10));

    const hourly = new Scheduler(database.db, [{ name, cron: '0 * * * *', run: async () => undefined }], { now: clock.now });
    await hourly.upsert();
    expect(await scheduleRow(name)).toMatchObject({ cron: '0 * * * *' });
    expect((await scheduleRow(name)).next_run_at.getTime()).toBe(utc(3, 0));
    clock.ms = utc(2, 10, 1);
    expect(await hourly.tick(), 'the old due time is gone').toBe(0);
  });

  it('a job schedule enqueues the named job with its payload', async () => {
    const clock = new Clock(utc(4, 0, 30));
    const job = `report-${newId()}`;
    const scheduler = new Scheduler(database.db, [{ name: `nightly-${newId()}`, cron: '* * * * *', job, payload: { kind: 'usage' } }], { now: clock.now });
    expect(scheduler.jobs()).toEqual([]);
    await scheduler.upsert();
    clock.ms = utc(4, 1, 1);
    expect(await scheduler.tick()).toBe(1);
    expect(await jobsOf(job)).toMatchObject([{ payload: { kind: 'usage' }, status: 'pending' }]);
  });

  it('rejects an invalid cron expression when built', () => {
    expect(() => new Scheduler(database.db, [{ name: 'bad', cron: 'every day', run: async () => undefined }])).toThrow();
  });
});
