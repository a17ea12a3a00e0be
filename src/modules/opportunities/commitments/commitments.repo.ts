import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Executor } from '../../../platform/db/executor.ts';
import type { OpportunityCommitmentsTable, ResolutionStatus } from '../../../platform/db/schema.opportunities.ts';
import { defineList } from '../../../platform/http/list.ts';

export type CommitmentRow = Selectable<OpportunityCommitmentsTable>;

/**
 * How many of the deal's commitments are still open: the win flow refuses to close a deal while any is
 * (pass the transaction that holds the deal's lock, so a commitment made concurrently waits for it).
 */
export async function openCommitmentCount(db: Executor, tenant: string, opportunityId: string): Promise<number> {
  const row = await db
    .selectFrom('opportunity_commitments')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('tenant', '=', tenant)
    .where('opportunity_id', '=', opportunityId)
    .where('resolution_status', '=', 'open')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The commitment when it belongs to this deal (another deal's commitment is "not found" here). */
export async function findCommitment(db: Executor, tenant: string, opportunityId: string, commitmentId: string, lock = false): Promise<CommitmentRow | undefined> {
  let q = db
    .selectFrom('opportunity_commitments')
    .selectAll()
    .where('tenant', '=', tenant)
    .where('opportunity_id', '=', opportunityId)
    .where('commitment_id', '=', commitmentId);
  if (lock) q = q.forUpdate();
  return q.executeTakeFirst();
}

export async function insertCommitment(db: Executor, row: Insertable<OpportunityCommitmentsTable>): Promise<void> {
  await db.insertInto('opportunity_commitments').values(row).execute();
}

export async function updateCommitment(db: Executor, tenant: string, commitmentId: string, set: Updateable<OpportunityCommitmentsTable>): Promise<void> {
  await db.updateTable('opportunity_commitments').set(set).where('tenant', '=', tenant).where('commitment_id', '=', commitmentId).execute();
}

export async function deleteCommitment(db: Executor, tenant: string, commitmentId: string): Promise<void> {
  await db.deleteFrom('opportunity_commitments').where('tenant', '=', tenant).where('commitment_id', '=', commitmentId).execute();
}

export function commitmentList(db: Executor, tenant: string, opportunityId: string, f: { status?: ResolutionStatus }) {
  let from = db.selectFrom('opportunity_commitments as m').where('m.tenant', '=', tenant).where('m.opportunity_id', '=', opportunityId);
  if (f.status) from = from.where('m.resolution_status', '=', f.status);
  return defineList({
    from,
    page: from.selectAll('m'),
    sorts: { made_at: ['m.made_at'], updated_at: ['m.updated_at'] },
    defaultSort: 'made_at',
    defaultOrder: 'asc',
    tieBreaker: 'm.commitment_id',
    updatedAt: 'm.updated_at',
  });
}
