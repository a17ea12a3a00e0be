import type { Kysely, Selectable } from 'kysely';
import type { Actor } from '../../../platform/auth/context.ts';
import { withTransaction, type Executor } from '../../../platform/db/executor.ts';
import type { DB } from '../../../platform/db/schema.ts';
import type { ClientTaxSettingsTable, TaxRatesTable } from '../../../platform/db/schema.billing.ts';
import { assertIfMatch } from '../../../platform/http/etag.ts';
import { conflict, notFound, unprocessable, validation } from '../../../platform/http/errors.ts';
import { listPage } from '../../../platform/http/list.ts';
import { optionalText, requiredText } from '../../../platform/http/text.ts';
import { newId } from '../../../platform/ids.ts';
import { iso } from '../../../platform/time.ts';
import { lockWritableClient, requireVisibleClient } from '../../clients/index.ts';
import { clientOfBody } from '../billing.clients.ts';
import { emitBillingEvent } from '../billing.events.ts';
import { currencyCode } from '../money.ts';
import { clientTaxOf, priceLines, type ClientTax } from './tax.lines.ts';
import { percentageOf, percentageThousandths, quantityUnits, totalsOf } from './tax.math.ts';
import {
  countPricedLines,
  deleteTaxRate,
  findClientTaxSettings,
  findTaxRate,
  findTaxRateIdByName,
  insertTaxRate,
  taxRateList,
  taxRatesById,
  updateTaxRate,
  upsertClientTaxSettings,
  type TaxRateRow,
} from './tax.repo.ts';
import type { CalculateTaxBody, ClientTaxSettings, CreateTaxRateBody, ListTaxRatesQuery, PutClientTaxSettingsBody, TaxCalculation, TaxRate, UpdateTaxRateBody } from './tax.schemas.ts';

export function toTaxRate(r: TaxRateRow): TaxRate {
  return {
    tax_rate_id: r.tax_rate_id,
    name: r.name,
    region: r.region,
    percentage: percentageOf(r.percentage_thousandths),
    description: r.description,
    is_active: r.is_active,
    client_count: r.client_count,
    created_at: iso(r.created_at),
    updated_at: iso(r.updated_at),
  };
}

async function view(db: Executor, tenant: string, id: string, lock = false): Promise<TaxRateRow> {
  const row = await findTaxRate(db, tenant, id, lock);
  if (!row) throw notFound('Tax rate', id);
  return row;
}

async function assertNameFree(db: Executor, tenant: string, name: string, self?: string): Promise<void> {
  const existing = await findTaxRateIdByName(db, tenant, name);
  if (existing && existing !== self) throw conflict(`A tax rate named '${name}' already exists (names are unique regardless of case)`, { tax_rate_id: existing });
}

/** A rate a write may point at: in the tenant (else 400 naming the field) and active (else 422). */
async function usableRate(db: Executor, tenant: string, id: string, path: string): Promise<Selectable<TaxRatesTable>> {
  const rate = (await taxRatesById(db, tenant, [id])).get(id);
  if (!rate) throw validation(path, `no tax rate '${id}' in this tenant`);
  if (!rate.is_active) throw unprocessable(`Tax rate '${rate.name}' is inactive; activate it or choose another`, { tax_rate_id: id });
  return rate;
}

async function settingsOf(db: Executor, tenant: string, clientId: string): Promise<ClientTaxSettings> {
  const s: Selectable<ClientTaxSettingsTable> | undefined = await findClientTaxSettings(db, tenant, clientId);
  const rate = s?.default_tax_rate_id ? (await taxRatesById(db, tenant, [s.default_tax_rate_id])).get(s.default_tax_rate_id) : undefined;
  return {
    client_id: clientId,
    is_tax_exempt: s?.is_tax_exempt ?? false,
    tax_exemption_certificate: s?.tax_exemption_certificate ?? null,
    default_tax_rate_id: s?.default_tax_rate_id ?? null,
    default_tax_rate: rate ? { tax_rate_id: rate.tax_rate_id, name: rate.name, percentage: percentageOf(rate.percentage_thousandths) } : null,
    updated_at: s ? iso(s.updated_at) : null,
  };
}

/** Tax rates, each client's tax settings, and the exact per-line tax calculation invoices and quotes use. */
export function createTaxService(deps: { db: Kysely<DB> }) {
  const { db } = deps;
  return {
    list(actor: Actor, query: ListTaxRatesQuery) {
      const list = taxRateList(db, actor.tenant, { search: query.search?.trim() || undefined, region: query.region?.trim() || undefined, isActive: query.is_active });
      return listPage(query, list, (rows) => rows.map((r) => toTaxRate({ ...r, client_count: Number(r.client_count) })));
    },

    get: async (actor: Actor, id: string): Promise<TaxRate> => toTaxRate(await view(db, actor.tenant, id)),

    async create(actor: Actor, body: CreateTaxRateBody): Promise<TaxRate> {
      const name = requiredText(body.name, 'body.name');
      const thousandths = percentageThousandths(body.percentage, 'body.percentage');
      return withTransaction(db, async (trx) => {
        await assertNameFree(trx, actor.tenant, name);
        const id = newId();
        await insertTaxRate(trx, {
          tenant: actor.tenant,
          tax_rate_id: id,
          name,
          region: optionalText(body.region) ?? null,
          percentage_thousandths: thousandths,
          description: optionalText(body.description) ?? null,
          is_active: body.is_active ?? true,
        });
        await emitBillingEvent(trx, actor.tenant, 'tax_rate', 'created', id, { percentage: percentageOf(thousandths) });
        return toTaxRate(await view(trx, actor.tenant, id));
      });
    },

    /** A rate clients use as their default stays active (422) until they move off it. */
    async update(actor: Actor, id: string, body: UpdateTaxRateBody, ifMatch?: string): Promise<TaxRate> {
      return withTransaction(db, async (trx) => {
        const current = await view(trx, actor.tenant, id, true);
        assertIfMatch(ifMatch, toTaxRate(current));
        const name = body.name === undefined ? undefined : requiredText(body.name, 'body.name');
        if (name !== undefined) await assertNameFree(trx, actor.tenant, name, id);
        if (body.is_active === false && current.client_count > 0) {
          throw unprocessable(`Tax rate '${current.name}' is the default of ${current.client_count} client(s); give them another default before deactivating it`, { client_count: current.client_count });
        }
        await updateTaxRate(trx, actor.tenant, id, {
          name,
          region: optionalText(body.region),
          percentage_thousandths: body.percentage === undefined ? undefined : percentageThousandths(body.percentage, 'body.percentage'),
          description: optionalText(body.description),
          is_active: body.is_active,
          updated_at: new Date(),
        });
        await emitBillingEvent(trx, actor.tenant, 'tax_rate', 'updated', id, { changed_fields: Object.keys(body).sort() });
        return toTaxRate(await view(trx, actor.tenant, id));
      });
    },

    async remove(actor: Actor, id: string, ifMatch?: string): Promise<void> {
      await withTransaction(db, async (trx) => {
        const current = await view(trx, actor.tenant, id, true);
        assertIfMatch(ifMatch, toTaxRate(current));
        if (current.client_count > 0) throw conflict(`Tax rate '${current.name}' is the default of ${current.client_count} client(s); deactivate it or move them first`, { client_count: current.client_count });
        const lines = await countPricedLines(trx, actor.tenant, id);
        if (lines > 0) throw conflict(`Tax rate '${current.name}' prices ${lines} invoice or quote line(s); deactivate it instead (is_active: false)`, { line_count: lines });
        await deleteTaxRate(trx, actor.tenant, id);
        await emitBillingEvent(trx, actor.tenant, 'tax_rate', 'deleted', id);
      });
    },

    async clientSettings(actor: Actor, clientId: string): Promise<ClientTaxSettings> {
      await requireVisibleClient(db, actor, clientId);
      return settingsOf(db, actor.tenant, clientId);
    },

    async putClientSettings(actor: Actor, clientId: string, body: PutClientTaxSettingsBody): Promise<ClientTaxSettings> {
      return withTransaction(db, async (trx) => {
        await lockWritableClient(trx, actor, clientId);
        const current = await settingsOf(trx, actor.tenant, clientId);
        if (body.default_tax_rate_id) await usableRate(trx, actor.tenant, body.default_tax_rate_id, 'body.default_tax_rate_id');
        await upsertClientTaxSettings(trx, {
          tenant: actor.tenant,
          client_id: clientId,
          is_tax_exempt: body.is_tax_exempt ?? current.is_tax_exempt,
          tax_exemption_certificate: body.tax_exemption_certificate === undefined ? current.tax_exemption_certificate : (optionalText(body.tax_exemption_certificate) ?? null),
          default_tax_rate_id: body.default_tax_rate_id === undefined ? current.default_tax_rate_id : body.default_tax_rate_id,
          updated_at: new Date(),
        });
        await emitBillingEvent(trx, actor.tenant, 'client_tax_settings', 'updated', clientId, { changed_fields: Object.keys(body).sort() });
        return settingsOf(trx, actor.tenant, clientId);
      });
    },

    /**
     * Amount and tax of each line, rounded half to even to the cent, and totals that are the sums of the
     * lines. A line's rate is its own `tax_rate_id` (null: untaxed), else the client's default; an exempt
     * client pays no tax at all.
     */
    async calculate(actor: Actor, body: CalculateTaxBody): Promise<TaxCalculation> {
      const currency = currencyCode(body.currency_code, 'body.currency_code');
      let client: ClientTax | undefined;
      if (body.client_id) {
        await clientOfBody(db, actor, body.client_id, 'read');
        client = await clientTaxOf(db, actor.tenant, body.client_id);
      }
      const input = body.lines.map((l, i) => ({ ...l, quantity_units: quantityUnits(l.quantity, `body.lines.${i}.quantity`) }));
      const priced = await priceLines(db, actor.tenant, client, input, 'body.lines');
      const lines = priced.map((p, i) => ({
        description: body.lines[i]!.description ?? null,
        quantity: body.lines[i]!.quantity,
        unit_price_cents: body.lines[i]!.unit_price_cents,
        amount_cents: p.total_cents,
        tax_rate_id: p.tax_rate_id,
        tax_percentage: percentageOf(p.tax_percentage_thousandths),
        tax_cents: p.tax_cents,
        total_cents: p.total_cents + p.tax_cents,
      }));
      return { currency_code: currency, is_tax_exempt: client?.is_tax_exempt ?? false, lines, ...totalsOf(lines) };
    },
  };
}

export type TaxService = ReturnType<typeof createTaxService>;
