import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import type { Executor } from '../../../platform/db/executor.ts';
import { likePattern } from '../../../platform/db/like.ts';
import type { ServiceTypesTable } from '../../../platform/db/schema.billing.ts';
import { BUILTIN_SERVICE_TYPES } from '../../../platform/db/builtin-service-types.ts';
import { defineList } from '../../../platform/http/list.ts';
import { newId } from '../../../platform/ids.ts';

export type ServiceTypeRow = Selectable<ServiceTypesTable> & { item_count: number };

function typeView(db: Executor, tenant: string) {
  return db
    .selectFrom('service_types as t')
    .where('t.tenant', '=', tenant)
    .selectAll('t')
    .select((eb) =>
      eb
        .selectFrom('service_catalog as s')
        .whereRef('s.tenant', '=', 't.tenant')
        .whereRef('s.custom_service_type_id', '=', 't.service_type_id')
        .select(eb.fn.countAll<number>().as('n'))
        .as('item_count'),
    );
}

const counted = <R extends { item_count: number | string | null }>(r: R) => ({ ...r, item_count: Number(r.item_count ?? 0) });

export async function findServiceType(db: Executor, tenant: string, id: string, lock = false): Promise<ServiceTypeRow | undefined> {
  let q = typeView(db, tenant).where('t.service_type_id', '=', id);
  if (lock) q = q.forUpdate('t');
  const row = await q.executeTakeFirst();
  return row ? counted(row) : undefined;
}

export async function findServiceTypeIdByName(db: Executor, tenant: string, name: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('service_types')
    .select('service_type_id')
    .where('tenant', '=', tenant)
    .where(sql<string>`lower(name)`, '=', name.toLowerCase())
    .executeTakeFirst();
  return row?.service_type_id;
}

export function serviceTypeList(db: Executor, tenant: string, f: { search?: string; isActive?: boolean }) {
  let from = db.selectFrom('service_types as t').where('t.tenant', '=', tenant);
  if (f.search) from = from.where('t.name', 'ilike', likePattern(f.search));
  if (f.isActive !== undefined) from = from.where('t.is_active', '=', f.isActive);
  let page = typeView(db, tenant);
  if (f.search) page = page.where('t.name', 'ilike', likePattern(f.search));
  if (f.isActive !== undefined) page = page.where('t.is_active', '=', f.isActive);
  return defineList({
    from,
    page,
    sorts: { name: [sql`lower(t.name)`], created_at: ['t.created_at'], updated_at: ['t.updated_at'] },
    defaultSort: 'name',
    defaultOrder: 'asc',
    tieBreaker: 't.service_type_id',
    updatedAt: 't.updated_at',
  });
}

export const toCounted = counted;

export async function insertServiceType(db: Executor, row: Insertable<ServiceTypesTable>): Promise<void> {
  await db.insertInto('service_types').values(row).execute();
}

export async function updateServiceType(db: Executor, tenant: string, id: string, set: Updateable<ServiceTypesTable>): Promise<void> {
  await db.updateTable('service_types').set(set).where('tenant', '=', tenant).where('service_type_id', '=', id).execute();
}

export async function deleteServiceType(db: Executor, tenant: string, id: string): Promise<void> {
  await db.deleteFrom('service_types').where('tenant', '=', tenant).where('service_type_id', '=', id).execute();
}

/** A new tenant's built-in service types (the same list migration 0015 gave existing tenants). */
export async function seedServiceTypes(db: Executor, tenant: string): Promise<void> {
  await db
    .insertInto('service_types')
    .values(BUILTIN_SERVICE_TYPES.map((t) => ({ tenant, service_type_id: newId(), name: t.name, description: t.description, is_builtin: true })))
    .onConflict((oc) => oc.doNothing())
    .execute();
}
