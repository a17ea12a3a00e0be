import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import type { Executor } from '../../../platform/db/executor.ts';
import type { TicketPrioritiesTable } from '../../../platform/db/schema.ts';
import { defineList } from '../../../platform/http/list.ts';

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

/** Priorities sharing an order_number sort by name; ties break on priority_id. */
export function priorityList(db: Executor, tenant: string) {
  const q = db.selectFrom('ticket_priorities as p').where('p.tenant', '=', tenant);
  return defineList({
    from: q,
    page: q.selectAll('p'),
    sorts: {
      order_number: ['p.order_number', sql`lower(p.priority_name)`],
      priority_name: [sql`lower(p.priority_name)`],
      created_at: ['p.created_at'],
      updated_at: ['p.updated_at'],
    },
    defaultSort: 'order_number',
    defaultOrder: 'asc',
    tieBreaker: 'p.priority_id',
    updatedAt: 'p.updated_at',
  });
}
