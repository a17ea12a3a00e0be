import type { Executor } from '../../../../platform/db/executor.ts';
import type { OpportunitySettings } from '../../opportunities.settings.ts';
import { assetAgingSignals, type SignalScope } from '../signals.repo.ts';
import { clip, yearsBefore, type SuggestionCandidate } from './common.ts';

/** The most asset ids one suggestion's evidence lists (the count is always complete). */
export const MAX_EVIDENCE_ASSETS = 100;

/**
 * Asset aging: a client's in-service assets bought (or, without a purchase date, out of warranty) at
 * least `asset_age_years` ago. One suggestion per client per calendar year (`asset_aging:<client>:<year>`),
 * in the client's default currency.
 */
export async function assetAgingCandidates(db: Executor, scope: SignalScope, now: Date, settings: Pick<OpportunitySettings, 'asset_age_years'>): Promise<SuggestionCandidate[]> {
  const cutoff = yearsBefore(now, settings.asset_age_years);
  const rows = await assetAgingSignals(db, scope, cutoff);
  const year = now.getUTCFullYear();
  return rows.map((r) => ({
    generator_key: 'asset_aging',
    client_id: r.client_id,
    title: clip(`Refresh ${r.assets.length} aging asset${r.assets.length === 1 ? '' : 's'} at ${r.client_name}`),
    evidence: {
      reason: `${r.assets.length} in-service asset${r.assets.length === 1 ? ' was' : 's were'} purchased (or left warranty) on or before ${cutoff}, ${settings.asset_age_years} years ago`,
      asset_age_years: settings.asset_age_years,
      cutoff_date: cutoff,
      year,
      asset_count: r.assets.length,
      oldest_date: r.assets[0]!.since,
      asset_ids: r.assets.slice(0, MAX_EVIDENCE_ASSETS).map((a) => a.asset_id),
      assets: r.assets.slice(0, MAX_EVIDENCE_ASSETS).map((a) => ({ asset_id: a.asset_id, asset_tag: a.asset_tag, name: a.name, since: a.since })),
    },
    mrr_cents: 0,
    nrr_cents: 0,
    currency_code: r.default_currency_code,
    dedupe_key: `asset_aging:${r.client_id}:${year}`,
  }));
}
