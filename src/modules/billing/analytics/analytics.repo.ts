import { sql, type ExpressionBuilder } from 'kysely';
import type { Executor } from '../../../platform/db/executor.ts';
import type { DB } from '../../../platform/db/schema.ts';
import type { BillingFrequency, ContractLineType } from '../../../platform/db/schema.billing.ts';

/** Which contracts the figures cover: always one tenant; optionally one client and a date window. */
export interface ContractScope {
  tenant: string;
  clientId?: string;
  /** YYYY-MM-DD; contracts that end before it are out. */
  from?: string;
  /** YYYY-MM-DD; contracts that start after it are out. */
  to?: string;
}

/**
 * The scope as a condition on `contracts as c`. Dates are compared by the database (DATE against a
 * 'YYYY-MM-DD' parameter), never in JS: [start_date, end_date or ∞] overlaps [from or -∞, to or +∞].
 */
function inScope(scope: ContractScope) {
  return (eb: ExpressionBuilder<DB & { c: DB['contracts'] }, 'c'>) => {
    const conds = [eb('c.tenant', '=', scope.tenant)];
    if (scope.clientId !== undefined) conds.push(eb('c.client_id', '=', scope.clientId));
    if (scope.from !== undefined) conds.push(eb.or([eb('c.end_date', 'is', null), eb('c.end_date', '>=', scope.from)]));
    if (scope.to !== undefined) conds.push(eb('c.start_date', '<=', scope.to));
    return eb.and(conds);
  };
}

export interface ContractCounts {
  total: number;
  draft: number;
  active: number;
  terminated: number;
  expired: number;
  active_assignments: number;
}

/** One round trip: the in-scope contracts by status, and their active assignments. */
export async function contractCounts(db: Executor, scope: ContractScope): Promise<ContractCounts> {
  const row = await db
    .selectFrom('contracts as c')
    .where(inScope(scope))
    .select((eb) => [
      eb.fn.countAll<number>().as('total'),
      eb.fn.countAll<number>().filterWhere('c.status', '=', 'draft').as('draft'),
      eb.fn.countAll<number>().filterWhere('c.status', '=', 'active').as('active'),
      eb.fn.countAll<number>().filterWhere('c.status', '=', 'terminated').as('terminated'),
      eb.fn.countAll<number>().filterWhere('c.status', '=', 'expired').as('expired'),
      eb
        .selectFrom('client_contracts as cc')
        .innerJoin('contracts as c', (j) => j.onRef('c.tenant', '=', 'cc.tenant').onRef('c.contract_id', '=', 'cc.contract_id'))
        .where('cc.tenant', '=', scope.tenant)
        .where('cc.is_active', '=', true)
        .where('c.status', '=', 'active')
        .where(inScope(scope))
        .select((sub) => sub.fn.countAll<number>().as('n'))
        .as('active_assignments'),
    ])
    .executeTakeFirstOrThrow();
  return {
    total: Number(row.total),
    draft: Number(row.draft),
    active: Number(row.active),
    terminated: Number(row.terminated),
    expired: Number(row.expired),
    active_assignments: Number(row.active_assignments ?? 0),
  };
}

export interface LineGroupCount {
  contract_line_type: ContractLineType;
  billing_frequency: BillingFrequency;
  n: number;
}

/** The distinct lines attached to in-scope contracts, counted per (type, frequency). */
export async function attachedLineCounts(db: Executor, scope: ContractScope): Promise<LineGroupCount[]> {
  const rows = await db
    .selectFrom('contract_lines as l')
    .where('l.tenant', '=', scope.tenant)
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom('contract_line_attachments as a')
          .innerJoin('contracts as c', (j) => j.onRef('c.tenant', '=', 'a.tenant').onRef('c.contract_id', '=', 'a.contract_id'))
          .whereRef('a.tenant', '=', 'l.tenant')
          .whereRef('a.contract_line_id', '=', 'l.contract_line_id')
          .where(inScope(scope))
          .select(sql.lit(1).as('one')),
      ),
    )
    .groupBy(['l.contract_line_type', 'l.billing_frequency'])
    .select(['l.contract_line_type', 'l.billing_frequency', (eb) => eb.fn.countAll<number>().as('n')])
    .execute();
  return rows.map((r) => ({ ...r, n: Number(r.n) }));
}

export interface RevenueLine {
  contract_line_id: string;
  contract_line_name: string;
  contract_line_type: ContractLineType;
  billing_frequency: BillingFrequency;
  currency_code: string;
  /** Revenue rows (attachments) of this line, one per active in-scope contract. */
  contract_count: number;
  /** Σ of the rows' rates in cents, exact (a numeric sum read as text). */
  rate_sum: string;
}

/**
 * The revenue rows grouped per line: attachments of in-scope active contracts to active fixed lines.
 * A row's rate is the attachment's custom_rate_cents, else the line's config.base_rate_cents (absent = 0).
 * Every row of a line shares the line's frequency, so Σ(rate × k) over a line is k × Σ rate.
 */
export async function revenueLines(db: Executor, scope: ContractScope): Promise<RevenueLine[]> {
  const rate = sql<string>`coalesce(a.custom_rate_cents, (l.config ->> 'base_rate_cents')::bigint, 0)`;
  const rows = await db
    .selectFrom('contract_line_attachments as a')
    .innerJoin('contracts as c', (j) => j.onRef('c.tenant', '=', 'a.tenant').onRef('c.contract_id', '=', 'a.contract_id'))
    .innerJoin('contract_lines as l', (j) => j.onRef('l.tenant', '=', 'a.tenant').onRef('l.contract_line_id', '=', 'a.contract_line_id'))
    .where('a.tenant', '=', scope.tenant)
    .where(inScope(scope))
    .where('c.status', '=', 'active')
    .where('l.is_active', '=', true)
    .where('l.contract_line_type', '=', 'fixed')
    .groupBy(['l.contract_line_id', 'l.contract_line_name', 'l.contract_line_type', 'l.billing_frequency', 'l.currency_code'])
    .select([
      'l.contract_line_id',
      'l.contract_line_name',
      'l.contract_line_type',
      'l.billing_frequency',
      'l.currency_code',
      (eb) => eb.fn.countAll<number>().as('contract_count'),
      sql<string>`sum(${rate})::text`.as('rate_sum'),
    ])
    .execute();
  return rows.map((r) => ({ ...r, contract_count: Number(r.contract_count) }));
}
