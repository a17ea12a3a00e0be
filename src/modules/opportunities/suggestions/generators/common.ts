import type { GeneratorKey, OpportunityType, QbrTriggerKind } from '../../../../platform/db/schema.opportunities.ts';

/** What a generator proposes: one suggestion row, keyed so that re-running (or a dismissal) never repeats it. */
export interface SuggestionCandidate {
  generator_key: GeneratorKey;
  client_id: string;
  title: string;
  /** What fired and why (stored as the suggestion's evidence, copied into the deal's generator_context). */
  evidence: Record<string, unknown>;
  mrr_cents: number;
  nrr_cents: number;
  currency_code: string;
  /** Stable per tenant and subject: `renewal:<client_contract_id>:<end_date>`, `tm:<client>:<YYYY-Qn>`… */
  dedupe_key: string;
}

/** The deal an accepted suggestion (or an acted-on QBR trigger) becomes. */
export const OPPORTUNITY_TYPE_OF: Record<GeneratorKey, OpportunityType> = {
  renewal: 'renewal',
  tm_conversion: 'expansion',
  whitespace: 'expansion',
  asset_aging: 'project',
  'inbound-lead': 'new_logo',
};

export const DEFAULT_NEXT_ACTION: Record<GeneratorKey, string> = {
  renewal: 'Start the renewal conversation',
  tm_conversion: 'Review the T&M comparison with the client',
  whitespace: 'Discuss the missing service category',
  asset_aging: 'Scope the asset refresh',
  'inbound-lead': 'Follow up on the inbound enquiry',
};

export const QBR_OPPORTUNITY_TYPE: Record<QbrTriggerKind, OpportunityType> = {
  renewal: 'renewal',
  asset_aging: 'project',
  ticket_trend: 'expansion',
  whitespace: 'expansion',
};

export const QBR_NEXT_ACTION: Record<QbrTriggerKind, string> = {
  renewal: DEFAULT_NEXT_ACTION.renewal,
  asset_aging: DEFAULT_NEXT_ACTION.asset_aging,
  whitespace: DEFAULT_NEXT_ACTION.whitespace,
  ticket_trend: 'Hold a support-volume review with the client',
};

/** The generator a QBR trigger kind corresponds to (a ticket trend has none). */
export const QBR_GENERATOR_KEY: Record<QbrTriggerKind, GeneratorKey | null> = {
  renewal: 'renewal',
  asset_aging: 'asset_aging',
  whitespace: 'whitespace',
  ticket_trend: null,
};

/** A next action is due a week after the suggestion or trigger is acted on. */
export const NEXT_ACTION_DUE_DAYS = 7;

export const DAY_MS = 86_400_000;

/** 'YYYY-MM-DD' of a UTC instant. */
export const dayOf = (d: Date): string => d.toISOString().slice(0, 10);

/** The calendar day `years` before `d` (UTC); 29 February falls back to 28 February. */
export function yearsBefore(d: Date, years: number): string {
  const y = d.getUTCFullYear() - years;
  const m = d.getUTCMonth();
  const lastDay = new Date(Date.UTC(y, m + 1, 0)).getUTCDate();
  return dayOf(new Date(Date.UTC(y, m, Math.min(d.getUTCDate(), lastDay))));
}

/** The calendar quarter of a UTC instant: '2026-Q3'. */
export const quarterOf = (d: Date): string => `${d.getUTCFullYear()}-Q${Math.floor(d.getUTCMonth() / 3) + 1}`;

/** numerator / denominator to the nearest integer, ties to even (exact on bigints; both non-negative here). */
export function halfEven(numerator: bigint, denominator: bigint): number {
  const q = numerator / denominator;
  const twice = 2n * (numerator % denominator);
  return Number(twice > denominator || (twice === denominator && q % 2n === 1n) ? q + 1n : q);
}

/** Text cut to `max` characters (titles carry names of other records, which may be long). */
export const clip = (text: string, max = 255): string => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);
