import { sql, type Transaction } from 'kysely';
import type { Executor } from '../../../../platform/db/executor.ts';
import type { DB } from '../../../../platform/db/schema.ts';
import type { ContractLineType } from '../../../../platform/db/schema.billing.ts';
import type { LineConfig } from '../../contract-lines/lines.config.ts';
import type { Period } from './generate.lines.ts';

/**
 * The set-based reads of invoice generation: each is one statement for the whole run, whatever the number
 * of clients (no per-client query). The bulk outbox write is `emitBillingEvents` (billing.events.ts).
 */

/** Serialises the tenant's generations until the transaction ends: two runs cannot both bill a period. */
export async function lockInvoiceGeneration(trx: Transaction<DB>, tenant: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtext(${`invoice-generation:${tenant}`}))`.execute(trx);
}

export interface AssignmentLineRow {
  client_contract_id: string;
  contract_id: string;
  client_id: string;
  client_name: string;
  payment_terms: string | null;
  billing_profile_id: string;
  billing_profile_name: string;
  cc_start: string;
  cc_end: string | null;
  contract_start: string;
  contract_end: string | null;
  currency_code: string;
  /** null: the contract has no active line attached (the assignment still names its group). */
  contract_line_id: string | null;
  contract_line_name: string | null;
  contract_line_type: ContractLineType | null;
  config: LineConfig | null;
  custom_rate_cents: number | null;
}

/**
 * Every active assignment (client_contracts.is_active, contract 'active') overlapping the period, with
 * its contract's active attached lines (one row per line; one row with null line fields when it has
 * none). Merged-away clients are left out. Ordered by client, profile, currency, contract, display order.
 */
export async function assignmentLines(db: Executor, tenant: string, period: Period, f: { clientId?: string; profileId?: string }): Promise<AssignmentLineRow[]> {
  let q = db
    .selectFrom('client_contracts as cc')
    .innerJoin('contracts as c', (j) => j.onRef('c.tenant', '=', 'cc.tenant').onRef('c.contract_id', '=', 'cc.contract_id'))
    .innerJoin('client_billing_profiles as bp', (j) => j.onRef('bp.tenant', '=', 'cc.tenant').onRef('bp.billing_profile_id', '=', 'cc.billing_profile_id'))
    .innerJoin('clients as cl', (j) => j.onRef('cl.tenant', '=', 'cc.tenant').onRef('cl.client_id', '=', 'cc.client_id'))
    .leftJoin(
      (eb) => eb
        .selectFrom('contract_line_attachments as a')
        .innerJoin('contract_lines as l', (j) => j.onRef('l.tenant', '=', 'a.tenant').onRef('l.contract_line_id', '=', 'a.contract_line_id'))
        .where('a.tenant', '=', tenant)
        .where('l.is_active', '=', true)
        .select(['a.contract_id', 'a.contract_line_id', 'a.custom_rate_cents', 'a.display_order', 'l.contract_line_name', 'l.contract_line_type', 'l.config'])
        .as('al'),
      (j) => j.onRef('al.contract_id', '=', 'cc.contract_id'),
    )
    .where('cc.tenant', '=', tenant)
    .where('cc.is_active', '=', true)
    .where('c.status', '=', 'active')
    .where('cc.start_date', '<=', period.end)
    .where((eb) => eb.or([eb('cc.end_date', 'is', null), eb('cc.end_date', '>=', period.start)]))
    .where('c.start_date', '<=', period.end)
    .where((eb) => eb.or([eb('c.end_date', 'is', null), eb('c.end_date', '>=', period.start)]))
    .where('cl.merged_into_client_id', 'is', null);
  if (f.clientId !== undefined) q = q.where('cc.client_id', '=', f.clientId);
  if (f.profileId !== undefined) q = q.where('cc.billing_profile_id', '=', f.profileId);
  const rows = await q
    .select([
      'cc.client_contract_id', 'cc.contract_id', 'cc.client_id', 'cl.client_name', 'cl.payment_terms', 'cc.billing_profile_id', 'bp.name as billing_profile_name',
      'cc.start_date as cc_start', 'cc.end_date as cc_end', 'c.start_date as contract_start', 'c.end_date as contract_end', 'c.currency_code',
      'al.contract_line_id', 'al.contract_line_name', 'al.contract_line_type', 'al.config', 'al.custom_rate_cents',
    ])
    .orderBy(sql`lower(cl.client_name)`)
    .orderBy('cc.client_id')
    .orderBy('cc.billing_profile_id')
    .orderBy('c.currency_code')
    .orderBy('c.start_date')
    .orderBy('cc.contract_id')
    .orderBy('al.display_order')
    .orderBy('al.contract_line_name')
    .orderBy('al.contract_line_id')
    .execute();
  return rows as AssignmentLineRow[];
}

/** The catalogue items on each line: line id → service ids (sorted). */
export async function servicesOfLines(db: Executor, tenant: string, lineIds: readonly string[]): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  if (lineIds.length === 0) return out;
  const { rows } = await sql<{ contract_line_id: string; service_id: string }>`
    select contract_line_id, service_id from contract_line_services
    where tenant = ${tenant} and contract_line_id = any(${lineIds}::uuid[])
    order by contract_line_id, service_id
  `.execute(db);
  for (const r of rows) {
    const list = out.get(r.contract_line_id);
    if (list) list.push(r.service_id);
    else out.set(r.contract_line_id, [r.service_id]);
  }
  return out;
}

/** A window of usage to sum: the client's usage of the line's services between two days (inclusive). */
export interface UsageWindow {
  client_id: string;
  contract_line_id: string;
  period: Period;
}

/**
 * Σ usage_records.quantity_units (ten-thousandths) per window, in one grouped statement; windows travel as
 * parallel arrays. The result is indexed like `windows` (0 when nothing was recorded).
 */
export async function usageSums(db: Executor, tenant: string, windows: readonly UsageWindow[]): Promise<bigint[]> {
  const sums = windows.map(() => 0n);
  if (windows.length === 0) return sums;
  const { rows } = await sql<{ k: number; units: string }>`
    select w.k, sum(u.quantity_units)::text as units
    from unnest(
      ${windows.map((_, i) => i)}::integer[], ${windows.map((w) => w.client_id)}::uuid[], ${windows.map((w) => w.contract_line_id)}::uuid[],
      ${windows.map((w) => w.period.start)}::date[], ${windows.map((w) => w.period.end)}::date[]
    ) as w (k, client_id, contract_line_id, from_date, to_date)
    join contract_line_services s on s.tenant = ${tenant} and s.contract_line_id = w.contract_line_id
    join usage_records u on u.tenant = ${tenant} and u.client_id = w.client_id and u.service_id = s.service_id
      and u.usage_date between w.from_date and w.to_date
    group by w.k
  `.execute(db);
  for (const r of rows) sums[Number(r.k)] = BigInt(r.units);
  return sums;
}

/** Exemption and default rate of each client that has settings (absent: taxable, no default). */
export async function clientTaxSettings(db: Executor, tenant: string, clientIds: readonly string[]): Promise<Map<string, { is_tax_exempt: boolean; default_tax_rate_id: string | null }>> {
  if (clientIds.length === 0) return new Map();
  const { rows } = await sql<{ client_id: string; is_tax_exempt: boolean; default_tax_rate_id: string | null }>`
    select client_id, is_tax_exempt, default_tax_rate_id from client_tax_settings
    where tenant = ${tenant} and client_id = any(${clientIds}::uuid[])
  `.execute(db);
  return new Map(rows.map((r) => [r.client_id, { is_tax_exempt: r.is_tax_exempt, default_tax_rate_id: r.default_tax_rate_id }]));
}

export interface GeneratedInvoiceRow {
  invoice_id: string;
  invoice_number: string | null;
  billing_profile_id: string;
  billing_profile_name: string;
  currency_code: string;
  period_start: string;
  period_end: string;
}

/** Generated, non-void invoices whose period overlaps `period` (optionally of some profiles only). */
export async function overlappingGenerated(db: Executor, tenant: string, period: Period, profileIds?: readonly string[]): Promise<GeneratedInvoiceRow[]> {
  if (profileIds && profileIds.length === 0) return [];
  let q = db
    .selectFrom('invoices as i')
    .innerJoin('client_billing_profiles as bp', (j) => j.onRef('bp.tenant', '=', 'i.tenant').onRef('bp.billing_profile_id', '=', 'i.billing_profile_id'))
    .where('i.tenant', '=', tenant)
    .where('i.is_generated', '=', true)
    .where('i.status', '<>', 'void')
    .where('i.period_start', '<=', period.end)
    .where('i.period_end', '>=', period.start);
  if (profileIds) q = q.where('i.billing_profile_id', 'in', profileIds);
  const rows = await q
    .select(['i.invoice_id', 'i.invoice_number', 'i.billing_profile_id', 'bp.name as billing_profile_name', 'i.currency_code', 'i.period_start', 'i.period_end'])
    .orderBy('i.period_start')
    .orderBy('i.invoice_id')
    .execute();
  return rows as GeneratedInvoiceRow[];
}

export interface ProfileRow {
  billing_profile_id: string;
  billing_profile_name: string;
  client_id: string;
  client_name: string;
  is_active: boolean;
}

/** A billing profile of the tenant with its client (for the body's billing_profile_id). */
export async function findProfile(db: Executor, tenant: string, profileId: string): Promise<ProfileRow | undefined> {
  return profilesQuery(db, tenant).where('bp.billing_profile_id', '=', profileId).executeTakeFirst();
}

/** A client's billing profiles (for a targeted run's "nothing to bill" answers). */
export function profilesOfClient(db: Executor, tenant: string, clientId: string): Promise<ProfileRow[]> {
  return profilesQuery(db, tenant).where('bp.client_id', '=', clientId).orderBy('bp.is_default', 'desc').orderBy('bp.name').execute();
}

function profilesQuery(db: Executor, tenant: string) {
  return db
    .selectFrom('client_billing_profiles as bp')
    .innerJoin('clients as cl', (j) => j.onRef('cl.tenant', '=', 'bp.tenant').onRef('cl.client_id', '=', 'bp.client_id'))
    .where('bp.tenant', '=', tenant)
    .select(['bp.billing_profile_id', 'bp.name as billing_profile_name', 'bp.client_id', 'cl.client_name', 'bp.is_active']);
}
