import type { Executor } from '../../../../platform/db/executor.ts';
import type { OpportunitySettings } from '../../opportunities.settings.ts';
import { renewalSignals, type SignalScope } from '../signals.repo.ts';
import { clip, DAY_MS, dayOf, type SuggestionCandidate } from './common.ts';

/**
 * Renewal: an active client contract ending within the tenant's `renewal_lead_days` (today included).
 * One suggestion per assignment and end date (`renewal:<client_contract_id>:<end_date>`), so an extended
 * contract fires again for its new end date. MRR is the monthly value of its active fixed lines.
 */
export async function renewalCandidates(db: Executor, scope: SignalScope, now: Date, settings: Pick<OpportunitySettings, 'renewal_lead_days'>): Promise<SuggestionCandidate[]> {
  const today = dayOf(now);
  const until = dayOf(new Date(now.getTime() + settings.renewal_lead_days * DAY_MS));
  const rows = await renewalSignals(db, scope, today, until);
  return rows.map((r) => ({
    generator_key: 'renewal',
    client_id: r.client_id,
    title: clip(`Renew ${r.contract_name} (ends ${r.end_date})`),
    evidence: {
      reason: `The active contract ends on ${r.end_date}, within the renewal lead time of ${settings.renewal_lead_days} days`,
      client_contract_id: r.client_contract_id,
      contract_id: r.contract_id,
      contract_name: r.contract_name,
      end_date: r.end_date,
      days_until_end: Math.round((Date.parse(`${r.end_date}T00:00:00Z`) - Date.parse(`${today}T00:00:00Z`)) / DAY_MS),
      renewal_lead_days: settings.renewal_lead_days,
      mrr_cents: r.mrr_cents,
      fixed_line_count: r.fixed_line_count,
      currency_code: r.currency_code,
    },
    mrr_cents: r.mrr_cents,
    nrr_cents: 0,
    currency_code: r.currency_code,
    dedupe_key: `renewal:${r.client_contract_id}:${r.end_date}`,
  }));
}
