import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import type { Executor } from '../../../platform/db/executor.ts';
import { likePattern } from '../../../platform/db/like.ts';
import type { ClientTaxSettingsTable, TaxRatesTable } from '../../../platform/db/schema.billing.ts';
import { defineList } from '../../../platform/http/list.ts';

export type TaxRateRow = Selectable<TaxRatesTable> & { client_count: number };

/** Clients using the rate as their default (correlated to the outer `r`). */
const clientCount = sql<number>`(select count(*) from client_tax_settings s where s.tenant = r.tenant and s.default_tax_rate_id = r.tax_rate_id)`;

export async function findTaxRate(db: Executor, tenant: string, id: string, lock = false): Promise<TaxRateRow | undefined> {
  let q = db.selectFrom('tax_rates as r').selectAll('r').select(clientCount.as('client_count')).where('r.tenant', '=', tenant).where('r.tax_rate_id', '=', id);
  if (lock) q = q.forUpdate('r');
  const row = await q.executeTakeFirst();
  return row && { ...row, client_count: Number(row.client_count) };
}

/** Several rates at once (for a calculation): id → row. */
export async function taxRatesById(db: Executor, tenant: string, ids: readonly string[]): Promise<Map<string, Selectable<TaxRatesTable>>> {
  if (ids.length === 0) return new Map();
  const rows = await db.selectFrom('tax_rates').selectAll().where('tenant', '=', tenant).where('tax_rate_id', 'in', ids).execute();
  return new Map(rows.map((r) => [r.tax_rate_id, r]));
}

export async function findTaxRateIdByName(db: Executor, tenant: string, name: string): Promise<string | undefined> {
  const row = await db.selectFrom('tax_rates').select('tax_rate_id').where('tenant', '=', tenant).where(sql<string>`lower(name)`, '=', name.toLowerCase()).executeTakeFirst();
  return row?.tax_rate_id;
}

export function taxRateList(db: Executor, tenant: string, f: { search?: string; region?: string; isActive?: boolean }) {
  const base = () => {
    let q = db.selectFrom('tax_rates as r').where('r.tenant', '=', tenant);
    if (f.search) q = q.where((eb) => eb.or([eb('r.name', 'ilike', likePattern(f.search!)), eb('r.region', 'ilike', likePattern(f.search!))]));
    if (f.region) q = q.where(sql<string>`lower(r.region)`, '=', f.region.toLowerCase());
    if (f.isActive !== undefined) q = q.where('r.is_active', '=', f.isActive);
    return q;
  };
  return defineList({
    from: base(),
    page: base().selectAll('r').select(clientCount.as('client_count')),
    sorts: { name: [sql`lower(r.name)`], percentage: ['r.percentage_thousandths', sql`lower(r.name)`], created_at: ['r.created_at'], updated_at: ['r.updated_at'] },
    defaultSort: 'name',
    defaultOrder: 'asc',
    tieBreaker: 'r.tax_rate_id',
    updatedAt: 'r.updated_at',
  });
}

export async function insertTaxRate(db: Executor, row: Insertable<TaxRatesTable>): Promise<void> {
  await db.insertInto('tax_rates').values(row).execute();
}

export async function updateTaxRate(db: Executor, tenant: string, id: string, set: Updateable<TaxRatesTable>): Promise<void> {
  await db.updateTable('tax_rates').set(set).where('tenant', '=', tenant).where('tax_rate_id', '=', id).execute();
}

export async function deleteTaxRate(db: Executor, tenant: string, id: string): Promise<void> {
  await db.deleteFrom('tax_rates').where('tenant', '=', tenant).where('tax_rate_id', '=', id).execute();
}

export async function findClientTaxSettings(db: Executor, tenant: string, clientId: string): Promise<Selectable<ClientTaxSettingsTable> | undefined> {
  return db.selectFrom('client_tax_settings').selectAll().where('tenant', '=', tenant).where('client_id', '=', clientId).executeTakeFirst();
}

export async function upsertClientTaxSettings(db: Executor, row: Insertable<ClientTaxSettingsTable>): Promise<void> {
  const { tenant: _t, client_id: _c, ...set } = row;
  await db.insertInto('client_tax_settings').values(row).onConflict((oc) => oc.columns(['tenant', 'client_id']).doUpdateSet(set)).execute();
}

/** Invoice and quote lines priced with the rate (they keep the percentage, but name the rate). */
export async function countPricedLines(db: Executor, tenant: string, id: string): Promise<number> {
  const { rows } = await sql<{ n: number | string }>`
    select (select count(*) from invoice_items where tenant = ${tenant} and tax_rate_id = ${id})
         + (select count(*) from quote_items where tenant = ${tenant} and tax_rate_id = ${id}) as n
  `.execute(db);
  return Number(rows[0]?.n ?? 0);
}
