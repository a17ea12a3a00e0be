import type { Transaction } from 'kysely';
import type { DB } from '../../platform/db/schema.ts';
import { emit } from '../../platform/events/outbox.ts';
import { announced } from '../../platform/events/vocabulary.ts';

/** The pipeline as events (announced: listed for webhooks; payloads carry ids and what changed). */
export const OPPORTUNITY_EVENT_TYPES = announced('opportunity', [
  ['opportunity.created', 'An opportunity was created'],
  ['opportunity.updated', "An opportunity's fields, value or next action changed"],
  ['opportunity.stage_changed', "An opportunity's derived stage changed"],
  ['opportunity.won', 'An opportunity was won'],
  ['opportunity.lost', 'An opportunity was lost'],
  ['opportunity.deleted', 'An open opportunity was deleted'],
]);

export const INTERACTION_EVENT_TYPES = announced('interaction', [
  ['interaction.created', 'An interaction (call, e-mail, meeting, note) was logged'],
  ['interaction.updated', 'An interaction changed'],
  ['interaction.deleted', 'An interaction was deleted'],
]);

export type OpportunityChange = 'created' | 'updated' | 'stage_changed' | 'won' | 'lost' | 'deleted';

export function emitOpportunityEvent(trx: Transaction<DB>, tenant: string, change: OpportunityChange, id: string, extra: Record<string, unknown> = {}): Promise<string> {
  return emit(trx, { tenant, event_type: `opportunity.${change}`, aggregate_type: 'opportunity', aggregate_id: id, payload: { opportunity_id: id, ...extra } });
}

export function emitInteractionEvent(trx: Transaction<DB>, tenant: string, change: 'created' | 'updated' | 'deleted', id: string, extra: Record<string, unknown> = {}): Promise<string> {
  return emit(trx, { tenant, event_type: `interaction.${change}`, aggregate_type: 'interaction', aggregate_id: id, payload: { interaction_id: id, ...extra } });
}
