import type { Transaction } from 'kysely';
import type { Actor } from '../../platform/auth/context.ts';
import type { Confidence, GeneratorKey, OpportunityType } from '../../platform/db/schema.opportunities.ts';
import type { DB } from '../../platform/db/schema.ts';
import { unprocessable } from '../../platform/http/errors.ts';
import { requiredText } from '../../platform/http/text.ts';
import { newId } from '../../platform/ids.ts';
import { syncSearch } from '../../platform/search/writer.ts';
import { currencyCode } from '../billing/index.ts';
import { insertInteractionIn } from './interactions/interactions.writes.ts';
import { emitOpportunityEvent } from './opportunities.events.ts';
import { clientRef, contactOfClient, internalUser } from './opportunities.refs.ts';
import { takeOpportunityNumber } from './opportunities.settings.ts';

export interface OpportunityInput {
  client_id: string;
  title: string;
  opportunity_type: OpportunityType;
  currency_code: string;
  next_action: string;
  /** ISO 8601 date-time. */
  next_action_due: string;
  contact_id?: string | null;
  owner_id?: string | null;
  confidence?: Confidence;
  mrr_cents?: number;
  nrr_cents?: number;
  hardware_cents?: number;
  expected_close_date?: string | null;
  generator_key?: GeneratorKey | null;
  generator_context?: Record<string, unknown> | null;
  suggestion_id?: string | null;
}

/** A next action's text and due time, checked (a blank action or an unparsable time is a 400 naming the field). */
export function nextActionOf(action: string, due: string, path = 'body'): { title: string; due: Date } {
  const title = requiredText(action, `${path}.next_action`);
  if (title.length > 300) throw unprocessable(`${path}.next_action is longer than 300 characters`);
  return { title, due: new Date(due) };
}

/**
 * Creates an open opportunity with its first current step inside the caller's transaction: numbered
 * from the tenant's sequence, stage identified, owned by `owner_id` (default: the actor). Every path that
 * creates a deal (the endpoint, an accepted suggestion, a QBR trigger) comes here, so the invariant and
 * the event hold for all of them. Returns the new id.
 */
export async function createOpportunityIn(trx: Transaction<DB>, actor: Actor, input: OpportunityInput, path = 'body'): Promise<string> {
  const { tenant } = actor;
  const title = requiredText(input.title, `${path}.title`);
  const client = await clientRef(trx, actor, input.client_id, `${path}.client_id`);
  if (input.contact_id) await contactOfClient(trx, tenant, input.contact_id, client.client_id, `${path}.contact_id`);
  const ownerId = input.owner_id ?? (actor.userType === 'client' ? null : actor.userId);
  if (input.owner_id) await internalUser(trx, tenant, input.owner_id, `${path}.owner_id`);
  const next = nextActionOf(input.next_action, input.next_action_due, path);
  const id = newId();
  const stepId = newId();
  const now = new Date();
  const number = await takeOpportunityNumber(trx, tenant);
  await trx
    .insertInto('opportunities')
    .values({
      tenant,
      opportunity_id: id,
      opportunity_number: number,
      client_id: client.client_id,
      contact_id: input.contact_id ?? null,
      title,
      opportunity_type: input.opportunity_type,
      owner_id: ownerId,
      confidence: input.confidence ?? 'medium',
      mrr_cents: input.mrr_cents ?? 0,
      nrr_cents: input.nrr_cents ?? 0,
      hardware_cents: input.hardware_cents ?? 0,
      currency_code: currencyCode(input.currency_code, `${path}.currency_code`),
      expected_close_date: input.expected_close_date ?? null,
      current_step_id: stepId,
      next_action: next.title,
      next_action_due: next.due,
      last_activity_at: now,
      generator_key: input.generator_key ?? null,
      generator_context: input.generator_context === undefined || input.generator_context === null ? null : JSON.stringify(input.generator_context),
      suggestion_id: input.suggestion_id ?? null,
      created_by: actor.userId,
      created_at: now,
      updated_at: now,
    })
    .execute();
  await insertStep(trx, tenant, id, stepId, next, 1, actor.userId);
  await syncSearch(trx, tenant, 'opportunity', [id]);
  await emitOpportunityEvent(trx, tenant, 'created', id, { opportunity_number: number, client_id: client.client_id, opportunity_type: input.opportunity_type, owner_id: ownerId, currency_code: input.currency_code.toUpperCase() });
  return id;
}

async function insertStep(trx: Transaction<DB>, tenant: string, opportunityId: string, stepId: string, next: { title: string; due: Date }, order: number, by: string | null): Promise<void> {
  await trx
    .insertInto('opportunity_steps')
    .values({ tenant, step_id: stepId, opportunity_id: opportunityId, title: next.title, due_at: next.due, status: 'current', sort_order: order, created_by: by })
    .execute();
}

export interface CompletedAction {
  completedStepId: string;
  interactionId: string;
  nextStepId: string;
}

/**
 * Finishes the deal's current step and installs its replacement in the caller's transaction (the deal row
 * must be locked by the caller): the finished action is logged as an interaction on the deal's client and
 * contact, the step is marked done, a new current step is written and mirrored onto the deal, and the
 * deal's activity clock restarts. The schema refuses any state with no current step or two.
 */
export async function completeCurrentStep(
  trx: Transaction<DB>,
  actor: Actor,
  opp: { opportunity_id: string; client_id: string; contact_id: string | null; current_step_id: string },
  next: { title: string; due: Date },
): Promise<CompletedAction> {
  const { tenant } = actor;
  const now = new Date();
  const step = await trx
    .selectFrom('opportunity_steps')
    .select(['step_id', 'title'])
    .where('tenant', '=', tenant)
    .where('step_id', '=', opp.current_step_id)
    .executeTakeFirstOrThrow();
  const userId = actor.userType === 'client' ? null : actor.userId;
  const interactionId = await insertInteractionIn(trx, tenant, actor.userId, {
    client_id: opp.client_id,
    contact_id: opp.contact_id,
    opportunity_id: opp.opportunity_id,
    interaction_type: 'note',
    title: step.title,
    notes: `Completed next action: ${step.title}`,
    interaction_date: now,
    duration_minutes: null,
    user_id: userId,
  });
  await trx
    .updateTable('opportunity_steps')
    .set({ status: 'done', completed_at: now, completed_by: actor.userId, interaction_id: interactionId, updated_at: now })
    .where('tenant', '=', tenant)
    .where('step_id', '=', step.step_id)
    .execute();
  const max = await trx
    .selectFrom('opportunity_steps')
    .select((eb) => eb.fn.max('sort_order').as('max'))
    .where('tenant', '=', tenant)
    .where('opportunity_id', '=', opp.opportunity_id)
    .executeTakeFirst();
  const nextStepId = newId();
  await insertStep(trx, tenant, opp.opportunity_id, nextStepId, next, Number(max?.max ?? 0) + 1, actor.userId);
  await trx
    .updateTable('opportunities')
    .set({ current_step_id: nextStepId, next_action: next.title, next_action_due: next.due, last_activity_at: now, updated_at: now })
    .where('tenant', '=', tenant)
    .where('opportunity_id', '=', opp.opportunity_id)
    .execute();
  return { completedStepId: step.step_id, interactionId, nextStepId };
}

/** Closing a deal leaves no next action: its current step is skipped and the mirror cleared with the status change. */
export async function skipCurrentStep(trx: Transaction<DB>, tenant: string, currentStepId: string): Promise<void> {
  await trx.updateTable('opportunity_steps').set({ status: 'skipped', updated_at: new Date() }).where('tenant', '=', tenant).where('step_id', '=', currentStepId).execute();
}

/** Restarts the deal's activity clock (a stalled deal is one nobody touched for nudge_days). */
export async function touchActivity(trx: Transaction<DB>, tenant: string, id: string): Promise<void> {
  const now = new Date();
  await trx.updateTable('opportunities').set({ last_activity_at: now, updated_at: now }).where('tenant', '=', tenant).where('opportunity_id', '=', id).execute();
}
