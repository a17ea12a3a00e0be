import type { Executor } from '../../../../platform/db/executor.ts';
import { opportunitySettingsOf, type OpportunitySettings } from '../../opportunities.settings.ts';
import type { SignalScope } from '../signals.repo.ts';
import { insertSuggestions } from '../suggestions.repo.ts';
import { assetAgingCandidates } from './asset-aging.ts';
import type { SuggestionCandidate } from './common.ts';
import { renewalCandidates } from './renewal.ts';
import { tmConversionCandidates } from './tm-conversion.ts';
import { whitespaceCandidates } from './whitespace.ts';

export type ScheduledGenerator = 'renewal' | 'tm_conversion' | 'whitespace' | 'asset_aging';

type Generator = (db: Executor, scope: SignalScope, now: Date, settings: OpportunitySettings) => Promise<SuggestionCandidate[]>;

/** The generators the schedule runs (inbound leads arrive as they come, not from a scan). */
export const GENERATORS: Record<ScheduledGenerator, Generator> = {
  renewal: renewalCandidates,
  tm_conversion: tmConversionCandidates,
  whitespace: (db, scope, now) => whitespaceCandidates(db, scope, now),
  asset_aging: assetAgingCandidates,
};

export interface GenerationResult {
  created: number;
  by_generator: Record<ScheduledGenerator, number>;
}

/**
 * Runs the four generators for one tenant at `now` and stores what they found. Idempotent: a dedupe key
 * the tenant already has — pending, snoozed, accepted or dismissed — is skipped, so re-running creates
 * nothing and a dismissed suggestion never refires.
 */
export async function runSuggestionGenerators(db: Executor, tenant: string, now: Date): Promise<GenerationResult> {
  const settings = await opportunitySettingsOf(db, tenant);
  const scope = { tenant };
  const candidates: SuggestionCandidate[] = [];
  for (const generate of Object.values(GENERATORS)) candidates.push(...(await generate(db, scope, now, settings)));
  const created = await insertSuggestions(db, tenant, candidates, now);
  const by_generator: Record<ScheduledGenerator, number> = { renewal: 0, tm_conversion: 0, whitespace: 0, asset_aging: 0 };
  for (const key of created) if (key in by_generator) by_generator[key as ScheduledGenerator] += 1;
  return { created: created.length, by_generator };
}
