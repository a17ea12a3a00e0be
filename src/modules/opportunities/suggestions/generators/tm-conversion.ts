import type { Executor } from '../../../../platform/db/executor.ts';
import type { OpportunitySettings } from '../../opportunities.settings.ts';
import { tmSignals, type SignalScope, type TmSignal } from '../signals.repo.ts';
import { clip, dayOf, halfEven, quarterOf, yearsBefore, type SuggestionCandidate } from './common.ts';

/**
 * T&M conversion: a client whose hand-made (not contract-generated) invoices of the trailing twelve months
 * average at least `tm_threshold_cents` a month — per currency, never summed across currencies; the
 * average is the total over 12, half-even. One suggestion per client per quarter (`tm:<client>:<YYYY-Qn>`):
 * in the client's default currency when that one qualifies, else the first qualifying currency by code,
 * with every qualifying currency in the evidence.
 */
export async function tmConversionCandidates(db: Executor, scope: SignalScope, now: Date, settings: Pick<OpportunitySettings, 'tm_threshold_cents'>): Promise<SuggestionCandidate[]> {
  const today = dayOf(now);
  const after = yearsBefore(now, 1);
  const rows = await tmSignals(db, scope, after, today);
  const byClient = new Map<string, (TmSignal & { monthly_average_cents: number })[]>();
  for (const r of rows) {
    const monthly = halfEven(BigInt(r.total_cents), 12n);
    if (r.total_cents <= 0 || monthly < settings.tm_threshold_cents) continue;
    const list = byClient.get(r.client_id) ?? [];
    list.push({ ...r, monthly_average_cents: monthly });
    byClient.set(r.client_id, list);
  }
  const out: SuggestionCandidate[] = [];
  for (const list of byClient.values()) {
    const pick = list.find((r) => r.currency_code === r.default_currency_code) ?? list[0]!;
    out.push({
      generator_key: 'tm_conversion',
      client_id: pick.client_id,
      title: clip(`Convert ${pick.client_name}'s time-and-materials billing to a managed agreement`),
      evidence: {
        reason: `Time-and-materials invoices of the last 12 months average at least the threshold of ${settings.tm_threshold_cents} cents a month`,
        window: { issued_after: after, issued_until: today },
        threshold_cents: settings.tm_threshold_cents,
        currency_code: pick.currency_code,
        monthly_average_cents: pick.monthly_average_cents,
        total_cents: pick.total_cents,
        invoice_count: pick.invoice_count,
        by_currency: list.map((r) => ({ currency_code: r.currency_code, monthly_average_cents: r.monthly_average_cents, total_cents: r.total_cents, invoice_count: r.invoice_count })),
      },
      mrr_cents: pick.monthly_average_cents,
      nrr_cents: 0,
      currency_code: pick.currency_code,
      dedupe_key: `tm:${pick.client_id}:${quarterOf(now)}`,
    });
  }
  return out;
}
