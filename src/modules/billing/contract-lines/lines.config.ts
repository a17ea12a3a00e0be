import { Type, type Static } from 'typebox';
import type { ContractLineType } from '../../../platform/db/schema.billing.ts';
import { validation } from '../../../platform/http/errors.ts';
import { Cents } from '../money.ts';

const Minutes = (what: string, minimum = 0) => Type.Integer({ minimum, maximum: 525_600, description: `${what}, in minutes` });
const Quantity = (what: string) => Type.Number({ minimum: 0, maximum: 1e12, description: what });

const Tier = Type.Object(
  {
    min_quantity: Quantity('First quantity the tier prices (inclusive)'),
    max_quantity: Type.Union([Quantity('Quantity where the tier ends (exclusive); null = no upper bound'), Type.Null()]),
    rate_cents: Cents('Price per unit inside the tier'),
  },
  { additionalProperties: false },
);

/**
 * Every setting any line type takes, each marked with its type. The body schema stays one closed object
 * (so a typo is a 400 naming it), and `checkLineConfig` then holds the type's own rules: what is required,
 * what belongs to another type, and the settings that only make sense together.
 */
export const LineConfigFields = {
  base_rate_cents: Type.Optional(Cents('fixed: the price per billing period')),
  enable_proration: Type.Optional(Type.Boolean({ description: 'fixed: prorate partial periods (default false)' })),
  billing_cycle_alignment: Type.Optional(Type.Enum(['start', 'end', 'prorated'], { description: "fixed: where a period is billed (default start; 'prorated' needs enable_proration)" })),
  hourly_rate_cents: Type.Optional(Cents('hourly: the price per hour')),
  minimum_billable_minutes: Type.Optional(Minutes('hourly: the least time billed per entry (default 0)')),
  round_up_to_minutes: Type.Optional(Minutes('hourly: time is rounded up to a multiple of this (default 15)', 1)),
  enable_overtime: Type.Optional(Type.Boolean({ description: 'hourly: bill overtime at overtime_rate_cents past overtime_threshold_minutes (default false)' })),
  overtime_rate_cents: Type.Optional(Cents('hourly: the overtime price per hour (required with enable_overtime, at least hourly_rate_cents)')),
  overtime_threshold_minutes: Type.Optional(Minutes('hourly: time per billing period after which overtime applies (required with enable_overtime)', 1)),
  enable_after_hours_rate: Type.Optional(Type.Boolean({ description: 'hourly: multiply the rate for work outside business hours (default false)' })),
  after_hours_multiplier: Type.Optional(Type.Number({ exclusiveMinimum: 1, maximum: 10, description: 'hourly: the after-hours factor, above 1 (required with enable_after_hours_rate)' })),
  unit_of_measure: Type.Optional(Type.String({ minLength: 1, maxLength: 128, description: 'usage: what is counted (GB, seat, device)' })),
  rate_cents: Type.Optional(Cents('usage: the price per unit (quantities no tier covers)')),
  minimum_usage: Type.Optional(Quantity('usage: the least quantity billed per period (default 0)')),
  tiers: Type.Optional(Type.Array(Tier, { maxItems: 50, description: 'usage: volume tiers; they must not overlap, only the last may be open-ended' })),
  total_minutes: Type.Optional(Minutes('bucket: the time included per period', 1)),
  overage_rate_cents: Type.Optional(Cents('bucket: the price per hour beyond the bucket')),
  allow_rollover: Type.Optional(Type.Boolean({ description: 'bucket: unused minutes carry to the next period (default false)' })),
  rollover_cap_minutes: Type.Optional(Minutes('bucket: the most minutes carried over (only with allow_rollover; omitted = no cap)', 1)),
};

export const LineConfigInput = Type.Object(LineConfigFields, {
  additionalProperties: false,
  description: 'The settings of the line type. fixed: base_rate_cents; hourly: hourly_rate_cents (+ minimums, rounding, overtime, after-hours); usage: unit_of_measure, rate_cents (+ tiers); bucket: total_minutes, overage_rate_cents (+ rollover). All money is integer cents of the line currency.',
});
export type LineConfigInput = Static<typeof LineConfigInput>;

/** The stored (and returned) settings: the input with the type's defaults filled in. */
export const LineConfig = Type.Object(LineConfigFields, {
  description: 'The settings of the line type, defaults filled in (fields of other types are absent)',
});
export type LineConfig = LineConfigInput;

type Field = keyof LineConfigInput;

const FIELDS_OF: Record<ContractLineType, { required: Field[]; optional: Field[] }> = {
  fixed: { required: ['base_rate_cents'], optional: ['enable_proration', 'billing_cycle_alignment'] },
  hourly: {
    required: ['hourly_rate_cents'],
    optional: ['minimum_billable_minutes', 'round_up_to_minutes', 'enable_overtime', 'overtime_rate_cents', 'overtime_threshold_minutes', 'enable_after_hours_rate', 'after_hours_multiplier'],
  },
  usage: { required: ['unit_of_measure', 'rate_cents'], optional: ['minimum_usage', 'tiers'] },
  bucket: { required: ['total_minutes', 'overage_rate_cents'], optional: ['allow_rollover', 'rollover_cap_minutes'] },
};

const at = (field: string) => `body.config.${field}`;

/** `on` is set exactly when the switch is: both required together, or neither given. */
function together(c: LineConfigInput, flag: Field, dependents: Field[]): void {
  for (const d of dependents) {
    if (c[flag] === true && c[d] === undefined) throw validation(at(d), `is required when ${flag} is true`);
    if (c[flag] !== true && c[d] !== undefined) throw validation(at(d), `is only accepted when ${flag} is true`);
  }
}

function checkTiers(tiers: NonNullable<LineConfigInput['tiers']>): NonNullable<LineConfigInput['tiers']> {
  const sorted = tiers.map((t, i) => ({ ...t, i })).sort((a, b) => a.min_quantity - b.min_quantity);
  for (const [n, t] of sorted.entries()) {
    if (t.max_quantity !== null && t.max_quantity <= t.min_quantity) throw validation(at(`tiers.${t.i}.max_quantity`), 'must be greater than min_quantity');
    const next = sorted[n + 1];
    if (!next) continue;
    if (t.max_quantity === null) throw validation(at(`tiers.${t.i}.max_quantity`), 'only the highest tier may be open-ended (null)');
    if (next.min_quantity < t.max_quantity) {
      throw validation(at(`tiers.${next.i}.min_quantity`), `overlaps tier ${t.i} (${t.min_quantity} to ${t.max_quantity})`);
    }
  }
  return sorted.map(({ i: _i, ...t }) => t);
}

/**
 * The line type's settings, checked and with defaults filled: a setting of another type, a missing
 * required one, or switches and values that disagree are each a 400 naming the field.
 */
export function checkLineConfig(type: ContractLineType, input: LineConfigInput): LineConfig {
  const { required, optional } = FIELDS_OF[type];
  for (const key of Object.keys(input) as Field[]) {
    if (!required.includes(key) && !optional.includes(key)) throw validation(at(key), `is not a setting of a ${type} line`);
  }
  for (const key of required) if (input[key] === undefined) throw validation(at(key), `is required for a ${type} line`);
  switch (type) {
    case 'fixed': {
      const c = { enable_proration: false, billing_cycle_alignment: 'start' as const, ...input };
      if (c.billing_cycle_alignment === 'prorated' && !c.enable_proration) throw validation(at('billing_cycle_alignment'), "'prorated' needs enable_proration: true");
      return c;
    }
    case 'hourly': {
      const c = { minimum_billable_minutes: 0, round_up_to_minutes: 15, enable_overtime: false, enable_after_hours_rate: false, ...input };
      together(c, 'enable_overtime', ['overtime_rate_cents', 'overtime_threshold_minutes']);
      together(c, 'enable_after_hours_rate', ['after_hours_multiplier']);
      if (c.overtime_rate_cents !== undefined && c.overtime_rate_cents < c.hourly_rate_cents!) throw validation(at('overtime_rate_cents'), 'must not be below hourly_rate_cents');
      return c;
    }
    case 'usage': {
      const c = { minimum_usage: 0, ...input, unit_of_measure: input.unit_of_measure!.trim() };
      if (c.unit_of_measure === '') throw validation(at('unit_of_measure'), 'must not be blank');
      return c.tiers ? { ...c, tiers: checkTiers(c.tiers) } : c;
    }
    case 'bucket': {
      const c = { allow_rollover: false, ...input };
      if (c.rollover_cap_minutes !== undefined && !c.allow_rollover) throw validation(at('rollover_cap_minutes'), 'is only accepted when allow_rollover is true');
      return c;
    }
  }
}
