import { sql } from 'kysely';
import type { Executor } from '../../../platform/db/executor.ts';
import type { BillingFrequency, ContractLineType } from '../../../platform/db/schema.billing.ts';
import { halfEven } from './generators/common.ts';

/**
 * The read-only signal queries the suggestion generators and the QBR pack share, over other areas' tables
 * (billing contracts and invoices, assets, tickets). Every query sees one tenant, only live clients (not
 * merged away, not inactive), and optionally one client; nothing here writes.
 */
export interface SignalScope {
  tenant: string;
  /** One client only (the QBR pack); absent = every client of the tenant. */
  clientId?: string;
}

interface ClientColumns {
  client_id: string;
  client_name: string;
  default_currency_code: string;
}

/** Billing periods per year of each frequency: a fixed line's monthly value is rate × periods / 12. */
const PERIODS_PER_YEAR: Record<BillingFrequency, bigint> = {
  weekly: 52n,
  'bi-weekly': 26n,
  monthly: 12n,
  quarterly: 4n,
  'semi-annually': 2n,
  annually: 1n,
};

const toBig = (v: unknown): bigint => BigInt(String(v ?? 0).split('.')[0]!);

export interface RenewalSignal extends ClientColumns {
  client_contract_id: string;
  contract_id: string;
  contract_name: string;
  /** 'YYYY-MM-DD'. */
  end_date: string;
  currency_code: string;
  /** The monthly value of the contract's active fixed lines (0 when it has none). */
  mrr_cents: number;
  fixed_line_count: number;
}

/** Active client contracts (contract active, assignment active) whose end date falls in [from, until]. */
export async function renewalSignals(db: Executor, scope: SignalScope, from: string, until: string): Promise<RenewalSignal[]> {
  let q = db
    .selectFrom('client_contracts as cc')
    .innerJoin('contracts as c', (j) => j.onRef('c.tenant', '=', 'cc.tenant').onRef('c.contract_id', '=', 'cc.contract_id'))
    .innerJoin('clients as cl', (j) => j.onRef('cl.tenant', '=', 'cc.tenant').onRef('cl.client_id', '=', 'cc.client_id'))
    .select(['cl.client_id', 'cl.client_name', 'cl.default_currency_code', 'cc.client_contract_id', 'c.contract_id', 'c.contract_name', 'cc.end_date', 'c.currency_code'])
    .where('cc.tenant', '=', scope.tenant)
    .where('c.status', '=', 'active')
    .where('cc.is_active', '=', true)
    .where('cc.end_date', 'is not', null)
    .where('cc.end_date', '>=', from)
    .where('cc.end_date', '<=', until)
    .where('cl.merged_into_client_id', 'is', null)
    .where('cl.is_inactive', '=', false);
  if (scope.clientId) q = q.where('cc.client_id', '=', scope.clientId);
  const rows = await q.orderBy('cc.end_date').orderBy('cc.client_contract_id').execute();
  if (rows.length === 0) return [];
  const lines = await db
    .selectFrom('contract_line_attachments as a')
    .innerJoin('contract_lines as l', (j) => j.onRef('l.tenant', '=', 'a.tenant').onRef('l.contract_line_id', '=', 'a.contract_line_id'))
    .select(['a.contract_id', 'a.custom_rate_cents', 'l.contract_line_type', 'l.billing_frequency', 'l.config', 'l.is_active'])
    .where('a.tenant', '=', scope.tenant)
    .where('a.contract_id', 'in', [...new Set(rows.map((r) => r.contract_id))])
    .execute();
  const yearly = new Map<string, { sum: bigint; count: number }>();
  for (const l of lines) {
    const rate = fixedRate(l.contract_line_type, l.is_active, l.custom_rate_cents, l.config);
    if (rate === null) continue;
    const acc = yearly.get(l.contract_id) ?? { sum: 0n, count: 0 };
    acc.sum += rate * PERIODS_PER_YEAR[l.billing_frequency];
    acc.count += 1;
    yearly.set(l.contract_id, acc);
  }
  return rows.map((r) => {
    const y = yearly.get(r.contract_id);
    return { ...r, end_date: r.end_date!, mrr_cents: y ? halfEven(y.sum, 12n) : 0, fixed_line_count: y?.count ?? 0 };
  });
}

/** The per-period price of an active fixed line (the contract's custom rate, else the line's base rate); null for other lines. */
function fixedRate(type: ContractLineType, active: boolean, custom: number | null, config: unknown): bigint | null {
  if (type !== 'fixed' || !active) return null;
  if (custom !== null) return BigInt(custom);
  const parsed = (typeof config === 'string' ? JSON.parse(config) : config) as { base_rate_cents?: unknown } | null;
  const base = parsed?.base_rate_cents;
  return typeof base === 'number' && Number.isSafeInteger(base) && base >= 0 ? BigInt(base) : null;
}

export interface TmSignal extends ClientColumns {
  currency_code: string;
  invoice_count: number;
  total_cents: number;
}

/**
 * Hand-made (time-and-materials) invoice totals per client and currency, issued in (after, until]: invoices
 * not generated from contracts, finalized and not void (finalized, sent, partially paid, paid).
 */
export async function tmSignals(db: Executor, scope: SignalScope, after: string, until: string): Promise<TmSignal[]> {
  let q = db
    .selectFrom('invoices as i')
    .innerJoin('clients as cl', (j) => j.onRef('cl.tenant', '=', 'i.tenant').onRef('cl.client_id', '=', 'i.client_id'))
    .select(['cl.client_id', 'cl.client_name', 'cl.default_currency_code', 'i.currency_code'])
    .select((eb) => [eb.fn.countAll().as('invoice_count'), eb.fn.sum('i.total_cents').as('total_cents')])
    .where('i.tenant', '=', scope.tenant)
    .where('i.is_generated', '=', false)
    .where('i.status', 'in', ['finalized', 'sent', 'partially_paid', 'paid'])
    .where('i.issue_date', '>', after)
    .where('i.issue_date', '<=', until)
    .where('cl.merged_into_client_id', 'is', null)
    .where('cl.is_inactive', '=', false)
    .groupBy(['cl.client_id', 'cl.client_name', 'cl.default_currency_code', 'i.currency_code']);
  if (scope.clientId) q = q.where('i.client_id', '=', scope.clientId);
  const rows = await q.orderBy('cl.client_id').orderBy('i.currency_code').execute();
  return rows.map((r) => ({ ...r, invoice_count: Number(r.invoice_count), total_cents: Number(toBig(r.total_cents)) }));
}

export interface WhitespaceSignal extends ClientColumns {
  service_type_id: string;
  service_type_name: string;
  /** Clients with an active contract carrying a service of this type. */
  adopting_clients: number;
  /** Clients with an active contract (the population adoption is measured against). */
  clients_with_active_contracts: number;
}

/**
 * Service types (the catalogue's categories) carried by the active contracts of at least half of the
 * clients with an active contract, each paired with a client of that population whose active contracts
 * carry none of it. Adoption is always measured over the whole tenant; `scope.clientId` only narrows the gaps.
 */
export async function whitespaceSignals(db: Executor, scope: SignalScope, today: string): Promise<WhitespaceSignal[]> {
  const activeContracts = () => db
    .selectFrom('client_contracts as cc')
    .innerJoin('contracts as c', (j) => j.onRef('c.tenant', '=', 'cc.tenant').onRef('c.contract_id', '=', 'cc.contract_id'))
    .innerJoin('clients as cl', (j) => j.onRef('cl.tenant', '=', 'cc.tenant').onRef('cl.client_id', '=', 'cc.client_id'))
    .where('cc.tenant', '=', scope.tenant)
    .where('c.status', '=', 'active')
    .where('cc.is_active', '=', true)
    .where((eb) => eb.or([eb('cc.end_date', 'is', null), eb('cc.end_date', '>=', today)]))
    .where('cl.merged_into_client_id', 'is', null)
    .where('cl.is_inactive', '=', false);
  const population = await activeContracts()
    .select(['cl.client_id', 'cl.client_name', 'cl.default_currency_code'])
    .distinct()
    .orderBy('cl.client_id')
    .execute();
  if (population.length < 2) return [];
  const adoption = await activeContracts()
    .innerJoin('contract_line_attachments as a', (j) => j.onRef('a.tenant', '=', 'c.tenant').onRef('a.contract_id', '=', 'c.contract_id'))
    .innerJoin('contract_lines as l', (j) => j.onRef('l.tenant', '=', 'a.tenant').onRef('l.contract_line_id', '=', 'a.contract_line_id'))
    .innerJoin('contract_line_services as ls', (j) => j.onRef('ls.tenant', '=', 'l.tenant').onRef('ls.contract_line_id', '=', 'l.contract_line_id'))
    .innerJoin('service_catalog as s', (j) => j.onRef('s.tenant', '=', 'ls.tenant').onRef('s.service_id', '=', 'ls.service_id'))
    .innerJoin('service_types as st', (j) => j.onRef('st.tenant', '=', 's.tenant').onRef('st.service_type_id', '=', 's.custom_service_type_id'))
    .where('l.is_active', '=', true)
    .where('st.is_active', '=', true)
    .select(['cl.client_id', 'st.service_type_id', 'st.name as service_type_name'])
    .distinct()
    .execute();
  const adopters = new Map<string, { name: string; clients: Set<string> }>();
  for (const a of adoption) {
    const entry = adopters.get(a.service_type_id) ?? { name: a.service_type_name, clients: new Set<string>() };
    entry.clients.add(a.client_id);
    adopters.set(a.service_type_id, entry);
  }
  const out: WhitespaceSignal[] = [];
  const types = [...adopters.entries()].sort(([a], [b]) => a.localeCompare(b));
  for (const client of population) {
    if (scope.clientId && client.client_id !== scope.clientId) continue;
    for (const [typeId, t] of types) {
      if (t.clients.size * 2 < population.length || t.clients.has(client.client_id)) continue;
      out.push({ ...client, service_type_id: typeId, service_type_name: t.name, adopting_clients: t.clients.size, clients_with_active_contracts: population.length });
    }
  }
  return out;
}

export interface AssetAgingSignal extends ClientColumns {
  assets: { asset_id: string; asset_tag: string; name: string; since: string }[];
}

/**
 * In-service assets (not retired or lost) whose purchase date — or, without one, warranty end — is on or
 * before `cutoff`, grouped per client, oldest first.
 */
export async function assetAgingSignals(db: Executor, scope: SignalScope, cutoff: string): Promise<AssetAgingSignal[]> {
  const since = sql<string>`coalesce(a.purchase_date, a.warranty_end_date)`;
  let q = db
    .selectFrom('assets as a')
    .innerJoin('clients as cl', (j) => j.onRef('cl.tenant', '=', 'a.tenant').onRef('cl.client_id', '=', 'a.client_id'))
    .select(['cl.client_id', 'cl.client_name', 'cl.default_currency_code', 'a.asset_id', 'a.asset_tag', 'a.name', since.as('since')])
    .where('a.tenant', '=', scope.tenant)
    .where('a.status', 'not in', ['retired', 'lost'])
    .where(since, '<=', cutoff)
    .where('cl.merged_into_client_id', 'is', null)
    .where('cl.is_inactive', '=', false);
  if (scope.clientId) q = q.where('a.client_id', '=', scope.clientId);
  const rows = await q.orderBy('cl.client_id').orderBy(since).orderBy('a.asset_id').execute();
  const by = new Map<string, AssetAgingSignal>();
  for (const r of rows) {
    const entry = by.get(r.client_id) ?? { client_id: r.client_id, client_name: r.client_name, default_currency_code: r.default_currency_code, assets: [] };
    entry.assets.push({ asset_id: r.asset_id, asset_tag: r.asset_tag, name: r.name, since: dateText(r.since) });
    by.set(r.client_id, entry);
  }
  return [...by.values()];
}

/** A DATE as 'YYYY-MM-DD' whichever way the driver hands it back (an expression's value may be a Date). */
const dateText = (v: unknown): string => (v instanceof Date ? v.toISOString().slice(0, 10) : String(v).slice(0, 10));

export interface TicketTrendSignal extends ClientColumns {
  recent_count: number;
  prior_count: number;
}

/** Tickets opened per client in [split, until) against [since, split); only clients with any in the window. */
export async function ticketTrendSignals(db: Executor, scope: SignalScope, since: Date, split: Date, until: Date): Promise<TicketTrendSignal[]> {
  let q = db
    .selectFrom('tickets as t')
    .innerJoin('clients as cl', (j) => j.onRef('cl.tenant', '=', 't.tenant').onRef('cl.client_id', '=', 't.client_id'))
    .select(['cl.client_id', 'cl.client_name', 'cl.default_currency_code'])
    .select([
      sql<number | string>`count(*) filter (where t.entered_at >= ${split})`.as('recent_count'),
      sql<number | string>`count(*) filter (where t.entered_at < ${split})`.as('prior_count'),
    ])
    .where('t.tenant', '=', scope.tenant)
    .where('t.entered_at', '>=', since)
    .where('t.entered_at', '<', until)
    .where('cl.merged_into_client_id', 'is', null)
    .where('cl.is_inactive', '=', false)
    .groupBy(['cl.client_id', 'cl.client_name', 'cl.default_currency_code']);
  if (scope.clientId) q = q.where('t.client_id', '=', scope.clientId);
  const rows = await q.orderBy('cl.client_id').execute();
  return rows.map((r) => ({ ...r, recent_count: Number(r.recent_count), prior_count: Number(r.prior_count) }));
}
