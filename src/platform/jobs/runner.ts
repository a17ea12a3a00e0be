import type { Database } from '../db/database.ts';
import { newId } from '../ids.ts';
import { claimJobs, completeJob, completeJobs, failJob, renewJobs, type ClaimedJob } from './jobs.repo.ts';
import { LeaseLoop, type LeasedWork, type LoopLog } from './lease-loop.ts';
import type { Scheduler } from './scheduler.ts';
import { JOBS_CHANNEL, defaultBackoff, type JobDefinition } from './types.ts';

export interface JobRunnerOptions {
  /** How long a claim lasts unrenewed; live runners renew every leaseMs/3 (default 30 s). */
  leaseMs?: number;
  /** Most jobs running at once (default 10); a batch (JobDefinition.batch) counts as one. */
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
 * if its claim still holds: done, pending again after backoff, or dead after maxAttempts. Kinds with a
 * `batch` handler are claimed up to `batch.size` per free slot and handed over a batch at a time.
 */
export class JobRunner implements LeasedWork<ClaimedJob> {
  private readonly definitions: ReadonlyMap<string, JobDefinition>;
  private readonly leaseMs: number;
  private readonly concurrency: number;
  private readonly now: () => Date;
  private readonly loop: LeaseLoop<ClaimedJob>;
  private readonly singles: string[];
  private readonly batched: JobDefinition[];
  /** Slots taken by the claimed work in flight (a single job or a batch is one). */
  private busy = 0;
  /** Batches in flight, by kind (each kind has at most batch.parallel). */
  private readonly batches = new Map<string, number>();
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
    this.singles = definitions.filter((d) => !d.batch).map((d) => d.name);
    this.batched = definitions.filter((d) => d.batch);
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

  capacity(): number {
    return this.concurrency - this.busy;
  }

  /**
   * Claims up to `limit` slots of work: single jobs first, then each batch kind's jobs, up to its batch
   * size per slot left. `claimed` equals `limit` unless every claim came back short (the queue is drained).
   */
  async claim(limit: number): Promise<{ claimed: number; items: ClaimedJob[] }> {
    const now = this.now();
    // Schedules are cron-granular (a second at the finest): advancing them once a second is enough,
    // however often a stream of enqueues wakes the runner to claim.
    if (this.opts.scheduler && now.getTime() - this.lastTick >= 1000) {
      this.lastTick = now.getTime();
      await this.opts.scheduler.tick();
    }
    const lease = { now, until: new Date(now.getTime() + this.leaseMs), token: newId() };
    const items = await claimJobs(this.database.db, { ...lease, names: this.singles, limit });
    let full = items.length === limit;
    let slots = limit - items.length;
    for (const definition of this.batched) {
      const { size, parallel = 1 } = definition.batch!;
      const chunks = Math.min(slots, parallel - (this.batches.get(definition.name) ?? 0));
      if (chunks <= 0) continue;
      const claimed = await claimJobs(this.database.db, { ...lease, names: [definition.name], limit: chunks * size });
      items.push(...claimed);
      full ||= claimed.length === chunks * size;
      slots -= Math.ceil(claimed.length / size);
    }
    const units = this.units(items);
    this.busy += units.length;
    for (const unit of units) this.countBatch(unit, 1);
    return { claimed: full ? limit : Math.min(units.length, limit - 1), items };
  }

  async process(jobs: ClaimedJob[]): Promise<void> {
    const units = this.units(jobs);
    try {
      await Promise.all(units.map((unit) => (unit.length === 1 && !this.definitions.get(unit[0]!.name)!.batch ? this.runJob(unit[0]!) : this.runBatch(unit))));
    } finally {
      this.busy = Math.max(0, this.busy - units.length);
      for (const unit of units) this.countBatch(unit, -1);
    }
  }

  private countBatch(unit: readonly ClaimedJob[], delta: number): void {
    const name = unit[0]!.name;
    if (!this.definitions.get(name)!.batch) return;
    this.batches.set(name, Math.max(0, (this.batches.get(name) ?? 0) + delta));
  }

  /** The claimed jobs as slots of work: each single job alone, a batch kind's jobs in chunks of its size. */
  private units(jobs: readonly ClaimedJob[]): ClaimedJob[][] {
    const units: ClaimedJob[][] = [];
    const byKind = new Map<string, ClaimedJob[]>();
    for (const job of jobs) {
      if (!this.definitions.get(job.name)!.batch) units.push([job]);
      else byKind.set(job.name, [...(byKind.get(job.name) ?? []), job]);
    }
    for (const [name, group] of byKind) {
      const size = this.definitions.get(name)!.batch!.size;
      for (let i = 0; i < group.length; i += size) units.push(group.slice(i, i + size));
    }
    return units;
  }

  renew(jobs: ClaimedJob[]): Promise<void> {
    return renewJobs(this.database.db, jobs, new Date(this.now().getTime() + this.leaseMs));
  }

  /** Runs a batch of one kind and records the outcomes; never throws (as runJob). */
  private async runBatch(jobs: ClaimedJob[]): Promise<void> {
    const definition = this.definitions.get(jobs[0]!.name)!;
    let outcomes: (string | undefined)[];
    try {
      outcomes = await definition.batch!.handle(jobs.map((job) => ({ payload: job.payload, ctx: { tenant: job.tenant, jobId: job.job_id, attempt: job.attempts } })));
    } catch (err) {
      this.log.error({ err, job: definition.name, jobs: jobs.length }, 'job batch failed');
      outcomes = jobs.map(() => (err instanceof Error ? err.message : String(err)));
    }
    try {
      const now = this.now();
      await completeJobs(this.database.db, jobs.filter((_, i) => outcomes[i] === undefined), now, definition.keepDone !== false);
      for (const [i, job] of jobs.entries()) {
        const error = outcomes[i];
        if (error !== undefined) await this.recordFailure(definition, job, error.slice(0, 2000), now);
      }
    } catch (err) {
      this.log.error({ err, job: definition.name, jobs: jobs.length }, 'recording job outcomes failed; their leases will expire');
    }
  }

  private async recordFailure(definition: JobDefinition, job: ClaimedJob, error: string, now: Date): Promise<void> {
    const dead = job.attempts >= (definition.maxAttempts ?? 10);
    const retryAt = dead ? null : new Date(now.getTime() + (definition.backoff ?? defaultBackoff)(job.attempts));
    await failJob(this.database.db, job, { error, retryAt, now });
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
      if (error === undefined) await completeJob(this.database.db, job, now, definition.keepDone !== false);
      else await this.recordFailure(definition, job, error, now);
    } catch (err) {
      this.log.error({ err, job: job.name, job_id: job.job_id }, 'recording a job outcome failed; its lease will expire');
    }
  }
}
