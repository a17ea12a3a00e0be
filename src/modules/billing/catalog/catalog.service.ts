import type { Kysely, Transaction } from 'kysely';
import type { Actor } from '../../../platform/auth/context.ts';
import { withTransaction, type Executor } from '../../../platform/db/executor.ts';
import type { DB } from '../../../platform/db/schema.ts';
import type { ItemKind } from '../../../platform/db/schema.billing.ts';
import { assertIfMatch } from '../../../platform/http/etag.ts';
import { conflict, notFound, unprocessable, validation } from '../../../platform/http/errors.ts';
import { listPage } from '../../../platform/http/list.ts';
import { optionalText, requiredText } from '../../../platform/http/text.ts';
import { newId } from '../../../platform/ids.ts';
import { syncSearch } from '../../../platform/search/writer.ts';
import { iso } from '../../../platform/time.ts';
import { emitBillingEvent } from '../billing.events.ts';
import { currencyCode, tenantCurrency } from '../money.ts';
import { findServiceType } from '../service-types/types.repo.ts';
import {
  catalogList,
  countUses,
  deleteCatalogItem,
  findCatalogItem,
  findItemIdBySku,
  insertCatalogItem,
  pricesOf,
  replacePrices,
  updateCatalogItem,
  type CatalogRow,
  type PriceRow,
} from './catalog.repo.ts';
import type { CatalogItem, CreateServiceBody, ListServicesQuery, UpdateServiceBody } from './catalog.schemas.ts';

/** What both kinds' bodies carry (a product's body is a service body whose billing method is always usage). */
type CreateBody = Omit<CreateServiceBody, 'billing_method'> & { billing_method?: CreateServiceBody['billing_method'] };
type UpdateBody = UpdateServiceBody;
type ListQuery = ListServicesQuery & { is_license?: boolean };

const NOUN: Record<ItemKind, string> = { service: 'Service', product: 'Product' };

export function toCatalogItem(r: CatalogRow, prices: readonly PriceRow[]): CatalogItem {
  return {
    service_id: r.service_id,
    item_kind: r.item_kind,
    service_name: r.service_name,
    custom_service_type_id: r.custom_service_type_id,
    service_type_name: r.service_type_name,
    billing_method: r.billing_method,
    unit_of_measure: r.unit_of_measure,
    default_rate: r.default_rate,
    currency_code: r.currency_code,
    prices: prices.map((p) => ({ currency_code: p.currency_code, rate: p.rate })),
    description: r.description,
    sku: r.sku,
    barcode: r.barcode,
    cost: r.cost,
    cost_currency: r.cost_currency,
    vendor: r.vendor,
    manufacturer: r.manufacturer,
    product_category: r.product_category,
    is_license: r.is_license,
    license_term: r.license_term,
    license_billing_cadence: r.license_billing_cadence,
    is_active: r.is_active,
    created_at: iso(r.created_at),
    updated_at: iso(r.updated_at),
  };
}

/** Other-currency prices: known codes, one per currency, none in the item's own currency (that is default_rate). */
function checkPrices(prices: readonly { currency_code: string; rate: number }[], own: string): { currency_code: string; rate: number }[] {
  const seen = new Set<string>();
  return prices.map((p, i) => {
    const code = currencyCode(p.currency_code, `body.prices.${i}.currency_code`);
    if (code === own) throw validation(`body.prices.${i}.currency_code`, `${code} is the item's own currency; its price is default_rate`);
    if (seen.has(code)) throw validation(`body.prices.${i}.currency_code`, `${code} is listed twice`);
    seen.add(code);
    return { currency_code: code, rate: p.rate };
  });
}

async function assertTypeUsable(db: Executor, tenant: string, typeId: string): Promise<void> {
  const type = await findServiceType(db, tenant, typeId);
  if (!type) throw validation('body.custom_service_type_id', `no service type '${typeId}' in this tenant`);
  if (!type.is_active) throw unprocessable(`Service type '${type.name}' is inactive; activate it or choose another`, { custom_service_type_id: typeId });
}

async function assertSkuFree(db: Executor, tenant: string, sku: string | null | undefined, self?: string): Promise<void> {
  if (!sku) return;
  const existing = await findItemIdBySku(db, tenant, sku);
  if (existing && existing !== self) throw conflict(`SKU '${sku}' is already used by catalogue item '${existing}' (SKUs are unique per tenant, any case)`, { service_id: existing });
}

/** The catalogue of one kind: services (fixed, hourly or usage) or products (always usage). */
export function createCatalogService(deps: { db: Kysely<DB> }, kind: ItemKind) {
  const { db } = deps;
  const noun = NOUN[kind];

  async function view(ex: Executor, tenant: string, id: string, lock = false): Promise<CatalogItem> {
    const row = await findCatalogItem(ex, tenant, id, lock);
    if (!row || row.item_kind !== kind) throw notFound(noun, id);
    return toCatalogItem(row, (await pricesOf(ex, tenant, [id])).get(id) ?? []);
  }

  async function written(trx: Transaction<DB>, tenant: string, id: string): Promise<CatalogItem> {
    await syncSearch(trx, tenant, 'service_catalog', [id]);
    return view(trx, tenant, id);
  }

  return {
    list(actor: Actor, query: ListQuery) {
      const listKind = kind === 'product' ? 'product' : query.item_kind === 'any' ? undefined : (query.item_kind ?? 'service');
      const list = catalogList(db, actor.tenant, {
        kind: listKind,
        search: query.search?.trim() || undefined,
        isActive: query.is_active,
        typeId: query.custom_service_type_id,
        billingMethod: query.billing_method,
        isLicense: query.is_license,
      });
      return listPage(query, list, async (rows) => {
        const prices = await pricesOf(db, actor.tenant, rows.map((r) => r.service_id));
        return rows.map((r) => toCatalogItem(r, prices.get(r.service_id) ?? []));
      });
    },

    get: (actor: Actor, id: string): Promise<CatalogItem> => view(db, actor.tenant, id),

    async create(actor: Actor, body: CreateBody): Promise<CatalogItem> {
      const name = requiredText(body.service_name, 'body.service_name');
      const unit = requiredText(body.unit_of_measure, 'body.unit_of_measure');
      const sku = optionalText(body.sku) ?? null;
      return withTransaction(db, async (trx) => {
        await assertTypeUsable(trx, actor.tenant, body.custom_service_type_id);
        await assertSkuFree(trx, actor.tenant, sku);
        const currency = body.currency_code ? currencyCode(body.currency_code, 'body.currency_code') : await tenantCurrency(trx, actor.tenant);
        const prices = checkPrices(body.prices ?? [], currency);
        const cost = body.cost ?? null;
        const id = newId();
        await insertCatalogItem(trx, {
          tenant: actor.tenant,
          service_id: id,
          item_kind: kind,
          service_name: name,
          custom_service_type_id: body.custom_service_type_id,
          billing_method: kind === 'product' ? 'usage' : body.billing_method!,
          unit_of_measure: unit,
          default_rate: body.default_rate ?? 0,
          currency_code: currency,
          description: optionalText(body.description) ?? null,
          sku,
          barcode: optionalText(body.barcode) ?? null,
          cost,
          cost_currency: body.cost_currency ? currencyCode(body.cost_currency, 'body.cost_currency') : cost === null ? null : currency,
          vendor: optionalText(body.vendor) ?? null,
          manufacturer: optionalText(body.manufacturer) ?? null,
          product_category: optionalText(body.product_category) ?? null,
          is_license: body.is_license ?? false,
          license_term: optionalText(body.license_term) ?? null,
          license_billing_cadence: optionalText(body.license_billing_cadence) ?? null,
          is_active: body.is_active ?? true,
        });
        await replacePrices(trx, actor.tenant, id, prices);
        await emitBillingEvent(trx, actor.tenant, kind, 'created', id, { item_kind: kind });
        return written(trx, actor.tenant, id);
      });
    },

    async update(actor: Actor, id: string, body: UpdateBody, ifMatch?: string): Promise<CatalogItem> {
      return withTransaction(db, async (trx) => {
        const current = await view(trx, actor.tenant, id, true);
        assertIfMatch(ifMatch, current);
        if (body.custom_service_type_id !== undefined && body.custom_service_type_id !== current.custom_service_type_id) {
          await assertTypeUsable(trx, actor.tenant, body.custom_service_type_id);
        }
        const sku = body.sku === undefined ? undefined : (optionalText(body.sku) ?? null);
        await assertSkuFree(trx, actor.tenant, sku, id);
        const currency = body.currency_code === undefined ? current.currency_code : currencyCode(body.currency_code, 'body.currency_code');
        // A currency change re-checks the kept prices too: none may be in the new own currency.
        const prices = body.prices !== undefined || currency !== current.currency_code ? checkPrices(body.prices ?? current.prices, currency) : undefined;
        await updateCatalogItem(trx, actor.tenant, id, {
          service_name: body.service_name === undefined ? undefined : requiredText(body.service_name, 'body.service_name'),
          custom_service_type_id: body.custom_service_type_id,
          billing_method: kind === 'product' ? undefined : body.billing_method,
          unit_of_measure: body.unit_of_measure === undefined ? undefined : requiredText(body.unit_of_measure, 'body.unit_of_measure'),
          default_rate: body.default_rate,
          currency_code: body.currency_code === undefined ? undefined : currency,
          description: optionalText(body.description),
          sku,
          barcode: optionalText(body.barcode),
          cost: body.cost,
          cost_currency: body.cost_currency === undefined ? undefined : body.cost_currency === null ? null : currencyCode(body.cost_currency, 'body.cost_currency'),
          vendor: optionalText(body.vendor),
          manufacturer: optionalText(body.manufacturer),
          product_category: optionalText(body.product_category),
          is_license: body.is_license,
          license_term: optionalText(body.license_term),
          license_billing_cadence: optionalText(body.license_billing_cadence),
          is_active: body.is_active,
          updated_at: new Date(),
        });
        if (prices) await replacePrices(trx, actor.tenant, id, prices);
        await emitBillingEvent(trx, actor.tenant, kind, 'updated', id, { item_kind: kind, changed_fields: Object.keys(body).sort() });
        return written(trx, actor.tenant, id);
      });
    },

    /** An item a contract line or recorded usage uses stays (409: deactivate it instead), so what was sold keeps its record. */
    async remove(actor: Actor, id: string, ifMatch?: string): Promise<void> {
      await withTransaction(db, async (trx) => {
        const current = await view(trx, actor.tenant, id, true);
        assertIfMatch(ifMatch, current);
        const uses = await countUses(trx, actor.tenant, id);
        if (Object.values(uses).some((n) => n > 0)) {
          const used = Object.entries(uses).filter(([, n]) => n > 0).map(([what, n]) => `${n} ${what.replace('_', ' ')}`).join(', ');
          throw conflict(`${noun} '${current.service_name}' is used (${used}); deactivate it instead (is_active: false)`, uses);
        }
        await deleteCatalogItem(trx, actor.tenant, id);
        await emitBillingEvent(trx, actor.tenant, kind, 'deleted', id, { item_kind: kind });
        await syncSearch(trx, actor.tenant, 'service_catalog', [id]);
      });
    },
  };
}

export type CatalogService = ReturnType<typeof createCatalogService>;
