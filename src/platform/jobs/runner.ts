import type { Database } from '../db/database.ts';
import { newId } from '../ids.ts';
import { claimJobs, completeJob, failJob, renewJobs, type ClaimedJob } from './jobs.repo.ts';
import { LeaseLoop, type LeasedWork, type LoopLog } from './lease-loop.ts';
import type { Scheduler } from './scheduler.ts';
import { JOBS_CHANNEL, defaultBackoff, type JobDefinition } from './types.ts';

export interface JobRunnerOptions {
  /** How long a claim lasts unrenewed; live runners renew every leaseMs/3 (default 30 s). */
  leaseMs?: number;
  /** Most jobs running at once (default 10). */
  concurrency?: number;
  /** Idle poll interval; enqueue()'s NOTIFY wakes the runner sooner (default 1 s). */
  pollMs?: number;
  /** The clock of due times, leases and retries; tests move it. */
  now?: () => Date;
  /** Advances due schedules before each claim (their runs are jobs of this runner). */
  scheduler?: Scheduler;
}

const quiet: LoopLog = { info: () => undefined, error: () => undefined };

/**
 * Runs the jobs registered with it: claims due ones under a lease (only names it knows, so workers
 * with different job sets share the table), runs up to `concurrency` at once, and records each outcome
 * if its claim still holds: done, pending again after backoff, or dead after maxAttempts.
 */
export class JobRunner implements LeasedWork<ClaimedJob> {
  private readonly definitions: ReadonlyMap<string, JobDefinition>;
  private readonly leaseMs: number;
  private readonly concurrency: number;
  private readonly now: () => Date;
  private readonly loop: LeaseLoop<ClaimedJob>;
  private lastTick = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly database: Pick<Database, 'db' | 'listen'>,
    definitions: readonly JobDefinition[],
    private readonly log: LoopLog = quiet,
    private readonly opts: JobRunnerOptions = {},
  ) {
    const byName = new Map<string, JobDefinition>();
    for (const definition of definitions) {
      if (byName.has(definition.name)) throw new Error(`job "${definition.name}" is registered twice`);
      byName.set(definition.name, definition);
    }
    this.definitions = byName;
    this.leaseMs = opts.leaseMs ?? 30_000;
    this.concurrency = opts.concurrency ?? 10;
    this.now = opts.now ?? (() => new Date());
    this.loop = new LeaseLoop(database, this, { name: 'job runner', channel: JOBS_CHANNEL, leaseMs: this.leaseMs, pollMs: opts.pollMs ?? 1000, log });
  }

  start(): Promise<void> {
    return this.loop.start();
  }

  /** Stops claiming; the jobs running finish and are recorded first. */
  stop(): Promise<void> {
    return this.loop.stop();
  }

  /** One pass, awaited to the end (tests and tools): claim, run, record. Returns how many were claimed. */
  async runOnce(limit = this.concurrency): Promise<number> {
    const { items } = await this.claim(limit);
    await this.process(items);
    return items.length;
  }

  capacity(held: number): number {
    return this.concurrency - held;
  }

  async claim(limit: number): Promise<{ claimed: number; items: ClaimedJob[] }> {
    const now = this.now();
    // Schedules are cron-granular (a second at the finest): advancing them once a second is enough,
    // however often a stream of enqueues wakes the runner to claim.
    if (this.opts.scheduler && now.getTime() - this.lastTick >= 1000) {
      this.lastTick = now.getTime();
      await this.opts.scheduler.tick();
    }
    const items = await claimJobs(this.database.db, { names: [...this.definitions.keys()], now, until: new Date(now.getTime() + this.leaseMs), token: newId(), limit });
    return { claimed: items.length, items };
  }

  async process(jobs: ClaimedJob[]): Promise<void> {
    await Promise.all(jobs.map((job) => this.runJob(job)));
  }

  renew(jobs: ClaimedJob[]): Promise<void> {
    return renewJobs(this.database.db, jobs, new Date(this.now().getTime() + this.leaseMs));
  }

  /** Runs one job and records its outcome; never throws (a failed write leaves the job to its lease). */
  private async runJob(job: ClaimedJob): Promise<void> {
    const definition = this.definitions.get(job.name)!;
    let error: string | undefined;
    try {
      await definition.handle(job.payload, { tenant: job.tenant, jobId: job.job_id, attempt: job.attempts });
    } catch (err) {
      error = (err instanceof Error ? err.message : String(err)).slice(0, 2000);
      this.log.error({ err, job: job.name, job_id: job.job_id, attempt: job.attempts }, 'job failed');
    }
    try {
      const now = this.now();
      if (error === undefined) {
        await completeJob(this.database.db, job, now);
      } else {
        const dead = job.attempts >= (definition.maxAttempts ?? 10);
        const retryAt = dead ? null : new Date(now.getTime() + (definition.backoff ?? defaultBackoff)(job.attempts));
        await failJob(this.database.db, job, { error, retryAt, now });
      }
    } catch (err) {
      this.log.error({ err, job: job.name, job_id: job.job_id }, 'recording a job outcome failed; its lease will expire');
    }
  }
}
