import type { ColumnType, Generated } from 'kysely';

/** Kysely table types of migration 0020_opportunities (src/modules/opportunities); kept apart from schema.ts. */

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type CreatedAt = ColumnType<Date, Date | string | undefined, never>;
/** BIGINT cents, parsed to a number (safe below 2^53). */
type Cents = ColumnType<number, number | undefined, number>;
type Json = ColumnType<Record<string, unknown>, string | Record<string, unknown> | undefined, string | Record<string, unknown>>;

export type OpportunityType = 'new_logo' | 'expansion' | 'renewal' | 'project';
export type OpportunityStatus = 'open' | 'won' | 'lost';
export type OpportunityStage = 'identified' | 'qualified' | 'assessment' | 'proposed' | 'verbal' | 'won' | 'lost';
export type Checkpoint = 'identified' | 'qualified' | 'assessment' | 'proposed' | 'verbal' | 'won';
export type Confidence = 'low' | 'medium' | 'high' | 'committed';
export type LossReason = 'no_response' | 'chose_competitor' | 'price' | 'timing' | 'no_budget' | 'not_a_fit' | 'other';
export type GeneratorKey = 'renewal' | 'tm_conversion' | 'whitespace' | 'asset_aging' | 'inbound-lead';
export type EvidenceSource = 'system' | 'declared' | 'user_declared';
export type EvidenceRefType = 'quote' | 'contract' | 'project' | 'schedule_entry' | 'interaction';
export type StepStatus = 'planned' | 'current' | 'done' | 'skipped';
export type InteractionType = 'call' | 'email' | 'meeting' | 'note';
export type ResolutionStatus = 'open' | 'quote_line' | 'agreement_line' | 'project_task' | 'declined';
export type SuggestionStatus = 'pending' | 'accepted' | 'dismissed' | 'snoozed';
export type QbrTriggerKind = 'renewal' | 'asset_aging' | 'ticket_trend' | 'whitespace';

export interface OpportunitySettingsTable {
  tenant: string;
  next_opportunity_number: Generated<number>;
  nudge_days: Generated<number>;
  renewal_lead_days: Generated<number>;
  tm_threshold_cents: Generated<number>;
  asset_age_years: Generated<number>;
  updated_at: Timestamp;
}

export interface InteractionsTable {
  tenant: string;
  interaction_id: string;
  client_id: string;
  contact_id: string | null;
  opportunity_id: string | null;
  interaction_type: InteractionType;
  title: string;
  notes: string | null;
  interaction_date: Timestamp;
  duration_minutes: number | null;
  user_id: string | null;
  created_by: string | null;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

export interface OpportunitiesTable {
  tenant: string;
  opportunity_id: string;
  opportunity_number: string;
  client_id: string;
  contact_id: string | null;
  title: string;
  opportunity_type: OpportunityType;
  owner_id: string | null;
  status: Generated<OpportunityStatus>;
  stage: Generated<OpportunityStage>;
  stage_rank: Generated<number>;
  confidence: Generated<Confidence>;
  mrr_cents: Cents;
  nrr_cents: Cents;
  hardware_cents: Cents;
  currency_code: string;
  values_locked_by_quote: Generated<boolean>;
  /** DATE: 'YYYY-MM-DD'. */
  expected_close_date: string | null;
  current_step_id: string | null;
  next_action: string | null;
  next_action_due: Date | null;
  last_activity_at: Timestamp;
  loss_reason: LossReason | null;
  loss_notes: string | null;
  lost_to: string | null;
  generator_key: GeneratorKey | null;
  generator_context: ColumnType<Record<string, unknown> | null, string | Record<string, unknown> | null | undefined, string | Record<string, unknown> | null>;
  suggestion_id: string | null;
  converted_contract_id: string | null;
  converted_project_id: string | null;
  won_at: Date | null;
  lost_at: Date | null;
  created_by: string | null;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

export interface OpportunityStepsTable {
  tenant: string;
  step_id: string;
  opportunity_id: string;
  title: string;
  due_at: Timestamp;
  status: StepStatus;
  sort_order: number;
  interaction_id: string | null;
  completed_at: Date | null;
  completed_by: string | null;
  created_by: string | null;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

export interface OpportunityEvidenceTable {
  tenant: string;
  evidence_id: string;
  opportunity_id: string;
  checkpoint: Checkpoint;
  source: EvidenceSource;
  ref_type: EvidenceRefType | null;
  ref_id: string | null;
  detail: string | null;
  recorded_by: string | null;
  recorded_at: CreatedAt;
  correction_note: string | null;
  corrected_by: string | null;
  corrected_at: Date | null;
}

export interface OpportunityQuotesTable {
  tenant: string;
  quote_id: string;
  opportunity_id: string;
  linked_by: string | null;
  linked_at: CreatedAt;
}

export interface OpportunityCommitmentsTable {
  tenant: string;
  commitment_id: string;
  opportunity_id: string;
  description: string;
  made_by: string | null;
  made_at: CreatedAt;
  resolution_status: Generated<ResolutionStatus>;
  resolution_ref_id: string | null;
  resolved_by: string | null;
  resolved_at: Date | null;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

export interface OpportunityMeetingSessionsTable {
  tenant: string;
  session_id: string;
  started_by: string;
  /** DATE: 'YYYY-MM-DD' (UTC day). */
  session_date: string;
  started_at: CreatedAt;
  created_at: CreatedAt;
}

export interface OpportunityMeetingReviewsTable {
  tenant: string;
  review_id: string;
  session_id: string;
  opportunity_id: string;
  note: string | null;
  reviewed_at: Timestamp;
}

export interface OpportunitySuggestionsTable {
  tenant: string;
  suggestion_id: string;
  generator_key: GeneratorKey;
  client_id: string;
  title: string;
  evidence: Json;
  mrr_cents: Cents;
  nrr_cents: Cents;
  currency_code: string;
  status: Generated<SuggestionStatus>;
  snoozed_until: Date | null;
  dedupe_key: string;
  created_opportunity_id: string | null;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

export interface OpportunityQbrTriggersTable {
  tenant: string;
  trigger_key: string;
  client_id: string;
  kind: QbrTriggerKind;
  fired_at: CreatedAt;
  opportunity_id: string | null;
}

export interface OpportunityTables {
  opportunity_settings: OpportunitySettingsTable;
  interactions: InteractionsTable;
  opportunities: OpportunitiesTable;
  opportunity_steps: OpportunityStepsTable;
  opportunity_evidence: OpportunityEvidenceTable;
  opportunity_quotes: OpportunityQuotesTable;
  opportunity_commitments: OpportunityCommitmentsTable;
  opportunity_meeting_sessions: OpportunityMeetingSessionsTable;
  opportunity_meeting_reviews: OpportunityMeetingReviewsTable;
  opportunity_suggestions: OpportunitySuggestionsTable;
  opportunity_qbr_triggers: OpportunityQbrTriggersTable;
}
