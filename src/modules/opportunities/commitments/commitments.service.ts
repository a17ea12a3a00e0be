import type { Kysely, Transaction } from 'kysely';
import type { Actor } from '../../../platform/auth/context.ts';
import { withTransaction } from '../../../platform/db/executor.ts';
import type { ResolutionStatus } from '../../../platform/db/schema.opportunities.ts';
import type { DB } from '../../../platform/db/schema.ts';
import { notFound, unprocessable } from '../../../platform/http/errors.ts';
import { listPage, type ListPage } from '../../../platform/http/list.ts';
import { requiredText } from '../../../platform/http/text.ts';
import { newId } from '../../../platform/ids.ts';
import { iso } from '../../../platform/time.ts';
import { assertOpen, requireOpportunity } from '../opportunities.access.ts';
import { commitmentList, deleteCommitment, findCommitment, insertCommitment, updateCommitment, type CommitmentRow } from './commitments.repo.ts';
import { LINKED_RESOLUTIONS, type Commitment, type CreateCommitmentBody, type ListCommitmentsQuery, type UpdateCommitmentBody } from './commitments.schemas.ts';

export function toCommitment(r: CommitmentRow): Commitment {
  return {
    commitment_id: r.commitment_id,
    opportunity_id: r.opportunity_id,
    description: r.description,
    made_by: r.made_by,
    made_at: iso(r.made_at),
    resolution_status: r.resolution_status,
    resolution_ref_id: r.resolution_ref_id,
    resolved_by: r.resolved_by,
    resolved_at: iso(r.resolved_at),
    created_at: iso(r.created_at),
    updated_at: iso(r.updated_at),
  };
}

const isLinked = (s: ResolutionStatus): boolean => (LINKED_RESOLUTIONS as readonly string[]).includes(s);

/**
 * The rule between a resolution and its reference: quote_line, agreement_line and project_task name the
 * record that honours the promise; open and declined name none. A breach is a 422 naming the rule.
 */
function assertResolution(status: ResolutionStatus, refId: string | null): void {
  if (isLinked(status) && refId === null) {
    throw unprocessable(`A commitment resolved as ${status} requires resolution_ref_id (the record that honours it)`, { resolution_status: status });
  }
  if (!isLinked(status) && refId !== null) {
    throw unprocessable(`A commitment that is ${status} takes no resolution_ref_id (only quote_line, agreement_line and project_task do)`, { resolution_status: status });
  }
}

export function createCommitmentsService(deps: { db: Kysely<DB> }) {
  const { db } = deps;

  /** The deal (404 when unknown or not visible) and, for writes, held FOR UPDATE and required open (409). */
  async function commitmentOf(trx: Transaction<DB>, actor: Actor, opportunityId: string, commitmentId: string) {
    const opp = await requireOpportunity(trx, actor, opportunityId, true);
    const row = await findCommitment(trx, actor.tenant, opportunityId, commitmentId, true);
    if (!row) throw notFound('Commitment', commitmentId);
    assertOpen(opp, 'change commitments');
    return row;
  }

  return {
    async list(actor: Actor, opportunityId: string, query: ListCommitmentsQuery): Promise<ListPage<Commitment>> {
      await requireOpportunity(db, actor, opportunityId);
      return listPage(query, commitmentList(db, actor.tenant, opportunityId, { status: query.resolution_status }), (rows) => rows.map(toCommitment));
    },

    async create(actor: Actor, opportunityId: string, body: CreateCommitmentBody): Promise<Commitment> {
      const description = requiredText(body.description, 'body.description');
      return withTransaction(db, async (trx) => {
        const opp = await requireOpportunity(trx, actor, opportunityId, true);
        assertOpen(opp, 'take new commitments');
        const id = newId();
        const now = new Date();
        await insertCommitment(trx, {
          tenant: actor.tenant,
          commitment_id: id,
          opportunity_id: opportunityId,
          description,
          made_by: actor.userId,
          made_at: now,
          resolution_status: 'open',
          created_at: now,
          updated_at: now,
        });
        return toCommitment((await findCommitment(trx, actor.tenant, opportunityId, id))!);
      });
    },

    async update(actor: Actor, opportunityId: string, commitmentId: string, body: UpdateCommitmentBody): Promise<Commitment> {
      const description = body.description === undefined ? undefined : requiredText(body.description, 'body.description');
      return withTransaction(db, async (trx) => {
        const row = await commitmentOf(trx, actor, opportunityId, commitmentId);
        const statusChanges = body.resolution_status !== undefined && body.resolution_status !== row.resolution_status;
        const status = body.resolution_status ?? row.resolution_status;
        // A new resolution names its own record: the old reference never carries over to another status.
        const refId = body.resolution_ref_id !== undefined ? body.resolution_ref_id : statusChanges ? null : row.resolution_ref_id;
        assertResolution(status, refId);
        const now = new Date();
        const stamps =
          status === 'open'
            ? { resolved_by: null, resolved_at: null }
            : statusChanges || row.resolved_at === null
              ? { resolved_by: actor.userId, resolved_at: now }
              : {};
        await updateCommitment(trx, actor.tenant, commitmentId, {
          ...(description === undefined ? {} : { description }),
          resolution_status: status,
          resolution_ref_id: refId,
          ...stamps,
          updated_at: now,
        });
        return toCommitment((await findCommitment(trx, actor.tenant, opportunityId, commitmentId))!);
      });
    },

    async remove(actor: Actor, opportunityId: string, commitmentId: string): Promise<void> {
      await withTransaction(db, async (trx) => {
        await commitmentOf(trx, actor, opportunityId, commitmentId);
        await deleteCommitment(trx, actor.tenant, commitmentId);
      });
    },
  };
}

export type CommitmentsService = ReturnType<typeof createCommitmentsService>;
