import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { iso } from '../time.ts';

/** A job a runner holds: `token` names its claim, and only that claim may finish it. */
export interface ClaimedJob {
  tenant: string;
  job_id: string;
  name: string;
  payload: Record<string, unknown>;
  attempts: number;
  token: string;
}

/**
 * Claims up to `limit` due jobs among `names` (FOR UPDATE SKIP LOCKED: concurrent runners never take
 * the same row) under a lease until `until`. A running job whose lease ran out (its worker died) is
 * due again. Every claim counts an attempt.
 */
export async function claimJobs(db: Kysely<DB>, c: { names: readonly string[]; now: Date; until: Date; token: string; limit: number }): Promise<ClaimedJob[]> {
  if (c.names.length === 0) return [];
  const { rows } = await sql<ClaimedJob>`
    update jobs j set status = 'running', attempts = j.attempts + 1, claim_token = ${c.token}::uuid, locked_until = ${c.until}::timestamptz
    from (
      select tenant, job_id from jobs
      where name = any(${[...c.names]}::text[])
        and ((status = 'pending' and run_at <= ${c.now}::timestamptz) or (status = 'running' and locked_until < ${c.now}::timestamptz))
      order by run_at
      limit ${c.limit}
      for update skip locked
    ) due
    where j.tenant = due.tenant and j.job_id = due.job_id
    returning j.tenant, j.job_id, j.name, j.payload, j.attempts, j.claim_token as token`.execute(db);
  return rows;
}

/** Extends the leases of jobs still held by their claims (a job taken over meanwhile is left alone). */
export async function renewJobs(db: Kysely<DB>, jobs: readonly ClaimedJob[], until: Date): Promise<void> {
  if (jobs.length === 0) return;
  await sql`
    update jobs j set locked_until = ${until}::timestamptz
    from unnest(${jobs.map((j) => j.tenant)}::uuid[], ${jobs.map((j) => j.job_id)}::uuid[], ${jobs.map((j) => j.token)}::uuid[]) as h(tenant, job_id, token)
    where j.tenant = h.tenant and j.job_id = h.job_id and j.claim_token = h.token and j.status = 'running'`.execute(db);
}

/**
 * Marks a held job done, or deletes it when its kind keeps no finished jobs (`keep` false: JobDefinition.keepDone).
 * False when the claim no longer holds it (a stale completion: ignored).
 */
export async function completeJob(db: Kysely<DB>, job: ClaimedJob, now: Date, keep = true): Promise<boolean> {
  const held = sql`tenant = ${job.tenant}::uuid and job_id = ${job.job_id}::uuid and claim_token = ${job.token}::uuid and status = 'running'`;
  const result = await (keep
    ? sql`update jobs set status = 'done', finished_at = ${now}::timestamptz, claim_token = null, locked_until = null, last_error = null where ${held}`
    : sql`delete from jobs where ${held}`
  ).execute(db);
  return Number(result.numAffectedRows ?? 0) > 0;
}

/** completeJob for several held jobs in one statement (those no longer held by their claims are left alone). */
export async function completeJobs(db: Kysely<DB>, jobs: readonly ClaimedJob[], now: Date, keep = true): Promise<void> {
  if (jobs.length === 0) return;
  const held = sql`unnest(${jobs.map((j) => j.tenant)}::uuid[], ${jobs.map((j) => j.job_id)}::uuid[], ${jobs.map((j) => j.token)}::uuid[]) as h(tenant, job_id, token)`;
  const match = sql`j.tenant = h.tenant and j.job_id = h.job_id and j.claim_token = h.token and j.status = 'running'`;
  await (keep
    ? sql`update jobs j set status = 'done', finished_at = ${now}::timestamptz, claim_token = null, locked_until = null, last_error = null from ${held} where ${match}`
    : sql`delete from jobs j using ${held} where ${match}`
  ).execute(db);
}

/**
 * Records a held job's failure: pending again at `retryAt`, or dead (null). False when the claim no
 * longer holds it (a stale outcome: ignored).
 */
export async function failJob(db: Kysely<DB>, job: ClaimedJob, outcome: { error: string; retryAt: Date | null; now: Date }): Promise<boolean> {
  const result = await sql`
    update jobs set status = ${outcome.retryAt ? 'pending' : 'dead'}, last_error = ${outcome.error},
      run_at = coalesce(${iso(outcome.retryAt)}::timestamptz, run_at),
      finished_at = ${outcome.retryAt ? null : iso(outcome.now)}::timestamptz, claim_token = null, locked_until = null
    where tenant = ${job.tenant}::uuid and job_id = ${job.job_id}::uuid and claim_token = ${job.token}::uuid and status = 'running'`.execute(db);
  return Number(result.numAffectedRows ?? 0) > 0;
}

/** Deletes up to `limit` jobs finished before `before` (dead ones stay for inspection). */
export async function purgeFinishedJobs(db: Kysely<DB>, before: Date, limit = 1000): Promise<number> {
  const result = await sql`
    delete from jobs where (tenant, job_id) in (
      select tenant, job_id from jobs where status = 'done' and finished_at < ${before}::timestamptz order by finished_at limit ${limit})`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}
