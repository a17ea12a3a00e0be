import type { Executor } from '../../../platform/db/executor.ts';
import type { GeneratorKey, OpportunityType, QbrTriggerKind } from '../../../platform/db/schema.opportunities.ts';
import type { OpportunitySettings } from '../opportunities.settings.ts';
import { assetAgingCandidates } from '../suggestions/generators/asset-aging.ts';
import { DAY_MS, QBR_GENERATOR_KEY, QBR_NEXT_ACTION, QBR_OPPORTUNITY_TYPE, quarterOf, type SuggestionCandidate } from '../suggestions/generators/common.ts';
import { renewalCandidates } from '../suggestions/generators/renewal.ts';
import { whitespaceCandidates } from '../suggestions/generators/whitespace.ts';
import { ticketTrendSignals, type SignalScope } from '../suggestions/signals.repo.ts';

/** One thing worth raising at a client's quarterly business review, with the deal it would become. */
export interface QbrTrigger {
  trigger_key: string;
  client_id: string;
  kind: QbrTriggerKind;
  title: string;
  evidence: Record<string, unknown>;
  opportunity_type: OpportunityType;
  generator_key: GeneratorKey | null;
  mrr_cents: number;
  nrr_cents: number;
  currency_code: string;
  default_next_action: string;
}

/** The window a ticket trend compares: the last 90 days against the 90 before. */
export const TICKET_TREND_DAYS = 90;

function fromCandidate(kind: QbrTriggerKind, c: SuggestionCandidate): QbrTrigger {
  return {
    trigger_key: c.dedupe_key,
    client_id: c.client_id,
    kind,
    title: c.title,
    evidence: c.evidence,
    opportunity_type: QBR_OPPORTUNITY_TYPE[kind],
    generator_key: QBR_GENERATOR_KEY[kind],
    mrr_cents: c.mrr_cents,
    nrr_cents: c.nrr_cents,
    currency_code: c.currency_code,
    default_next_action: QBR_NEXT_ACTION[kind],
  };
}

/** Clients opening more tickets in the last 90 days than in the 90 before (`ticket_trend:<client>:<YYYY-Qn>`). */
async function ticketTrendTriggers(db: Executor, scope: SignalScope, now: Date): Promise<QbrTrigger[]> {
  const split = new Date(now.getTime() - TICKET_TREND_DAYS * DAY_MS);
  const since = new Date(now.getTime() - 2 * TICKET_TREND_DAYS * DAY_MS);
  const rows = await ticketTrendSignals(db, scope, since, split, now);
  return rows
    .filter((r) => r.recent_count > r.prior_count)
    .map((r) => ({
      trigger_key: `ticket_trend:${r.client_id}:${quarterOf(now)}`,
      client_id: r.client_id,
      kind: 'ticket_trend' as const,
      title: `Support-volume review: ${r.recent_count} tickets in the last ${TICKET_TREND_DAYS} days, up from ${r.prior_count}`,
      evidence: {
        reason: `More tickets were opened in the last ${TICKET_TREND_DAYS} days than in the ${TICKET_TREND_DAYS} days before`,
        recent_count: r.recent_count,
        prior_count: r.prior_count,
        recent_window: { from: split.toISOString(), until: now.toISOString() },
        prior_window: { from: since.toISOString(), until: split.toISOString() },
      },
      opportunity_type: QBR_OPPORTUNITY_TYPE.ticket_trend,
      generator_key: QBR_GENERATOR_KEY.ticket_trend,
      mrr_cents: 0,
      nrr_cents: 0,
      currency_code: r.default_currency_code,
      default_next_action: QBR_NEXT_ACTION.ticket_trend,
    }));
}

/**
 * The QBR triggers firing at `now`, computed live from the same signal queries the suggestion generators
 * use (renewals within renewal_lead_days, asset aging, whitespace) plus the ticket trend. Reads only.
 * Ordered by kind (renewal, asset_aging, ticket_trend, whitespace), then key.
 */
export async function qbrTriggers(db: Executor, scope: SignalScope, now: Date, settings: OpportunitySettings): Promise<QbrTrigger[]> {
  const [renewals, aging, trend, gaps] = [
    await renewalCandidates(db, scope, now, settings),
    await assetAgingCandidates(db, scope, now, settings),
    await ticketTrendTriggers(db, scope, now),
    await whitespaceCandidates(db, scope, now),
  ];
  const sortByKey = (a: QbrTrigger, b: QbrTrigger) => (a.trigger_key < b.trigger_key ? -1 : a.trigger_key > b.trigger_key ? 1 : 0);
  return [
    ...renewals.map((c) => fromCandidate('renewal', c)).sort(sortByKey),
    ...aging.map((c) => fromCandidate('asset_aging', c)).sort(sortByKey),
    ...trend.sort(sortByKey),
    ...gaps.map((c) => fromCandidate('whitespace', c)).sort(sortByKey),
  ];
}

/**
 * Records triggers as fired (no opportunity yet), keeping the first firing time of a key: the QBR yield
 * counts triggers that fired even when nobody acted. Returns how many were new.
 */
export async function recordQbrTriggers(db: Executor, tenant: string, triggers: readonly QbrTrigger[], now: Date): Promise<number> {
  let recorded = 0;
  for (let i = 0; i < triggers.length; i += 500) {
    const rows = await db
      .insertInto('opportunity_qbr_triggers')
      .values(triggers.slice(i, i + 500).map((t) => ({ tenant, trigger_key: t.trigger_key, client_id: t.client_id, kind: t.kind, fired_at: now })))
      .onConflict((oc) => oc.columns(['tenant', 'trigger_key']).doNothing())
      .returning('trigger_key')
      .execute();
    recorded += rows.length;
  }
  return recorded;
}
