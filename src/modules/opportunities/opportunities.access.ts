import type { Selectable } from 'kysely';
import type { Actor } from '../../platform/auth/context.ts';
import type { Executor } from '../../platform/db/executor.ts';
import type { OpportunitiesTable } from '../../platform/db/schema.opportunities.ts';
import { conflict, notFound } from '../../platform/http/errors.ts';
import { canSeeClient } from '../clients/index.ts';

export type OpportunityRow = Selectable<OpportunitiesTable>;

/** The deal, or 404 (another tenant's, or a client the actor may not see). `lock` holds it FOR UPDATE. */
export async function requireOpportunity(db: Executor, actor: Actor, id: string, lock = false): Promise<OpportunityRow> {
  let q = db.selectFrom('opportunities').selectAll().where('tenant', '=', actor.tenant).where('opportunity_id', '=', id);
  if (lock) q = q.forUpdate();
  const row = await q.executeTakeFirst();
  if (!row || !canSeeClient(actor, row.client_id)) throw notFound('Opportunity', id);
  return row;
}

/** An operation only an open deal allows: a won or lost one is a 409 naming its status and the rule. */
export function assertOpen(row: Pick<OpportunityRow, 'opportunity_number' | 'status'>, what: string): asserts row is OpportunityRow & { current_step_id: string } {
  if (row.status !== 'open') {
    throw conflict(`Opportunity ${row.opportunity_number} is ${row.status}; only open opportunities can ${what}`, { status: row.status });
  }
}
