import type { Kysely } from 'kysely';
import { runStatements } from './run-statements.ts';

/**
 * Durable jobs (src/platform/jobs) and the cron schedules that enqueue them.
 *
 * `jobs` follows the outbox's shape: `tenant` leads the key, and the claim scans a partial index of
 * unfinished rows across tenants. System work (schedule runs, retention) carries the nil UUID as its
 * tenant, which is no tenants row: that is why, unlike `events`, there is no foreign key to tenants.
 * `claim_token`/`locked_until` are a worker's lease; a completion counts only while its token still
 * holds the row. `dedupe_key` makes an enqueue idempotent per (tenant, name): a schedule run is keyed by
 * its due time, so however many workers race for it, one row exists. NULL keys never conflict.
 *
 * `schedules` holds one row per schedule name (system schedules: nil tenant) with the next due time;
 * workers advance it with a conditional update, so exactly one of them enqueues each run.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, `
    create table jobs (
      tenant uuid not null,
      job_id uuid not null,
      name text not null,
      payload jsonb not null default '{}',
      status text not null default 'pending' check (status in ('pending', 'running', 'done', 'dead')),
      attempts integer not null default 0,
      run_at timestamptz(3) not null,
      claim_token uuid,
      locked_until timestamptz(3),
      dedupe_key text,
      last_error text,
      created_at timestamptz(3) not null default now(),
      finished_at timestamptz(3),
      primary key (tenant, job_id),
      unique (tenant, name, dedupe_key)
    );
    create index jobs_claim_idx on jobs (run_at) where status in ('pending', 'running');
    create index jobs_finished_idx on jobs (finished_at) where status = 'done';

    create table schedules (
      tenant uuid not null,
      name text not null,
      cron text not null,
      next_run_at timestamptz(3) not null,
      updated_at timestamptz(3) not null default now(),
      primary key (tenant, name)
    );
  `);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, `
    drop table schedules;
    drop table jobs;
  `);
}
