import type { Transaction } from 'kysely';
import { notifyAfterCommit } from '../db/executor.ts';
import type { DB } from '../db/schema.ts';
import { newId } from '../ids.ts';
import { JOBS_CHANNEL, SYSTEM_TENANT } from './types.ts';

export interface NewJob {
  name: string;
  payload?: Record<string, unknown>;
  /** Default SYSTEM_TENANT (work that belongs to no tenant). */
  tenant?: string;
  /** Not before this time (default now). */
  runAt?: Date;
  /** At most one job per (tenant, name, dedupeKey): a second enqueue with the same key adds nothing. */
  dedupeKey?: string;
}

/**
 * Queues a job inside the caller's transaction (the type demands one): it exists only if that
 * transaction commits. Returns the job id, or undefined when the dedupe key was already taken.
 */
export async function enqueue(trx: Transaction<DB>, job: NewJob): Promise<string | undefined> {
  const jobId = newId();
  const inserted = await trx
    .insertInto('jobs')
    .values({
      tenant: job.tenant ?? SYSTEM_TENANT,
      job_id: jobId,
      name: job.name,
      payload: JSON.stringify(job.payload ?? {}),
      run_at: job.runAt ?? new Date(),
      dedupe_key: job.dedupeKey ?? null,
    })
    .onConflict((oc) => oc.columns(['tenant', 'name', 'dedupe_key']).doNothing())
    .returning('job_id')
    .executeTakeFirst();
  if (inserted) notifyAfterCommit(trx, JOBS_CHANNEL);
  return inserted?.job_id;
}
