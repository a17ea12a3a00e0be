import type { Transaction } from 'kysely';
import type { InteractionType } from '../../../platform/db/schema.opportunities.ts';
import type { DB } from '../../../platform/db/schema.ts';
import { newId } from '../../../platform/ids.ts';
import { syncSearch } from '../../../platform/search/writer.ts';
import { emitInteractionEvent } from '../opportunities.events.ts';

export interface InteractionInput {
  client_id: string;
  contact_id: string | null;
  opportunity_id: string | null;
  interaction_type: InteractionType;
  title: string;
  notes: string | null;
  interaction_date: Date;
  duration_minutes: number | null;
  user_id: string | null;
}

/**
 * Writes an interaction inside the caller's transaction (references already checked), indexes it for
 * search, restarts its deal's activity clock and emits interaction.created. The one way an interaction is created: the REST endpoint and
 * an opportunity's completed action both come here.
 */
export async function insertInteractionIn(trx: Transaction<DB>, tenant: string, createdBy: string | null, input: InteractionInput): Promise<string> {
  const id = newId();
  const now = new Date();
  await trx.insertInto('interactions').values({ tenant, interaction_id: id, ...input, created_by: createdBy, created_at: now, updated_at: now }).execute();
  // Talking to the client is activity on the deal: its stalled clock restarts.
  if (input.opportunity_id !== null) {
    await trx.updateTable('opportunities').set({ last_activity_at: now }).where('tenant', '=', tenant).where('opportunity_id', '=', input.opportunity_id).where('last_activity_at', '<', now).execute();
  }
  await syncSearch(trx, tenant, 'interaction', [id]);
  await emitInteractionEvent(trx, tenant, 'created', id, { client_id: input.client_id, opportunity_id: input.opportunity_id, interaction_type: input.interaction_type });
  return id;
}
