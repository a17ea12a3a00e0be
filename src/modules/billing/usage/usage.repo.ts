import { type Insertable, type Selectable, type Updateable } from 'kysely';
import type { Executor } from '../../../platform/db/executor.ts';
import type { UsageRecordsTable } from '../../../platform/db/schema.billing.ts';
import { defineList } from '../../../platform/http/list.ts';

export type UsageRow = Selectable<UsageRecordsTable> & { client_name: string; service_name: string; unit_of_measure: string };

function usageView(db: Executor, tenant: string) {
  return db
    .selectFrom('usage_records as u')
    .innerJoin('clients as c', (j) => j.onRef('c.tenant', '=', 'u.tenant').onRef('c.client_id', '=', 'u.client_id'))
    .innerJoin('service_catalog as s', (j) => j.onRef('s.tenant', '=', 'u.tenant').onRef('s.service_id', '=', 'u.service_id'))
    .where('u.tenant', '=', tenant)
    .selectAll('u')
    .select(['c.client_name', 's.service_name', 's.unit_of_measure']);
}

export async function findUsage(db: Executor, tenant: string, id: string, lock = false): Promise<UsageRow | undefined> {
  let q = usageView(db, tenant).where('u.usage_id', '=', id);
  if (lock) q = q.forUpdate('u');
  return q.executeTakeFirst();
}

export interface UsageFilter {
  clientId?: string;
  onlyClientId?: string;
  serviceId?: string;
  from?: string;
  to?: string;
}

export function usageList(db: Executor, tenant: string, f: UsageFilter) {
  const filtered = <Q extends ReturnType<typeof usageView> | ReturnType<typeof bare>>(q: Q): Q => {
    let r = q as ReturnType<typeof bare>;
    if (f.clientId) r = r.where('u.client_id', '=', f.clientId);
    if (f.onlyClientId) r = r.where('u.client_id', '=', f.onlyClientId);
    if (f.serviceId) r = r.where('u.service_id', '=', f.serviceId);
    if (f.from) r = r.where('u.usage_date', '>=', f.from);
    if (f.to) r = r.where('u.usage_date', '<=', f.to);
    return r as Q;
  };
  const bare = (d: Executor) => d.selectFrom('usage_records as u').where('u.tenant', '=', tenant);
  return defineList({
    from: filtered(bare(db)),
    page: filtered(usageView(db, tenant)),
    sorts: { usage_date: ['u.usage_date', 'u.created_at'], quantity: ['u.quantity_units'], created_at: ['u.created_at'], updated_at: ['u.updated_at'] },
    defaultSort: 'usage_date',
    defaultOrder: 'desc',
    tieBreaker: 'u.usage_id',
    updatedAt: 'u.updated_at',
  });
}

export async function insertUsage(db: Executor, row: Insertable<UsageRecordsTable>): Promise<void> {
  await db.insertInto('usage_records').values(row).execute();
}

export async function updateUsage(db: Executor, tenant: string, id: string, set: Updateable<UsageRecordsTable>): Promise<void> {
  await db.updateTable('usage_records').set(set).where('tenant', '=', tenant).where('usage_id', '=', id).execute();
}

export async function deleteUsage(db: Executor, tenant: string, id: string): Promise<void> {
  await db.deleteFrom('usage_records').where('tenant', '=', tenant).where('usage_id', '=', id).execute();
}
