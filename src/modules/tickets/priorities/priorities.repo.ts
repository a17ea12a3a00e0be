import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import type { Executor } from '../../../platform/db/executor.ts';
import type { TicketPrioritiesTable } from '../../../platform/db/schema.ts';
import type { PrioritySortField } from './priorities.schemas.ts';

export type PriorityRow = Selectable<TicketPrioritiesTable>;

export async function findPriority(db: Executor, tenant: string, priorityId: string, lock = false): Promise<PriorityRow | undefined> {
  let q = db.selectFrom('ticket_priorities').selectAll().where('tenant', '=', tenant).where('priority_id', '=', priorityId);
  if (lock) q = q.forUpdate();
  return q.executeTakeFirst();
}

export async function findDefaultPriority(db: Executor, tenant: string): Promise<PriorityRow | undefined> {
  return db.selectFrom('ticket_priorities').selectAll().where('tenant', '=', tenant).where('is_default', '=', true).executeTakeFirst();
}

export async function findPriorityIdByName(db: Executor, tenant: string, name: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('ticket_priorities')
    .select('priority_id')
    .where('tenant', '=', tenant)
    .where(sql<string>`lower(priority_name)`, '=', sql<string>`lower(${name})`)
    .executeTakeFirst();
  return row?.priority_id;
}

export async function nextPriorityOrder(db: Executor, tenant: string): Promise<number> {
  const row = await db
    .selectFrom('ticket_priorities')
    .select((eb) => eb.fn.max<number | null>('order_number').as('m'))
    .where('tenant', '=', tenant)
    .executeTakeFirstOrThrow();
  return row.m === null ? 1 : Number(row.m) + 1;
}

export async function insertPriorities(db: Executor, rows: Insertable<TicketPrioritiesTable>[]): Promise<void> {
  if (rows.length > 0) await db.insertInto('ticket_priorities').values(rows).execute();
}

export async function updatePriority(db: Executor, tenant: string, priorityId: string, set: Updateable<TicketPrioritiesTable>): Promise<void> {
  await db.updateTable('ticket_priorities').set(set).where('tenant', '=', tenant).where('priority_id', '=', priorityId).execute();
}

export async function clearDefaultPriority(db: Executor, tenant: string, now: Date): Promise<void> {
  await db.updateTable('ticket_priorities').set({ is_default: false, updated_at: now }).where('tenant', '=', tenant).where('is_default', '=', true).execute();
}

export async function deletePriority(db: Executor, tenant: string, priorityId: string): Promise<void> {
  await db.deleteFrom('ticket_priorities').where('tenant', '=', tenant).where('priority_id', '=', priorityId).execute();
}

export async function countTicketsWithPriority(db: Executor, tenant: string, priorityId: string): Promise<number> {
  const row = await db
    .selectFrom('tickets')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('tenant', '=', tenant)
    .where('priority_id', '=', priorityId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export interface PriorityListFilter {
  updatedSince?: Date;
  sort: PrioritySortField;
  order: 'asc' | 'desc';
  limit: number;
  offset: number;
}

function filteredPriorities(db: Executor, tenant: string, f: PriorityListFilter) {
  let q = db.selectFrom('ticket_priorities as p').where('p.tenant', '=', tenant);
  if (f.updatedSince !== undefined) q = q.where('p.updated_at', '>=', f.updatedSince);
  return q;
}

export async function listPriorities(db: Executor, tenant: string, f: PriorityListFilter): Promise<{ rows: PriorityRow[]; total: number }> {
  const q = filteredPriorities(db, tenant, f).selectAll('p');
  let sorted = f.sort === 'priority_name' ? q.orderBy(sql`lower(p.priority_name)`, f.order) : q.orderBy(`p.${f.sort}`, f.order);
  if (f.sort === 'order_number') sorted = sorted.orderBy(sql`lower(p.priority_name)`, f.order);
  const [rows, n] = await Promise.all([
    sorted.orderBy('p.priority_id', f.order).limit(f.limit).offset(f.offset).execute(),
    filteredPriorities(db, tenant, f).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(n.n) };
}
