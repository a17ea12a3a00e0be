import { sql, type Kysely } from 'kysely';
import { withTransaction } from '../db/executor.ts';
import type { DB } from '../db/schema.ts';
import { iso } from '../time.ts';
import { nextCronTime } from './cron.ts';
import { enqueue } from './enqueue.ts';
import { SYSTEM_TENANT, type JobDefinition, type ScheduleDefinition } from './types.ts';

/**
 * Turns cron schedules into jobs, once per due time however many workers run. Each schedule is a row
 * (system tenant, name) holding its next due time. A worker that finds it due moves it to the following
 * due time with an update conditioned on the due time it read, and enqueues the run in the same
 * transaction: only one worker's update matches, and the run commits together with the move, so it is
 * durable and runs at least once (as a job: leased, re-claimed if its worker dies). The run's dedupe key
 * (name@due time) guards the enqueue as well. Missed due times (no worker running) collapse into one run.
 */
export class Scheduler {
  private readonly byName: ReadonlyMap<string, ScheduleDefinition>;
  private readonly now: () => Date;

  constructor(
    private readonly db: Kysely<DB>,
    schedules: readonly ScheduleDefinition[],
    opts: { now?: () => Date } = {},
  ) {
    const byName = new Map<string, ScheduleDefinition>();
    for (const schedule of schedules) {
      if (byName.has(schedule.name)) throw new Error(`schedule "${schedule.name}" is defined twice`);
      nextCronTime(schedule.cron, new Date()); // an invalid expression fails at start, not at its first run
      byName.set(schedule.name, schedule);
    }
    this.byName = byName;
    this.now = opts.now ?? (() => new Date());
  }

  /** The jobs that run the `run` schedules (named after them); the runner registers these. */
  jobs(): JobDefinition[] {
    return [...this.byName.values()].flatMap((s) => ('run' in s ? [{ name: s.name, handle: () => s.run(), maxAttempts: s.maxAttempts ?? 1, keepDone: s.keepDone } satisfies JobDefinition] : []));
  }

  /**
   * Creates missing schedule rows and recomputes the next run of those whose cron changed; an unchanged
   * schedule keeps its due time (a restart neither skips nor repeats a run).
   */
  async upsert(): Promise<void> {
    if (this.byName.size === 0) return;
    const now = this.now();
    const list = [...this.byName.values()];
    await sql`
      insert into schedules (tenant, name, cron, next_run_at, updated_at)
      select ${SYSTEM_TENANT}::uuid, s.name, s.cron, s.next_run_at, ${now}::timestamptz
      from unnest(${list.map((s) => s.name)}::text[], ${list.map((s) => s.cron)}::text[], ${list.map((s) => iso(nextCronTime(s.cron, now)))}::timestamptz[])
        as s(name, cron, next_run_at)
      on conflict (tenant, name) do update
        set cron = excluded.cron, next_run_at = excluded.next_run_at, updated_at = excluded.updated_at
        where schedules.cron <> excluded.cron`.execute(this.db);
  }

  /** Enqueues the runs now due (this worker's share: those whose move it won). Returns how many. */
  async tick(): Promise<number> {
    if (this.byName.size === 0) return 0;
    const now = this.now();
    const due = await this.db
      .selectFrom('schedules')
      .select(['name', 'cron', 'next_run_at'])
      .where('tenant', '=', SYSTEM_TENANT)
      .where('name', 'in', [...this.byName.keys()])
      .where('next_run_at', '<=', now)
      .execute();
    let enqueued = 0;
    for (const row of due) {
      const schedule = this.byName.get(row.name)!;
      // A worker with another version of this schedule (a rolling deploy) owns the row until it restarts.
      if (schedule.cron !== row.cron) continue;
      if (await this.advance(schedule, row.next_run_at, nextCronTime(row.cron, now))) enqueued++;
    }
    return enqueued;
  }

  private advance(schedule: ScheduleDefinition, due: Date, next: Date): Promise<boolean> {
    return withTransaction(this.db, async (trx) => {
      const moved = await trx
        .updateTable('schedules')
        .set({ next_run_at: next, updated_at: this.now() })
        .where('tenant', '=', SYSTEM_TENANT)
        .where('name', '=', schedule.name)
        .where('next_run_at', '=', due)
        .where('cron', '=', schedule.cron)
        .executeTakeFirst();
      if (Number(moved.numUpdatedRows) === 0) return false;
      const job = 'run' in schedule ? { name: schedule.name } : { name: schedule.job, payload: schedule.payload };
      await enqueue(trx, { ...job, runAt: due, dedupeKey: `${schedule.name}@${iso(due)}` });
      return true;
    });
  }
}
