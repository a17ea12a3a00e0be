import { Type, type Static } from 'typebox';
import { DateOnly, Id, Nullable, Timestamp, dataOf } from '../../../platform/http/schemas.ts';

const Cents = (what: string) => Type.Integer({ description: `${what}, in integer cents of the currency's minor unit` });
const Currency = Type.String({ description: 'ISO 4217 code' });
const Rate = (what: string) => Nullable(Type.Number({ description: `${what}: a number with at most 4 decimals (half-to-even); null when the denominator is 0` }));
const Stage = Type.Enum(['identified', 'qualified', 'assessment', 'proposed', 'verbal'], { description: 'A ladder stage' });
const AnyStage = Type.Enum(['identified', 'qualified', 'assessment', 'proposed', 'verbal', 'won', 'lost']);

export const PeriodQuery = Type.Object(
  {
    start: Type.String({ format: 'date', description: 'First day of the period (YYYY-MM-DD, UTC)' }),
    end: Type.String({ format: 'date', description: 'Last day of the period (YYYY-MM-DD, UTC), included; not before start, at most 5 years after it (else a 400)' }),
  },
  { additionalProperties: false },
);
export type PeriodQuery = Static<typeof PeriodQuery>;

export const NoQuery = Type.Object({}, { additionalProperties: false });

// --- forecast ---------------------------------------------------------------------------------------------

const CurrencyBand = Type.Object({
  currency_code: Currency,
  floor_mrr_cents: Cents('Σ mrr_cents of the in_floor deals'),
  floor_one_time_cents: Cents('Σ one_time_cents of the in_floor deals'),
  ceiling_mrr_cents: Cents('floor_mrr_cents + Σ weighted_mrr_cents of the other deals'),
  ceiling_one_time_cents: Cents('floor_one_time_cents + Σ weighted_one_time_cents of the other deals'),
  deal_count: Type.Integer({ description: 'Deals of this currency in the composition' }),
});

const Contribution = Type.Object({
  opportunity_id: Id,
  opportunity_number: Type.String(),
  title: Type.String(),
  owner_id: Nullable(Type.String({ format: 'uuid' })),
  currency_code: Currency,
  stage: AnyStage,
  status: Type.Enum(['open', 'won']),
  weight: Type.Number({ description: 'The probability applied (4 decimals shown; the exact rate is used for the amounts): 1 for won deals' }),
  weight_source: Type.Enum(['won', 'base', 'seller_calibration'], {
    description: "won: a won deal; seller_calibration: the owner's own rate for the stage; base: the base rate of the stage",
  }),
  mrr_cents: Cents('Monthly recurring value'),
  one_time_cents: Cents('One-time value: nrr_cents + hardware_cents'),
  weighted_mrr_cents: Cents('mrr_cents × rate, rounded half-to-even to whole cents'),
  weighted_one_time_cents: Cents('one_time_cents × rate, rounded half-to-even to whole cents'),
  in_floor: Type.Boolean({ description: 'A won deal or an open deal at verbal: counted in full in the floor (and so in the ceiling)' }),
});

export const Forecast = Type.Object({
  start: DateOnly,
  end: DateOnly,
  by_currency: Type.Array(CurrencyBand, { description: 'One band per currency (never summed across currencies), by ceiling_mrr_cents descending, then currency_code' }),
  composition: Type.Array(Contribution, { description: 'Every deal of the forecast, by currency_code then opportunity_number' }),
});
export type Forecast = Static<typeof Forecast>;
export const ForecastResponse = dataOf(Forecast);

// --- calibration ------------------------------------------------------------------------------------------

const AttachRate = Type.Object(
  {
    won_new_logo_count: Type.Integer(),
    attached_count: Type.Integer({ description: 'Won new logos whose client has a contract (beyond draft) starting 0–60 days after the win (UTC dates)' }),
    rate: Rate('attached_count / won_new_logo_count'),
  },
  { description: 'How many won new logos went on to an agreement' },
);

const StageRate = Type.Object({
  stage: Stage,
  closed_count: Type.Integer({ description: 'Closed deals whose stage at close was this stage' }),
  won_count: Type.Integer(),
  rate: Type.Number({ description: 'The rate the forecast applies: won_count / closed_count when source is seller_calibration, else the base rate (4 decimals)' }),
  source: Type.Enum(['base', 'seller_calibration']),
});

const ConfidenceOutcome = Type.Object({
  confidence: Type.Enum(['low', 'medium', 'high', 'committed']),
  closed_count: Type.Integer(),
  won_count: Type.Integer(),
  close_rate: Rate('won_count / closed_count'),
});

export const SellerCalibration = Type.Object({
  seller_id: Id,
  seller_name: Type.String(),
  closed_deal_count: Type.Integer({ description: 'Won + lost deals owned by the seller (all time)' }),
  calibrated: Type.Boolean({ description: 'closed_deal_count ≥ 20: the forecast uses the seller\'s own stage rates' }),
  stage_rates: Type.Array(StageRate),
  confidence_outcomes: Type.Array(ConfidenceOutcome, { description: 'low, medium, high, committed' }),
  attach_rate: AttachRate,
});
export type SellerCalibration = Static<typeof SellerCalibration>;
export const CalibrationResponse = Type.Object({ data: Type.Array(SellerCalibration) });

// --- rollups ----------------------------------------------------------------------------------------------

export const Rollup = Type.Object({
  owner_id: Nullable(Type.String({ format: 'uuid', description: 'null for deals without an owner' })),
  owner_name: Nullable(Type.String()),
  currency_code: Currency,
  open_count: Type.Integer({ description: 'Open deals with expected_close_date in the period' }),
  open_mrr_cents: Cents('Their monthly recurring value'),
  open_one_time_cents: Cents('Their one-time value (nrr + hardware)'),
  won_count: Type.Integer({ description: 'Deals won in the period (won_at)' }),
  won_mrr_cents: Cents('Their monthly recurring value'),
  won_one_time_cents: Cents('Their one-time value'),
  lost_count: Type.Integer({ description: 'Deals lost in the period (lost_at)' }),
  lost_mrr_cents: Cents('Their monthly recurring value'),
  lost_one_time_cents: Cents('Their one-time value'),
  attach_rate: AttachRate,
});
export type Rollup = Static<typeof Rollup>;
export const RollupsResponse = Type.Object({ data: Type.Array(Rollup) });

// --- work queue -------------------------------------------------------------------------------------------

const QueueItem = Type.Object({
  kind: Type.Enum(['action_due', 'going_quiet']),
  opportunity_id: Id,
  opportunity_number: Type.String(),
  title: Type.String(),
  client_id: Id,
  client_name: Type.String(),
  stage: AnyStage,
  mrr_cents: Cents('Monthly recurring value'),
  nrr_cents: Cents('Non-recurring value'),
  hardware_cents: Cents('Hardware value'),
  currency_code: Currency,
  next_action: Type.String(),
  next_action_due: Timestamp,
  days_overdue: Type.Integer({ description: 'UTC calendar days from the due day to today; 0 when due today or later' }),
  days_since_activity: Type.Integer({ description: 'Whole days since last_activity_at' }),
  is_screen_primary: Type.Boolean({ description: 'True for the first do_today item only: the one thing to do next' }),
});

const FoundTotal = Type.Object({
  currency_code: Currency,
  mrr_cents: Cents('Σ over the open deals'),
  nrr_cents: Cents('Σ over the open deals'),
  hardware_cents: Cents('Σ over the open deals'),
});

const MoneyFound = Type.Object({
  suggestion_id: Id,
  generator_key: Type.String(),
  client_id: Id,
  client_name: Type.String(),
  title: Type.String(),
  mrr_cents: Cents('Suggested monthly recurring value'),
  nrr_cents: Cents('Suggested non-recurring value'),
  currency_code: Currency,
  status: Type.Enum(['pending', 'snoozed']),
  snoozed_until: Nullable(Type.String({ format: 'date-time' })),
  created_at: Timestamp,
});

export const WorkQueue = Type.Object({
  user_first_name: Nullable(Type.String()),
  date: Type.String({ format: 'date', description: "Today (UTC)" }),
  found_totals: Type.Array(FoundTotal, { description: "Per currency over the caller's open deals, by currency_code" }),
  do_today: Type.Array(QueueItem, { description: 'Open deals whose next action is due before the start of tomorrow (UTC), by due time' }),
  going_quiet: Type.Array(QueueItem, { description: 'Open deals not due yet with no activity for longer than the nudge_days setting, oldest activity first' }),
  money_found: Type.Array(MoneyFound, { description: "Up to 20 suggestions waiting for a decision on clients of the caller's deals, newest first" }),
});
export type WorkQueue = Static<typeof WorkQueue>;
export const WorkQueueResponse = dataOf(WorkQueue);
