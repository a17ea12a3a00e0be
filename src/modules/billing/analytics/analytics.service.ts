import type { Kysely } from 'kysely';
import type { Actor } from '../../../platform/auth/context.ts';
import type { DB } from '../../../platform/db/schema.ts';
import type { BillingFrequency } from '../../../platform/db/schema.billing.ts';
import { validation } from '../../../platform/http/errors.ts';
import { portalClientId, requireVisibleClient } from '../../clients/index.ts';
import { roundHalfEven } from '../rounding.ts';
import { attachedLineCounts, contractCounts, revenueLines, type ContractScope, type RevenueLine } from './analytics.repo.ts';
import { BILLING_CYCLES as BILLING_FREQUENCIES } from '../../clients/index.ts';
import { LINE_TYPES as CONTRACT_LINE_TYPES } from '../contract-lines/lines.schemas.ts';
import type { Overview, OverviewQuery } from './analytics.schemas.ts';
import { revenueReport } from './revenue.service.ts';
import type { Revenue, RevenueQuery } from './revenue.schemas.ts';

/** Billing periods per year of a line's billing frequency. */
export const PERIODS_PER_YEAR: Record<BillingFrequency, bigint> = {
  weekly: 52n,
  'bi-weekly': 26n,
  monthly: 12n,
  quarterly: 4n,
  'semi-annually': 2n,
  annually: 1n,
};

const MONTHS = 12n;
const TOP_LINES = 10;

const zeros = <K extends string>(keys: readonly K[]): Record<K, number> =>
  Object.fromEntries(keys.map((k) => [k, 0])) as Record<K, number>;

/** Binary (code unit) order: the same on every engine and locale. */
const byText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Σ(rate × k) of one line's revenue rows, exact. */
const annualOf = (line: RevenueLine): bigint => BigInt(line.rate_sum) * PERIODS_PER_YEAR[line.billing_frequency];

export function createBillingAnalyticsService(deps: { db: Kysely<DB> }) {
  const { db } = deps;
  return {
    /** Contract, line and recurring-revenue figures computed from the tenant's rows at request time. */
    async overview(actor: Actor, query: OverviewQuery): Promise<Overview> {
      if (query.from !== undefined && query.to !== undefined && query.from > query.to) {
        // Both are validated YYYY-MM-DD strings, so text order is date order.
        throw validation('querystring.from', 'must not be after to');
      }
      if (query.client_id !== undefined) await requireVisibleClient(db, actor, query.client_id);
      const clientId = query.client_id ?? portalClientId(actor);
      const scope: ContractScope = { tenant: actor.tenant, clientId, from: query.from, to: query.to };

      const [contracts, lineGroups, revenue] = await Promise.all([
        contractCounts(db, scope),
        attachedLineCounts(db, scope),
        revenueLines(db, scope),
      ]);

      const linesByType = zeros(CONTRACT_LINE_TYPES);
      const byFrequency = zeros(BILLING_FREQUENCIES);
      let totalLines = 0;
      for (const g of lineGroups) {
        linesByType[g.contract_line_type] += g.n;
        byFrequency[g.billing_frequency] += g.n;
        totalLines += g.n;
      }

      const perCurrency = new Map<string, { annual: bigint; rows: number }>();
      for (const line of revenue) {
        const acc = perCurrency.get(line.currency_code) ?? { annual: 0n, rows: 0 };
        acc.annual += annualOf(line);
        acc.rows += line.contract_count;
        perCurrency.set(line.currency_code, acc);
      }
      const currencies = [...perCurrency.keys()].sort(byText);

      const topLines = revenue
        .map((line) => ({
          contract_line_id: line.contract_line_id,
          contract_line_name: line.contract_line_name,
          contract_line_type: line.contract_line_type,
          billing_frequency: line.billing_frequency,
          currency_code: line.currency_code,
          contract_count: line.contract_count,
          monthly: roundHalfEven(annualOf(line), MONTHS),
        }))
        .sort((a, b) =>
          (a.monthly === b.monthly ? 0 : a.monthly > b.monthly ? -1 : 1)
          || byText(a.contract_line_name, b.contract_line_name)
          || byText(a.contract_line_id, b.contract_line_id))
        .slice(0, TOP_LINES)
        .map(({ monthly, ...rest }) => ({ ...rest, monthly_amount_cents: Number(monthly) }));

      return {
        generated_at: new Date().toISOString(),
        filters: { client_id: clientId ?? null, from: query.from ?? null, to: query.to ?? null },
        total_contracts: contracts.total,
        contracts_by_status: {
          draft: contracts.draft,
          active: contracts.active,
          terminated: contracts.terminated,
          expired: contracts.expired,
        },
        active_assignments: contracts.active_assignments,
        total_contract_lines: totalLines,
        lines_by_type: linesByType,
        billing_frequency_distribution: byFrequency,
        monthly_recurring_revenue: currencies.map((currency_code) => ({
          currency_code,
          amount_cents: Number(roundHalfEven(perCurrency.get(currency_code)!.annual, MONTHS)),
        })),
        average_revenue_per_line: currencies.map((currency_code) => {
          const { annual, rows } = perCurrency.get(currency_code)!;
          return { currency_code, amount_cents: Number(roundHalfEven(annual, MONTHS * BigInt(rows))), line_count: rows };
        }),
        top_lines: topLines,
      };
    },

    /** Invoiced, collected, credited, outstanding and overdue money per currency and calendar bucket (see revenue.service.ts). */
    revenue(actor: Actor, query: RevenueQuery): Promise<Revenue> {
      return revenueReport(db, actor, query);
    },
  };
}

export type BillingAnalyticsService = ReturnType<typeof createBillingAnalyticsService>;
