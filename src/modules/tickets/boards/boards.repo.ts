import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import type { Executor } from '../../../platform/db/executor.ts';
import { likePattern } from '../../../platform/db/like.ts';
import type { BoardsTable, TicketStatusesTable } from '../../../platform/db/schema.ts';
import { defineList } from '../../../platform/http/list.ts';

export type BoardRow = Selectable<BoardsTable>;
export type StatusRow = Selectable<TicketStatusesTable>;

export async function findBoard(db: Executor, tenant: string, boardId: string, lock = false): Promise<BoardRow | undefined> {
  let q = db.selectFrom('boards').selectAll().where('tenant', '=', tenant).where('board_id', '=', boardId);
  if (lock) q = q.forUpdate();
  return q.executeTakeFirst();
}

export async function findDefaultBoard(db: Executor, tenant: string): Promise<BoardRow | undefined> {
  return db.selectFrom('boards').selectAll().where('tenant', '=', tenant).where('is_default', '=', true).executeTakeFirst();
}

export async function findBoardIdByName(db: Executor, tenant: string, name: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('boards')
    .select('board_id')
    .where('tenant', '=', tenant)
    .where(sql<string>`lower(board_name)`, '=', sql<string>`lower(${name})`)
    .executeTakeFirst();
  return row?.board_id;
}

export async function insertBoard(db: Executor, row: Insertable<BoardsTable>): Promise<void> {
  await db.insertInto('boards').values(row).execute();
}

export async function updateBoard(db: Executor, tenant: string, boardId: string, set: Updateable<BoardsTable>): Promise<void> {
  await db.updateTable('boards').set(set).where('tenant', '=', tenant).where('board_id', '=', boardId).execute();
}

/** Clears the tenant's default board (before another one becomes it: the default is unique). */
export async function clearDefaultBoard(db: Executor, tenant: string, now: Date): Promise<void> {
  await db.updateTable('boards').set({ is_default: false, updated_at: now }).where('tenant', '=', tenant).where('is_default', '=', true).execute();
}

export async function deleteBoard(db: Executor, tenant: string, boardId: string): Promise<void> {
  await db.deleteFrom('boards').where('tenant', '=', tenant).where('board_id', '=', boardId).execute();
}

/** What still points at a board (its statuses go with it): tickets and board-scoped categories. */
export async function countBoardDependents(db: Executor, tenant: string, boardId: string): Promise<Record<string, number>> {
  const row = await db
    .selectNoFrom((eb) => [
      eb.selectFrom('tickets').select(eb.fn.countAll<number>().as('n')).where('tenant', '=', tenant).where('board_id', '=', boardId).as('tickets'),
      eb.selectFrom('ticket_categories').select(eb.fn.countAll<number>().as('n')).where('tenant', '=', tenant).where('board_id', '=', boardId).as('categories'),
    ])
    .executeTakeFirstOrThrow();
  const counts: Record<string, number> = {};
  for (const [name, n] of Object.entries(row)) if (Number(n) > 0) counts[name] = Number(n);
  return counts;
}

export interface BoardListFilter {
  isActive?: boolean;
  search?: string;
}

function filteredBoards(db: Executor, tenant: string, f: BoardListFilter) {
  let q = db.selectFrom('boards as b').where('b.tenant', '=', tenant);
  if (f.isActive !== undefined) q = q.where('b.is_active', '=', f.isActive);
  if (f.search !== undefined) q = q.where('b.board_name', 'ilike', likePattern(f.search));
  return q;
}

/** Boards sharing a display_order sort by name; ties break on board_id. */
export function boardList(db: Executor, tenant: string, f: BoardListFilter) {
  return defineList({
    from: filteredBoards(db, tenant, f),
    page: filteredBoards(db, tenant, f).selectAll('b'),
    sorts: {
      display_order: ['b.display_order', sql`lower(b.board_name)`],
      board_name: [sql`lower(b.board_name)`],
      created_at: ['b.created_at'],
      updated_at: ['b.updated_at'],
    },
    defaultSort: 'display_order',
    defaultOrder: 'asc',
    tieBreaker: 'b.board_id',
    updatedAt: 'b.updated_at',
  });
}

export async function findStatus(db: Executor, tenant: string, statusId: string, lock = false): Promise<StatusRow | undefined> {
  let q = db.selectFrom('ticket_statuses').selectAll().where('tenant', '=', tenant).where('status_id', '=', statusId);
  if (lock) q = q.forUpdate();
  return q.executeTakeFirst();
}

export async function findStatusIdByName(db: Executor, tenant: string, boardId: string, name: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('ticket_statuses')
    .select('status_id')
    .where('tenant', '=', tenant)
    .where('board_id', '=', boardId)
    .where(sql<string>`lower(name)`, '=', sql<string>`lower(${name})`)
    .executeTakeFirst();
  return row?.status_id;
}

export async function nextStatusOrder(db: Executor, tenant: string, boardId: string): Promise<number> {
  const row = await db
    .selectFrom('ticket_statuses')
    .select((eb) => eb.fn.max<number | null>('order_number').as('m'))
    .where('tenant', '=', tenant)
    .where('board_id', '=', boardId)
    .executeTakeFirstOrThrow();
  return row.m === null ? 1 : Number(row.m) + 1;
}

export async function insertStatuses(db: Executor, rows: Insertable<TicketStatusesTable>[]): Promise<void> {
  if (rows.length > 0) await db.insertInto('ticket_statuses').values(rows).execute();
}

export async function updateStatus(db: Executor, tenant: string, statusId: string, set: Updateable<TicketStatusesTable>): Promise<void> {
  await db.updateTable('ticket_statuses').set(set).where('tenant', '=', tenant).where('status_id', '=', statusId).execute();
}

export async function clearDefaultStatus(db: Executor, tenant: string, boardId: string, now: Date): Promise<void> {
  await db
    .updateTable('ticket_statuses')
    .set({ is_default: false, updated_at: now })
    .where('tenant', '=', tenant)
    .where('board_id', '=', boardId)
    .where('is_default', '=', true)
    .execute();
}

export async function deleteStatus(db: Executor, tenant: string, statusId: string): Promise<void> {
  await db.deleteFrom('ticket_statuses').where('tenant', '=', tenant).where('status_id', '=', statusId).execute();
}

export async function countTicketsInStatus(db: Executor, tenant: string, statusId: string): Promise<number> {
  const row = await db
    .selectFrom('tickets')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('tenant', '=', tenant)
    .where('status_id', '=', statusId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export interface StatusListFilter {
  isClosed?: boolean;
}

function filteredStatuses(db: Executor, tenant: string, boardId: string, f: StatusListFilter) {
  let q = db.selectFrom('ticket_statuses as s').where('s.tenant', '=', tenant).where('s.board_id', '=', boardId);
  if (f.isClosed !== undefined) q = q.where('s.is_closed', '=', f.isClosed);
  return q;
}

/** Statuses sharing an order_number sort by name; ties break on status_id. */
export function statusList(db: Executor, tenant: string, boardId: string, f: StatusListFilter) {
  return defineList({
    from: filteredStatuses(db, tenant, boardId, f),
    page: filteredStatuses(db, tenant, boardId, f).selectAll('s'),
    sorts: {
      order_number: ['s.order_number', sql`lower(s.name)`],
      name: [sql`lower(s.name)`],
      created_at: ['s.created_at'],
      updated_at: ['s.updated_at'],
    },
    defaultSort: 'order_number',
    defaultOrder: 'asc',
    tieBreaker: 's.status_id',
    updatedAt: 's.updated_at',
  });
}
