import type { Kysely, Transaction } from 'kysely';
import type { Actor } from '../../../platform/auth/context.ts';
import { withTransaction } from '../../../platform/db/executor.ts';
import type { DB } from '../../../platform/db/schema.ts';
import { assertIfMatch } from '../../../platform/http/etag.ts';
import { conflict, notFound, unprocessable } from '../../../platform/http/errors.ts';
import { listPage } from '../../../platform/http/list.ts';
import { optionalText, requiredText } from '../../../platform/http/text.ts';
import { iso } from '../../../platform/time.ts';
import { newId } from '../../../platform/ids.ts';
import { emitBillingEvent } from '../billing.events.ts';
import {
  deleteServiceType,
  findServiceType,
  findServiceTypeIdByName,
  insertServiceType,
  serviceTypeList,
  toCounted,
  updateServiceType,
  type ServiceTypeRow,
} from './types.repo.ts';
import type { CreateServiceTypeBody, ListServiceTypesQuery, ServiceType, UpdateServiceTypeBody } from './types.schemas.ts';

export function toServiceType(r: ServiceTypeRow): ServiceType {
  return {
    service_type_id: r.service_type_id,
    name: r.name,
    description: r.description,
    is_builtin: r.is_builtin,
    is_active: r.is_active,
    item_count: r.item_count,
    created_at: iso(r.created_at),
    updated_at: iso(r.updated_at),
  };
}

async function view(db: Kysely<DB> | Transaction<DB>, tenant: string, id: string, lock = false): Promise<ServiceTypeRow> {
  const row = await findServiceType(db, tenant, id, lock);
  if (!row) throw notFound('Service type', id);
  return row;
}

async function assertNameFree(trx: Transaction<DB>, tenant: string, name: string, self?: string): Promise<void> {
  const existing = await findServiceTypeIdByName(trx, tenant, name);
  if (existing && existing !== self) throw conflict(`A service type named '${name}' already exists (names are unique regardless of case)`, { service_type_id: existing });
}

export function createServiceTypesService(deps: { db: Kysely<DB> }) {
  const { db } = deps;
  return {
    list(actor: Actor, query: ListServiceTypesQuery) {
      const list = serviceTypeList(db, actor.tenant, { search: query.search?.trim() || undefined, isActive: query.is_active });
      return listPage(query, list, (rows) => rows.map((r) => toServiceType(toCounted(r))));
    },

    async get(actor: Actor, id: string): Promise<ServiceType> {
      return toServiceType(await view(db, actor.tenant, id));
    },

    async create(actor: Actor, body: CreateServiceTypeBody): Promise<ServiceType> {
      const name = requiredText(body.name, 'body.name');
      return withTransaction(db, async (trx) => {
        await assertNameFree(trx, actor.tenant, name);
        const id = newId();
        await insertServiceType(trx, { tenant: actor.tenant, service_type_id: id, name, description: optionalText(body.description) ?? null, is_active: body.is_active ?? true });
        await emitBillingEvent(trx, actor.tenant, 'service_type', 'created', id);
        return toServiceType(await view(trx, actor.tenant, id));
      });
    },

    async update(actor: Actor, id: string, body: UpdateServiceTypeBody, ifMatch?: string): Promise<ServiceType> {
      const name = body.name === undefined ? undefined : requiredText(body.name, 'body.name');
      return withTransaction(db, async (trx) => {
        const current = await view(trx, actor.tenant, id, true);
        assertIfMatch(ifMatch, toServiceType(current));
        if (name !== undefined) await assertNameFree(trx, actor.tenant, name, id);
        await updateServiceType(trx, actor.tenant, id, { name, description: optionalText(body.description), is_active: body.is_active, updated_at: new Date() });
        await emitBillingEvent(trx, actor.tenant, 'service_type', 'updated', id, { changed_fields: Object.keys(body).sort() });
        return toServiceType(await view(trx, actor.tenant, id));
      });
    },

    /** Built-ins stay (422); a type that catalogue items use is a 409 (deactivate it instead). */
    async remove(actor: Actor, id: string, ifMatch?: string): Promise<void> {
      await withTransaction(db, async (trx) => {
        const current = await view(trx, actor.tenant, id, true);
        assertIfMatch(ifMatch, toServiceType(current));
        if (current.is_builtin) throw unprocessable(`Built-in service type '${current.name}' cannot be deleted; deactivate it instead`);
        if (current.item_count > 0) {
          throw conflict(`Service type '${current.name}' is used by ${current.item_count} catalogue item(s); deactivate it instead`, { item_count: current.item_count });
        }
        await deleteServiceType(trx, actor.tenant, id);
        await emitBillingEvent(trx, actor.tenant, 'service_type', 'deleted', id);
      });
    },
  };
}

export type ServiceTypesService = ReturnType<typeof createServiceTypesService>;
