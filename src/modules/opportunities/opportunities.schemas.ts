import { Type, type Static } from 'typebox';
import { DateOnly, Id, Nullable, Timestamp, dataOf, listOf, listQuery } from '../../platform/http/schemas.ts';
import { CurrencyCode } from '../billing/index.ts';

export const OPPORTUNITY_TYPES = ['new_logo', 'expansion', 'renewal', 'project'] as const;
export const CONFIDENCES = ['low', 'medium', 'high', 'committed'] as const;
export const STAGES = ['identified', 'qualified', 'assessment', 'proposed', 'verbal', 'won', 'lost'] as const;
export const CHECKPOINTS = ['identified', 'qualified', 'assessment', 'proposed', 'verbal'] as const;
export const LOSS_REASONS = ['no_response', 'chose_competitor', 'price', 'timing', 'no_budget', 'not_a_fit', 'other'] as const;
export const OPPORTUNITY_SORTS = ['next_action_due', 'expected_close_date', 'mrr_cents', 'last_activity_at', 'created_at', 'updated_at', 'opportunity_number'] as const;

const OpportunityType = Type.Enum([...OPPORTUNITY_TYPES]);
const Confidence = Type.Enum([...CONFIDENCES], { description: "The seller's declared confidence; never moves the stage" });
const Stage = Type.Enum([...STAGES], { description: 'Derived: the highest uncorrected checkpoint of the evidence log (won/lost once closed); never set directly' });
const Status = Type.Enum(['open', 'won', 'lost']);
const Money = (what: string) => Type.Integer({ minimum: 0, maximum: 1_000_000_000_000, description: `${what}, integer cents in currency_code` });
const Action = Type.String({ minLength: 1, maxLength: 300, description: 'What happens next on this deal' });
const Due = Type.String({ format: 'date-time', description: 'When the next action is due (ISO 8601)' });

const summary = {
  opportunity_id: Id,
  opportunity_number: Type.String({ description: 'OPP-000001, from the tenant’s sequence' }),
  title: Type.String(),
  client_id: Id,
  client_name: Type.String(),
  contact_id: Nullable(Id),
  contact_name: Nullable(Type.String()),
  owner_id: Nullable(Id),
  owner_name: Nullable(Type.String()),
  opportunity_type: OpportunityType,
  status: Status,
  stage: Stage,
  confidence: Confidence,
  mrr_cents: Money('Monthly recurring value'),
  nrr_cents: Money('One-off services value'),
  hardware_cents: Money('One-off hardware value'),
  currency_code: Type.String({ description: 'ISO 4217; every amount of the deal is in this currency' }),
  values_locked_by_quote: Type.Boolean({ description: 'True while an accepted quote is linked: the value comes from accepted linked quotes and cannot be edited' }),
  expected_close_date: Nullable(DateOnly),
  next_action: Nullable(Type.String({ description: 'The current step; present exactly while the deal is open' })),
  next_action_due: Nullable(Timestamp),
  current_step_id: Nullable(Id),
  last_activity_at: Timestamp,
  days_since_activity: Type.Integer({ description: 'Whole days since last_activity_at' }),
  is_stalled: Type.Boolean({ description: 'Open and without activity for longer than the tenant’s nudge_days (default 14)' }),
  loss_reason: Nullable(Type.Enum([...LOSS_REASONS])),
  loss_notes: Nullable(Type.String()),
  lost_to: Nullable(Type.String()),
  generator_key: Nullable(Type.String({ description: 'The suggestion generator the deal came from (renewal, tm_conversion, whitespace, asset_aging, inbound-lead)' })),
  generator_context: Nullable(Type.Record(Type.String(), Type.Unknown())),
  suggestion_id: Nullable(Id),
  converted_contract_id: Nullable(Id),
  converted_project_id: Nullable(Id),
  won_at: Nullable(Timestamp),
  lost_at: Nullable(Timestamp),
  created_by: Nullable(Id),
  created_at: Timestamp,
  updated_at: Timestamp,
};

export const OpportunitySummary = Type.Object(summary);
export type OpportunitySummary = Static<typeof OpportunitySummary>;

export const Evidence = Type.Object({
  evidence_id: Id,
  opportunity_id: Id,
  checkpoint: Type.Enum([...CHECKPOINTS, 'won']),
  source: Type.Enum(['system', 'declared', 'user_declared'], { description: 'system: recorded by a quote or the win; declared/user_declared: by a person' }),
  ref_type: Nullable(Type.Enum(['quote', 'contract', 'project', 'schedule_entry', 'interaction'])),
  ref_id: Nullable(Id),
  detail: Nullable(Type.String()),
  recorded_by: Nullable(Id),
  recorded_at: Timestamp,
  correction_note: Nullable(Type.String()),
  corrected_by: Nullable(Id),
  corrected_at: Nullable(Timestamp),
});
export type Evidence = Static<typeof Evidence>;

const LadderRung = Type.Object({
  checkpoint: Type.Enum([...CHECKPOINTS, 'won']),
  state: Type.Enum(['reached', 'skipped', 'pending'], { description: 'reached: active evidence; skipped: a higher checkpoint is reached without it; pending: not yet' }),
  evidence: Nullable(Evidence),
});

const LinkedQuote = Type.Object({
  quote_id: Id,
  quote_number: Type.String(),
  status: Type.String(),
  total_cents: Type.Integer(),
  mrr_cents: Type.Integer(),
  nrr_cents: Type.Integer(),
  hardware_cents: Type.Integer(),
  currency_code: Type.String(),
  sent_at: Nullable(Timestamp),
  accepted_at: Nullable(Timestamp),
  linked_at: Timestamp,
});

export const Opportunity = Type.Object({
  ...summary,
  ladder: Type.Array(LadderRung, { description: 'identified → qualified → assessment → proposed → verbal → won, each with the evidence that reached it' }),
  linked_quotes: Type.Array(LinkedQuote),
  open_commitment_count: Type.Integer({ description: 'Open commitments block a win' }),
});
export type Opportunity = Static<typeof Opportunity>;

export const OpportunityResponse = dataOf(Opportunity);
export const OpportunityListResponse = listOf(OpportunitySummary);

export const ListOpportunitiesQuery = listQuery(OPPORTUNITY_SORTS, {
  status: Type.Optional(Type.Enum(['open', 'won', 'lost', 'all'], { description: 'Default all' })),
  stage: Type.Optional(Stage),
  owner_id: Type.Optional(Id),
  client_id: Type.Optional(Id),
  opportunity_type: Type.Optional(OpportunityType),
  currency_code: Type.Optional(CurrencyCode),
  stalled_only: Type.Optional(Type.Boolean({ description: 'Only open deals without activity for longer than nudge_days' })),
  search: Type.Optional(Type.String({ maxLength: 200, description: 'Matches title, number or client name' })),
});
export type ListOpportunitiesQuery = Static<typeof ListOpportunitiesQuery>;

const editable = {
  contact_id: Type.Optional(Nullable(Type.Unsafe<string>({ ...Id, description: 'A contact of the client' }))),
  owner_id: Type.Optional(Type.Unsafe<string>({ ...Id, description: 'An active internal user (default: the caller)' })),
  confidence: Type.Optional(Confidence),
  mrr_cents: Type.Optional(Money('Monthly recurring value')),
  nrr_cents: Type.Optional(Money('One-off services value')),
  hardware_cents: Type.Optional(Money('One-off hardware value')),
  expected_close_date: Type.Optional(Nullable(DateOnly)),
};

export const CreateOpportunityBody = Type.Object(
  {
    client_id: Id,
    title: Type.String({ minLength: 1, maxLength: 255 }),
    opportunity_type: OpportunityType,
    currency_code: CurrencyCode,
    next_action: Action,
    next_action_due: Due,
    ...editable,
  },
  { additionalProperties: false },
);
export type CreateOpportunityBody = Static<typeof CreateOpportunityBody>;

export const UpdateOpportunityBody = Type.Object(
  {
    title: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    opportunity_type: Type.Optional(OpportunityType),
    currency_code: Type.Optional(CurrencyCode),
    ...editable,
    owner_id: Type.Optional(Nullable(Type.Unsafe<string>({ ...Id, description: 'An active internal user, or null' }))),
  },
  {
    additionalProperties: false,
    description: 'Partial. The next action changes only through complete-action; the client is fixed; value and currency are locked while an accepted quote is linked',
  },
);
export type UpdateOpportunityBody = Static<typeof UpdateOpportunityBody>;

export const CompleteActionBody = Type.Object({ next_action: Action, next_action_due: Due }, { additionalProperties: false });
export type CompleteActionBody = Static<typeof CompleteActionBody>;

export const Step = Type.Object({
  step_id: Id,
  opportunity_id: Id,
  title: Type.String(),
  due_at: Timestamp,
  status: Type.Enum(['planned', 'current', 'done', 'skipped'], { description: 'Exactly one step of an open deal is current; closing skips it' }),
  sort_order: Type.Integer(),
  interaction_id: Nullable(Type.Unsafe<string>({ ...Id, description: 'The interaction logged when the step was completed' })),
  completed_at: Nullable(Timestamp),
  completed_by: Nullable(Id),
  created_by: Nullable(Id),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type Step = Static<typeof Step>;
export const StepListResponse = Type.Object({ data: Type.Array(Step) });

export const CompleteStepBody = Type.Object(
  {
    next_action: Action,
    next_action_due: Due,
    checkpoint: Type.Optional(Type.Enum(['qualified', 'assessment', 'proposed', 'verbal'], { description: 'Also declare this checkpoint reached (winning goes through /win)' })),
  },
  { additionalProperties: false },
);
export type CompleteStepBody = Static<typeof CompleteStepBody>;

export const DeclareEvidenceBody = Type.Object(
  {
    checkpoint: Type.Enum([...CHECKPOINTS], { description: 'Declaring a lower checkpoint than the current stage corrects every active evidence above it; identified only corrects' }),
    detail: Type.Optional(Type.String({ maxLength: 4000 })),
  },
  { additionalProperties: false },
);
export type DeclareEvidenceBody = Static<typeof DeclareEvidenceBody>;

export const CorrectEvidenceBody = Type.Object({ correction_note: Type.String({ minLength: 1, maxLength: 4000, description: 'Why the fact no longer holds (the audit note)' }) }, { additionalProperties: false });
export type CorrectEvidenceBody = Static<typeof CorrectEvidenceBody>;
export const EvidenceListResponse = Type.Object({ data: Type.Array(Evidence) });

export const WinBody = Type.Object(
  {
    convert_quote_id: Type.Optional(Type.Unsafe<string>({ ...Id, description: 'An accepted quote linked to this deal: becomes a draft contract' })),
    project_template_id: Type.Optional(Type.Unsafe<string>({ ...Id, description: 'A project template to apply for the client' })),
    project_name: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'Default: the deal’s title' })),
    project_start_date: Type.Optional(DateOnly),
  },
  { additionalProperties: false, description: 'Conversions, the status change and the won evidence happen in one transaction: if any fails, nothing is written' },
);
export type WinBody = Static<typeof WinBody>;

export const LoseBody = Type.Object(
  {
    loss_reason: Type.Enum([...LOSS_REASONS]),
    loss_notes: Type.Optional(Type.String({ maxLength: 4000 })),
    lost_to: Type.Optional(Type.String({ maxLength: 255, description: 'The competitor, when there is one' })),
  },
  { additionalProperties: false },
);
export type LoseBody = Static<typeof LoseBody>;

export const OpportunityParams = Type.Object({ id: Id }, { additionalProperties: false });
export const StepParams = Type.Object({ id: Id, stepId: Id }, { additionalProperties: false });
export const EvidenceParams = Type.Object({ id: Id, evidenceId: Id }, { additionalProperties: false });
export const QuoteLinkParams = Type.Object({ id: Id, quoteId: Id }, { additionalProperties: false });
