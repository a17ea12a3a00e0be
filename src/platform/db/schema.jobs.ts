import type { ColumnType, Generated } from 'kysely';

/** Kysely table types of migration 0014_jobs (src/platform/jobs); kept apart from schema.ts. */

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;

export type JobStatus = 'pending' | 'running' | 'done' | 'dead';

export interface JobsTable {
  /** The owning tenant; system jobs carry SYSTEM_TENANT (the nil UUID). */
  tenant: string;
  job_id: string;
  name: string;
  payload: ColumnType<Record<string, unknown>, string | undefined, string>;
  status: Generated<JobStatus>;
  attempts: Generated<number>;
  run_at: Timestamp;
  claim_token: string | null;
  locked_until: Date | null;
  dedupe_key: string | null;
  last_error: string | null;
  created_at: ColumnType<Date, Date | string | undefined, never>;
  finished_at: Date | null;
}

export interface SchedulesTable {
  tenant: string;
  name: string;
  cron: string;
  next_run_at: Timestamp;
  updated_at: Timestamp;
}

export interface JobTables {
  jobs: JobsTable;
  schedules: SchedulesTable;
}
