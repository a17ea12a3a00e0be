import { Type, type Static } from 'typebox';
import { DateOnly, Id, Nullable, Timestamp, dataOf } from '../../../platform/http/schemas.ts';
import { BILLING_CYCLES as BILLING_FREQUENCIES } from '../../clients/index.ts';
import { LINE_TYPES as CONTRACT_LINE_TYPES } from '../contract-lines/lines.schemas.ts';
import { CONTRACT_STATUSES } from '../contracts/contracts.schemas.ts';


export const OverviewQuery = Type.Object(
  {
    client_id: Type.Optional(Type.String({ format: 'uuid', description: 'Only this client\'s contracts; a client not in the tenant (or not visible to a client-portal key) is a 404' })),
    from: Type.Optional(Type.String({ format: 'date', description: 'YYYY-MM-DD: only contracts still running on or after this day (end_date null or >= from); must not be after `to` (400)' })),
    to: Type.Optional(Type.String({ format: 'date', description: 'YYYY-MM-DD: only contracts started on or before this day (start_date <= to)' })),
  },
  {
    additionalProperties: false,
    description: 'All optional. A client-portal key is always scoped to its own client.',
  },
);
export type OverviewQuery = Static<typeof OverviewQuery>;

const Count = (description: string) => Type.Integer({ minimum: 0, description });
const counts = (keys: readonly string[], what: string) =>
  Type.Object(Object.fromEntries(keys.map((k) => [k, Count(`${what} '${k}'`)])), { description: `${what}: every key present, zeros included` });
/** A derived amount (may exceed a single price's 10^12 bound, so no maximum). */
const Amount = (what: string) =>
  Type.Integer({ minimum: 0, description: `${what}, in integer cents of the currency's minor unit (1234 = 12.34)` });
const Currency = Type.String({ minLength: 3, maxLength: 3, description: 'ISO 4217 currency code (upper-case)' });

const MonthlyRevenue = Type.Object({
  currency_code: Currency,
  amount_cents: Amount('Σ(rate × periods per year) over the currency\'s revenue rows, divided by 12 and rounded once, half to even'),
});

const AverageRevenue = Type.Object({
  currency_code: Currency,
  amount_cents: Amount('Σ(rate × periods per year) / (12 × line_count), rounded once, half to even: the average monthly value of one revenue row'),
  line_count: Count('Revenue rows (line attachments) in this currency'),
});

const TopLine = Type.Object({
  contract_line_id: Id,
  contract_line_name: Type.String(),
  contract_line_type: Type.Enum([...CONTRACT_LINE_TYPES]),
  billing_frequency: Type.Enum([...BILLING_FREQUENCIES]),
  currency_code: Currency,
  contract_count: Count('Active in-scope contracts this line is attached to (its revenue rows)'),
  monthly_amount_cents: Amount('Σ(rate × periods per year) over this line\'s revenue rows, divided by 12 and rounded once, half to even'),
});

export const Overview = Type.Object(
  {
    generated_at: Timestamp,
    filters: Type.Object(
      {
        client_id: Nullable(Id),
        from: Nullable(DateOnly),
        to: Nullable(DateOnly),
      },
      { description: 'The scope the numbers were computed for (client_id is the portal key\'s own client for a client-portal key)' },
    ),
    total_contracts: Count('In-scope contracts, any status'),
    contracts_by_status: counts(CONTRACT_STATUSES, 'In-scope contracts of status'),
    active_assignments: Count('Assignments (client_contracts) of in-scope contracts that are is_active and whose contract is active'),
    total_contract_lines: Count('Distinct contract lines attached to in-scope contracts (any type, active or not)'),
    lines_by_type: counts(CONTRACT_LINE_TYPES, 'Distinct attached lines of type'),
    billing_frequency_distribution: counts(BILLING_FREQUENCIES, 'Distinct attached lines billed'),
    monthly_recurring_revenue: Type.Array(MonthlyRevenue, {
      description: 'One entry per currency that has revenue rows, sorted by currency_code; amounts are never summed across currencies',
    }),
    average_revenue_per_line: Type.Array(AverageRevenue, { description: 'One entry per currency that has revenue rows, sorted by currency_code' }),
    top_lines: Type.Array(TopLine, {
      maxItems: 10,
      description: 'Up to 10 lines by monthly_amount_cents desc, then contract_line_name asc (binary order), then contract_line_id',
    }),
  },
  {
    description: [
      'Billing figures computed from the tenant\'s contracts at request time.',
      'In scope: the tenant\'s contracts (of client_id if given) whose [start_date, end_date or open-ended] overlaps [from or -∞, to or +∞].',
      'Revenue rows: line attachments of in-scope contracts whose contract status is active and whose line is active and of type fixed.',
      'A row\'s rate is the attachment\'s custom_rate_cents, else the line\'s config.base_rate_cents; its monthly value is rate × k / 12,',
      'k being the periods per year of the LINE\'s billing_frequency (weekly 52, bi-weekly 26, monthly 12, quarterly 4, semi-annually 2, annually 1).',
      'Sums are exact and rounded once (half to even), never per row. All money is integer cents of the currency\'s minor unit.',
    ].join(' '),
  },
);
export type Overview = Static<typeof Overview>;

export const OverviewResponse = dataOf(Overview);
