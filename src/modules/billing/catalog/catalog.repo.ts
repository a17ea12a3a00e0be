import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import type { Executor } from '../../../platform/db/executor.ts';
import { likePattern } from '../../../platform/db/like.ts';
import type { BillingMethod, ItemKind, ServiceCatalogTable } from '../../../platform/db/schema.billing.ts';
import { validation } from '../../../platform/http/errors.ts';
import { defineList } from '../../../platform/http/list.ts';

export type CatalogRow = Selectable<ServiceCatalogTable> & { service_type_name: string };
export interface PriceRow {
  service_id: string;
  currency_code: string;
  rate: number;
}

function itemView(db: Executor, tenant: string) {
  return db
    .selectFrom('service_catalog as s')
    .innerJoin('service_types as t', (j) => j.onRef('t.tenant', '=', 's.tenant').onRef('t.service_type_id', '=', 's.custom_service_type_id'))
    .where('s.tenant', '=', tenant)
    .selectAll('s')
    .select('t.name as service_type_name');
}

export async function findCatalogItem(db: Executor, tenant: string, id: string, lock = false): Promise<CatalogRow | undefined> {
  let q = itemView(db, tenant).where('s.service_id', '=', id);
  if (lock) q = q.forUpdate('s');
  return q.executeTakeFirst();
}

export async function findItemIdBySku(db: Executor, tenant: string, sku: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('service_catalog')
    .select('service_id')
    .where('tenant', '=', tenant)
    .where(sql<string>`lower(sku)`, '=', sku.toLowerCase())
    .executeTakeFirst();
  return row?.service_id;
}

export interface CatalogFilter {
  kind?: ItemKind;
  search?: string;
  isActive?: boolean;
  typeId?: string;
  billingMethod?: BillingMethod;
  isLicense?: boolean;
}

export function catalogList(db: Executor, tenant: string, f: CatalogFilter) {
  const filtered = <Q extends ReturnType<typeof itemView> | ReturnType<typeof bare>>(q: Q): Q => {
    let r = q as ReturnType<typeof bare>;
    if (f.kind) r = r.where('s.item_kind', '=', f.kind);
    if (f.isActive !== undefined) r = r.where('s.is_active', '=', f.isActive);
    if (f.typeId) r = r.where('s.custom_service_type_id', '=', f.typeId);
    if (f.billingMethod) r = r.where('s.billing_method', '=', f.billingMethod);
    if (f.isLicense !== undefined) r = r.where('s.is_license', '=', f.isLicense);
    if (f.search) {
      const p = likePattern(f.search);
      r = r.where((eb) => eb.or([eb('s.service_name', 'ilike', p), eb('s.sku', 'ilike', p), eb('s.description', 'ilike', p)]));
    }
    return r as Q;
  };
  const bare = (d: Executor) => d.selectFrom('service_catalog as s').where('s.tenant', '=', tenant);
  return defineList({
    from: filtered(bare(db)),
    page: filtered(itemView(db, tenant)),
    sorts: {
      service_name: [sql`lower(s.service_name)`],
      billing_method: ['s.billing_method', sql`lower(s.service_name)`],
      default_rate: ['s.default_rate'],
      created_at: ['s.created_at'],
      updated_at: ['s.updated_at'],
    },
    defaultSort: 'service_name',
    defaultOrder: 'asc',
    tieBreaker: 's.service_id',
    updatedAt: 's.updated_at',
  });
}

export async function pricesOf(db: Executor, tenant: string, ids: readonly string[]): Promise<Map<string, PriceRow[]>> {
  const out = new Map<string, PriceRow[]>();
  if (ids.length === 0) return out;
  const rows = await db
    .selectFrom('service_prices')
    .select(['service_id', 'currency_code', 'rate'])
    .where('tenant', '=', tenant)
    .where('service_id', 'in', ids)
    .orderBy('currency_code')
    .execute();
  for (const r of rows) out.set(r.service_id, [...(out.get(r.service_id) ?? []), r]);
  return out;
}

export async function replacePrices(db: Executor, tenant: string, id: string, prices: readonly { currency_code: string; rate: number }[]): Promise<void> {
  await db.deleteFrom('service_prices').where('tenant', '=', tenant).where('service_id', '=', id).execute();
  if (prices.length > 0) {
    await db.insertInto('service_prices').values(prices.map((p) => ({ tenant, service_id: id, currency_code: p.currency_code, rate: p.rate }))).execute();
  }
}

export async function insertCatalogItem(db: Executor, row: Insertable<ServiceCatalogTable>): Promise<void> {
  await db.insertInto('service_catalog').values(row).execute();
}

export async function updateCatalogItem(db: Executor, tenant: string, id: string, set: Updateable<ServiceCatalogTable>): Promise<void> {
  await db.updateTable('service_catalog').set(set).where('tenant', '=', tenant).where('service_id', '=', id).execute();
}

export async function deleteCatalogItem(db: Executor, tenant: string, id: string): Promise<void> {
  await db.deleteFrom('service_catalog').where('tenant', '=', tenant).where('service_id', '=', id).execute();
}

/** What uses the item (a used item is deactivated, never deleted): contract lines, recorded usage, invoice and quote lines. */
export async function countUses(db: Executor, tenant: string, id: string): Promise<Record<'contract_lines' | 'usage_records' | 'invoice_items' | 'quote_items', number>> {
  const { rows } = await sql<Record<string, number | string>>`
    select (select count(*) from contract_line_services where tenant = ${tenant} and service_id = ${id}) as contract_lines,
           (select count(*) from usage_records where tenant = ${tenant} and service_id = ${id}) as usage_records,
           (select count(*) from invoice_items where tenant = ${tenant} and service_id = ${id}) as invoice_items,
           (select count(*) from quote_items where tenant = ${tenant} and service_id = ${id}) as quote_items
  `.execute(db);
  const n = (k: string) => Number(rows[0]?.[k] ?? 0);
  return { contract_lines: n('contract_lines'), usage_records: n('usage_records'), invoice_items: n('invoice_items'), quote_items: n('quote_items') };
}

/**
 * What a new invoice or quote line takes from a catalogue item: its name, kind, and its price in the
 * document's currency (the per-currency price, else the default rate when the item's own currency
 * matches; undefined when the item has no price in that currency). An id not in the tenant is a 400 at `path`.
 */
export async function catalogLineDefaults(db: Executor, tenant: string, serviceId: string, currency: string, path: string): Promise<{ name: string; item_kind: ItemKind; unit_price_cents: number | undefined }> {
  const item = await db
    .selectFrom('service_catalog as s')
    .leftJoin('service_prices as p', (j) => j.onRef('p.tenant', '=', 's.tenant').onRef('p.service_id', '=', 's.service_id').on('p.currency_code', '=', currency))
    .select(['s.service_name', 's.item_kind', 's.default_rate', 's.currency_code', 'p.rate'])
    .where('s.tenant', '=', tenant)
    .where('s.service_id', '=', serviceId)
    .executeTakeFirst();
  if (!item) throw validation(path, `no service or product '${serviceId}' in this tenant`);
  return { name: item.service_name, item_kind: item.item_kind, unit_price_cents: item.rate ?? (item.currency_code === currency ? item.default_rate : undefined) };
}
