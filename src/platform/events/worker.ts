import type { Database } from '../db/database.ts';
import { JobRunner, type JobRunnerOptions } from '../jobs/runner.ts';
import { compactListCounts } from '../db/list-counts.ts';
import { compactNameChanges } from '../db/names-version.ts';
import { analyzeChangedTables } from '../db/table-statistics.ts';
import { mergePendingPostings } from '../search/postings.ts';
import { DONE_RETENTION_MS, jobsRetention } from '../jobs/retention.ts';
import { Scheduler } from '../jobs/scheduler.ts';
import type { JobDefinition, RunSchedule, ScheduleDefinition } from '../jobs/types.ts';
import { OutboxRelay, type Consumer, type RelayOptions } from './relay.ts';

export interface WorkerLog {
  info(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface Worker {
  stop(): Promise<void>;
}

/**
 * A long-lived loop the worker runs beside the outbox relay (webhook delivery): started after the
 * relay, stopped before it, each in its own error boundary.
 */
export interface BackgroundService {
  name: string;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The platform's own housekeeping: finished outbox events, expired idempotency records, finished jobs, list
 * totals, the search postings, table statistics.
 */
function platformSchedules(database: Database): RunSchedule[] {
  return [
    {
      name: 'outbox-retention',
      cron: '*/10 * * * *',
      run: async () => {
        await database.db.deleteFrom('events').where('status', '=', 'done').where('processed_at', '<', new Date(Date.now() - DONE_RETENTION_MS)).execute();
      },
    },
    {
      name: 'idempotency-expiry',
      cron: '*/10 * * * *',
      run: async () => {
        await database.db.deleteFrom('idempotency_keys').where('expires_at', '<', new Date()).execute();
      },
    },
    jobsRetention(database.db),
    // Every second, so a list page sums at most a second's writes: at 300 creates/s, folding every 10 s left up
    // to 3,000 delta rows per list, and a ticket page read 20-40 % slower with 1,500-3,000 of them. Its runs (and
    // the statistics' below) are not kept once done: 600,000 rows a week that nobody reads.
    { name: 'list-counts-compaction', cron: '* * * * * *', run: () => compactListCounts(database.db), keepDone: false },
    // Names change far less often than lists grow: a tenant's version is a sum over a handful of rows.
    { name: 'name-changes-compaction', cron: '*/10 * * * * *', run: () => compactNameChanges(database.db), keepDone: false },
    // Every second, like the list totals: a search computes the postings of documents not merged yet from their rows.
    { name: 'search-postings-merge', cron: '* * * * * *', run: async () => void (await mergePendingPostings(database.db)), keepDone: false },
    // Statistics where autovacuum is off: soon after a table fills, so plans made while it was empty are replaced.
    { name: 'table-statistics', cron: '*/5 * * * * *', run: async () => void (await analyzeChangedTables(database.db)), keepDone: false },
  ];
}

/**
 * The background worker: the outbox relay and the job runner, each in the shared lease loop (woken by
 * NOTIFY, polling when idle), the cron schedules (the platform's retention plus the areas', from
 * the areas' manifests) whose runs are jobs, and the background services. A failing job is logged and
 * retried per its definition; a failing scheduled run waits for its next due time.
 */
export async function startWorker(opts: {
  database: Database;
  consumers: readonly Consumer[];
  log: WorkerLog;
  /** Idle poll interval of the relay and the job runner (default 1 s). */
  pollMs?: number;
  relay?: RelayOptions;
  jobs?: readonly JobDefinition[];
  schedules?: readonly ScheduleDefinition[];
  /** Job runner settings: leaseMs (PSA_JOB_LEASE_MS), concurrency; tests inject the clock. */
  jobRunner?: Omit<JobRunnerOptions, 'scheduler' | 'pollMs'>;
  services?: readonly BackgroundService[];
}): Promise<Worker> {
  const { database, log } = opts;
  const pollMs = opts.pollMs ?? 1000;
  const relay = new OutboxRelay(database.db, opts.consumers, log, opts.relay).loop(database, { pollMs, log });
  const scheduler = new Scheduler(database.db, [...platformSchedules(database), ...(opts.schedules ?? [])], { now: opts.jobRunner?.now });
  const runner = new JobRunner(database, [...(opts.jobs ?? []), ...scheduler.jobs()], log, { ...opts.jobRunner, pollMs, scheduler });

  const started: { name: string; stop(): Promise<void> }[] = [];
  const stopAll = async () => {
    for (const part of started.splice(0).reverse()) {
      try {
        await part.stop();
      } catch (err) {
        log.error({ err, service: part.name }, 'background service failed to stop');
      }
    }
  };
  // A part that cannot start stops the worker: better no worker than one that silently does not deliver.
  try {
    await relay.start();
    started.push({ name: 'outbox-relay', stop: () => relay.stop() });
    await scheduler.upsert();
    await runner.start();
    started.push({ name: 'job-runner', stop: () => runner.stop() });
    for (const service of opts.services ?? []) {
      await service.start();
      started.push(service);
    }
  } catch (err) {
    await stopAll();
    throw err;
  }

  log.info({ consumers: opts.consumers.map((c) => c.name), jobs: (opts.jobs ?? []).map((j) => j.name), schedules: (opts.schedules ?? []).map((s) => s.name), services: (opts.services ?? []).map((s) => s.name) }, 'worker started');
  return { stop: stopAll };
}
