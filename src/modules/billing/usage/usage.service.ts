import type { Kysely } from 'kysely';
import type { Actor } from '../../../platform/auth/context.ts';
import { withTransaction } from '../../../platform/db/executor.ts';
import type { DB } from '../../../platform/db/schema.ts';
import { assertIfMatch } from '../../../platform/http/etag.ts';
import { notFound, unprocessable, validation } from '../../../platform/http/errors.ts';
import { emptyPage, listPage } from '../../../platform/http/list.ts';
import { optionalText } from '../../../platform/http/text.ts';
import { newId } from '../../../platform/ids.ts';
import { iso, utcDate } from '../../../platform/time.ts';
import { canSeeClient, portalClientId } from '../../clients/index.ts';
import { clientOfBody } from '../billing.clients.ts';
import { emitBillingEvent } from '../billing.events.ts';
import { findCatalogItem } from '../catalog/catalog.repo.ts';
import { quantityOf, quantityUnits } from '../tax/tax.math.ts';
import { deleteUsage, findUsage, insertUsage, updateUsage, usageList, type UsageRow } from './usage.repo.ts';
import type { CreateUsageRecordBody, ListUsageRecordsQuery, UpdateUsageRecordBody, UsageRecord } from './usage.schemas.ts';

export function toUsageRecord(r: UsageRow): UsageRecord {
  return {
    usage_id: r.usage_id,
    client_id: r.client_id,
    client_name: r.client_name,
    service_id: r.service_id,
    service_name: r.service_name,
    unit_of_measure: r.unit_of_measure,
    quantity: quantityOf(r.quantity_units),
    usage_date: r.usage_date,
    description: r.description,
    created_by: r.created_by,
    created_at: iso(r.created_at),
    updated_at: iso(r.updated_at),
  };
}

/** Usage recorded against a client for a catalogue item billed by usage; usage contract lines bill from it. */
export function createUsageService(deps: { db: Kysely<DB> }) {
  const { db } = deps;

  async function row(ex: Kysely<DB>, actor: Actor, id: string, lock = false): Promise<UsageRow> {
    const found = await findUsage(ex, actor.tenant, id, lock);
    if (!found || !canSeeClient(actor, found.client_id)) throw notFound('Usage record', id);
    return found;
  }

  return {
    list(actor: Actor, query: ListUsageRecordsQuery) {
      const only = portalClientId(actor);
      if (only !== undefined && query.client_id !== undefined && query.client_id !== only) return emptyPage(query);
      if (query.from && query.to && query.from > query.to) throw validation('querystring.from', 'must not be after to');
      const list = usageList(db, actor.tenant, { clientId: query.client_id, onlyClientId: only, serviceId: query.service_id, from: query.from, to: query.to });
      return listPage(query, list, (rows) => rows.map(toUsageRecord));
    },

    get: async (actor: Actor, id: string): Promise<UsageRecord> => toUsageRecord(await row(db, actor, id)),

    /**
     * The client must be in the tenant (400 naming client_id) and not merged (409); the item active and billed by
     * usage (a quantity of its unit) or hourly (hours, which bucket lines draw from) — a fixed-price item is a 422.
     */
    async create(actor: Actor, body: CreateUsageRecordBody): Promise<UsageRecord> {
      const units = quantityUnits(body.quantity, 'body.quantity');
      return withTransaction(db, async (trx) => {
        await clientOfBody(trx, actor, body.client_id, 'write');
        const item = await findCatalogItem(trx, actor.tenant, body.service_id);
        if (!item) throw validation('body.service_id', `no service or product '${body.service_id}' in this tenant`);
        if (item.billing_method === 'fixed') {
          throw unprocessable(`'${item.service_name}' is billed at a fixed rate; usage is recorded for items billed by usage, and hours for hourly services`, { service_id: item.service_id });
        }
        if (!item.is_active) throw unprocessable(`'${item.service_name}' is inactive; activate it before recording usage`, { service_id: item.service_id });
        const id = newId();
        await insertUsage(trx, {
          tenant: actor.tenant,
          usage_id: id,
          client_id: body.client_id,
          service_id: body.service_id,
          quantity_units: units,
          usage_date: body.usage_date ?? utcDate(),
          description: optionalText(body.description) ?? null,
          created_by: actor.userId,
        });
        await emitBillingEvent(trx, actor.tenant, 'usage_record', 'created', id, { client_id: body.client_id, service_id: body.service_id, quantity: quantityOf(units) });
        return toUsageRecord((await findUsage(trx, actor.tenant, id))!);
      });
    },

    async update(actor: Actor, id: string, body: UpdateUsageRecordBody, ifMatch?: string): Promise<UsageRecord> {
      const units = body.quantity === undefined ? undefined : quantityUnits(body.quantity, 'body.quantity');
      return withTransaction(db, async (trx) => {
        const current = await row(trx, actor, id, true);
        assertIfMatch(ifMatch, toUsageRecord(current));
        await updateUsage(trx, actor.tenant, id, { quantity_units: units, usage_date: body.usage_date, description: optionalText(body.description), updated_at: new Date() });
        await emitBillingEvent(trx, actor.tenant, 'usage_record', 'updated', id, { changed_fields: Object.keys(body).sort() });
        return toUsageRecord((await findUsage(trx, actor.tenant, id))!);
      });
    },

    async remove(actor: Actor, id: string, ifMatch?: string): Promise<void> {
      await withTransaction(db, async (trx) => {
        const current = await row(trx, actor, id, true);
        assertIfMatch(ifMatch, toUsageRecord(current));
        await deleteUsage(trx, actor.tenant, id);
        await emitBillingEvent(trx, actor.tenant, 'usage_record', 'deleted', id, { client_id: current.client_id });
      });
    },
  };
}

export type UsageService = ReturnType<typeof createUsageService>;
