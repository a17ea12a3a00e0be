/** The tenant of system work (schedule runs, retention): the nil UUID, which is no tenants row. */
export const SYSTEM_TENANT = '00000000-0000-0000-0000-000000000000';

/** NOTIFY channel of the jobs table: enqueue() wakes idle runners at commit. */
export const JOBS_CHANNEL = 'psa_jobs';

export interface JobContext {
  tenant: string;
  jobId: string;
  /** 1 on the first run; a re-claimed job (crashed worker) or a retry counts up. */
  attempt: number;
}

/** One job of a batch handed to handleBatch. */
export interface BatchJob<P = Record<string, unknown>> {
  payload: P;
  ctx: JobContext;
}

/**
 * A job kind, registered with the runner by name. Delivery is at least once (a crashed worker's job
 * runs again after its lease), so handle() must be idempotent; a throw is retried with backoff.
 */
export interface JobDefinition<P = Record<string, unknown>> {
  name: string;
  handle(payload: P, ctx: JobContext): Promise<void>;
  /**
   * Optional: the runner hands claimed jobs of this kind over up to `batch.size` at a time (one transaction
   * for many, where the kind can do that), each batch counting as one of the runner's `concurrency` slots
   * (and at most `batch.parallel` of them).
   * Resolves with each job's outcome in input order: undefined when it succeeded, else its error (retried
   * per maxAttempts and backoff, like a throw from handle()). A throw fails every job of the batch.
   */
  batch?: {
    size: number;
    /**
     * Most batches of this kind a runner has in flight at once (default 1): batches that take the same locks
     * only queue behind each other, holding transactions open meanwhile.
     */
    parallel?: number;
    handle(jobs: readonly BatchJob<P>[]): Promise<(string | undefined)[]>;
  };
  /** Failed runs before the job is `dead` (default 10). */
  maxAttempts?: number;
  /**
   * Whether a succeeded job stays in the table, as `done`, until the retention purges it (default true).
   * False deletes it instead: a frequent housekeeping run whose history nobody reads would otherwise keep
   * hundreds of thousands of rows (a run a second for the retention's 7 days). Failures are kept either way.
   */
  keepDone?: boolean;
  /** Delay before retry n (1-based; default exponential from 1 s, capped at an hour). */
  backoff?: (attempt: number) => number;
}

interface ScheduleBase {
  /** Unique across schedules; names the schedule row and the runs' dedupe keys. */
  name: string;
  /** Five fields (or six with seconds), evaluated in UTC. */
  cron: string;
}

/**
 * A schedule whose runs are its own job (named after the schedule). A failed run is not retried: the
 * next due time is its retry, as for any periodic housekeeping (maxAttempts overrides that).
 */
export interface RunSchedule extends ScheduleBase {
  run(): Promise<void>;
  maxAttempts?: number;
  /** False: a succeeded run is deleted rather than kept as done (JobDefinition.keepDone). */
  keepDone?: boolean;
}

/** A schedule that enqueues a registered job with a fixed payload. */
export interface JobSchedule extends ScheduleBase {
  job: string;
  payload?: Record<string, unknown>;
}

export type ScheduleDefinition = RunSchedule | JobSchedule;

export const defaultBackoff = (attempt: number): number => Math.min(60 * 60_000, 1000 * 2 ** (attempt - 1));
