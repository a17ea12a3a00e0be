import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { purgeFinishedJobs } from './jobs.repo.ts';
import type { RunSchedule } from './types.ts';

/** How long finished work (done jobs, done outbox events) is kept. */
export const DONE_RETENTION_MS = 7 * 24 * 60 * 60_000;

/** Deletes jobs finished more than 7 days ago, a bounded number per run (dead jobs stay for inspection). */
export function jobsRetention(db: Kysely<DB>): RunSchedule {
  return {
    name: 'jobs-retention',
    cron: '*/10 * * * *',
    run: async () => {
      for (let i = 0; i < 10; i++) if ((await purgeFinishedJobs(db, new Date(Date.now() - DONE_RETENTION_MS))) < 1000) return;
    },
  };
}
