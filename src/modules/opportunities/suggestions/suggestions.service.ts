import type { Kysely } from 'kysely';
import type { Actor } from '../../../platform/auth/context.ts';
import { withTransaction, type Executor } from '../../../platform/db/executor.ts';
import type { DB } from '../../../platform/db/schema.ts';
import { conflict, notFound, validation } from '../../../platform/http/errors.ts';
import { emptyPage, listPage } from '../../../platform/http/list.ts';
import { iso } from '../../../platform/time.ts';
import { canSeeClient, portalClientId } from '../../clients/index.ts';
import type { Opportunity } from '../opportunities.schemas.ts';
import { loadOpportunity } from '../opportunities.service.ts';
import { createOpportunityIn } from '../opportunities.writes.ts';
import { DAY_MS, DEFAULT_NEXT_ACTION, NEXT_ACTION_DUE_DAYS, OPPORTUNITY_TYPE_OF } from './generators/common.ts';
import { findSuggestion, jsonObject, setSuggestionStatus, suggestionList, type SuggestionRow } from './suggestions.repo.ts';
import { runTenantGeneration, type TenantGeneration } from './suggestions.schedule.ts';
import type { AcceptSuggestionBody, ListSuggestionsQuery, SnoozeSuggestionBody, Suggestion } from './suggestions.schemas.ts';

/** The status a caller sees: a snooze whose end has passed is pending again. */
function effectiveStatus(r: Pick<SuggestionRow, 'status' | 'snoozed_until'>, now: Date): SuggestionRow['status'] {
  return r.status === 'snoozed' && r.snoozed_until !== null && r.snoozed_until.getTime() <= now.getTime() ? 'pending' : r.status;
}

export function toSuggestion(r: SuggestionRow, now: Date): Suggestion {
  return {
    suggestion_id: r.suggestion_id,
    generator_key: r.generator_key,
    client_id: r.client_id,
    client_name: r.client_name,
    title: r.title,
    evidence: jsonObject(r.evidence),
    mrr_cents: Number(r.mrr_cents),
    nrr_cents: Number(r.nrr_cents),
    currency_code: r.currency_code,
    status: effectiveStatus(r, now),
    snoozed_until: iso(r.snoozed_until),
    dedupe_key: r.dedupe_key,
    created_opportunity_id: r.created_opportunity_id,
    created_at: iso(r.created_at),
    updated_at: iso(r.updated_at),
  };
}

/** The suggestion, or 404 (another tenant's, or a client the actor may not see). */
async function requireSuggestion(db: Executor, actor: Actor, id: string, lock = false): Promise<SuggestionRow> {
  const row = await findSuggestion(db, actor.tenant, id, lock);
  if (!row || !canSeeClient(actor, row.client_id)) throw notFound('Suggestion', id);
  return row;
}

/** Accepted and dismissed are final: acting on them again is a 409 naming the status. */
function assertActionable(r: SuggestionRow, what: string): void {
  if (r.status === 'accepted') {
    throw conflict(`Suggestion '${r.title}' is already accepted (opportunity ${r.created_opportunity_id ?? 'deleted'}); it cannot be ${what}`, { status: r.status, created_opportunity_id: r.created_opportunity_id });
  }
  if (r.status === 'dismissed') throw conflict(`Suggestion '${r.title}' was dismissed; a dismissed suggestion is final and cannot be ${what}`, { status: r.status });
}

/**
 * Suggestions: deals the generators propose (renewals coming up, T&M spend worth a managed agreement,
 * service whitespace, aging assets). A seller accepts one (it becomes a prefilled opportunity), dismisses
 * it for good, or snoozes it until a date. `now` is injectable so tests can move the clock.
 */
export function createSuggestionsService(deps: { db: Kysely<DB>; now?: () => Date }) {
  const { db } = deps;
  const now = deps.now ?? (() => new Date());

  return {
    list(actor: Actor, query: ListSuggestionsQuery) {
      const only = portalClientId(actor);
      if (only !== undefined && query.client_id !== undefined && query.client_id !== only) return emptyPage(query);
      const at = now();
      const spec = suggestionList(db, actor.tenant, { status: query.status ?? 'pending', now: at, clientId: only ?? query.client_id, generatorKey: query.generator_key });
      return listPage(query, spec, (rows) => rows.map((r) => toSuggestion(r, at)));
    },

    /**
     * Creates the suggested opportunity and marks the suggestion accepted in one transaction; the
     * suggestion row is locked first, so two concurrent accepts make one deal (the second is a 409).
     */
    async accept(actor: Actor, id: string, body: AcceptSuggestionBody): Promise<Opportunity> {
      const at = now();
      const opportunityId = await withTransaction(db, async (trx) => {
        const s = await requireSuggestion(trx, actor, id, true);
        assertActionable(s, 'accepted');
        const created = await createOpportunityIn(trx, actor, {
          client_id: s.client_id,
          title: body.title ?? s.title,
          opportunity_type: OPPORTUNITY_TYPE_OF[s.generator_key],
          currency_code: body.currency_code ?? s.currency_code,
          next_action: body.next_action ?? DEFAULT_NEXT_ACTION[s.generator_key],
          next_action_due: body.next_action_due ?? new Date(at.getTime() + NEXT_ACTION_DUE_DAYS * DAY_MS).toISOString(),
          contact_id: body.contact_id ?? null,
          owner_id: body.owner_id,
          confidence: 'medium',
          mrr_cents: body.mrr_cents ?? Number(s.mrr_cents),
          nrr_cents: body.nrr_cents ?? Number(s.nrr_cents),
          hardware_cents: body.hardware_cents ?? 0,
          expected_close_date: body.expected_close_date ?? null,
          generator_key: s.generator_key,
          generator_context: jsonObject(s.evidence),
          suggestion_id: s.suggestion_id,
        });
        await setSuggestionStatus(trx, actor.tenant, id, { status: 'accepted', snoozed_until: null, created_opportunity_id: created, updated_at: at });
        return created;
      });
      return loadOpportunity(db, actor, opportunityId);
    },

    /** Dismissed for good: the dedupe key stays, so the generators never propose it again. Dismissing twice is a no-op. */
    async dismiss(actor: Actor, id: string): Promise<Suggestion> {
      const at = now();
      await withTransaction(db, async (trx) => {
        const s = await requireSuggestion(trx, actor, id, true);
        if (s.status === 'dismissed') return;
        assertActionable(s, 'dismissed');
        await setSuggestionStatus(trx, actor.tenant, id, { status: 'dismissed', snoozed_until: null, updated_at: at });
      });
      return toSuggestion((await findSuggestion(db, actor.tenant, id))!, at);
    },

    /** Hidden from the pending list until `snoozed_until` (which must be in the future), then pending again. */
    async snooze(actor: Actor, id: string, body: SnoozeSuggestionBody): Promise<Suggestion> {
      const at = now();
      const until = new Date(body.snoozed_until);
      if (Number.isNaN(until.getTime())) throw validation('body.snoozed_until', 'is not a valid date-time');
      if (until.getTime() <= at.getTime()) throw validation('body.snoozed_until', `must be in the future (now is ${at.toISOString()})`);
      await withTransaction(db, async (trx) => {
        const s = await requireSuggestion(trx, actor, id, true);
        assertActionable(s, 'snoozed');
        await setSuggestionStatus(trx, actor.tenant, id, { status: 'snoozed', snoozed_until: until, updated_at: at });
      });
      return toSuggestion((await findSuggestion(db, actor.tenant, id))!, at);
    },

    /** Runs the generators (and records the QBR triggers firing) for the caller's tenant now, as the hourly schedule does. */
    generate(actor: Actor): Promise<TenantGeneration> {
      return runTenantGeneration(db, actor.tenant, now());
    },
  };
}

export type SuggestionsService = ReturnType<typeof createSuggestionsService>;
