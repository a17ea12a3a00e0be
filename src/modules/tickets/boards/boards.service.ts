import type { Insertable, Kysely, Transaction, Updateable } from 'kysely';
import type { Actor } from '../../../platform/auth/context.ts';
import { syncSearch } from '../../../platform/search/writer.ts';
import { boardChildren } from './boards.search.ts';
import { withTransaction, type Executor } from '../../../platform/db/executor.ts';
import type { BoardsTable, DB, TicketStatusesTable } from '../../../platform/db/schema.ts';
import { assertIfMatch } from '../../../platform/http/etag.ts';
import { conflict, notFound, unprocessable, validation } from '../../../platform/http/errors.ts';
import { listPage } from '../../../platform/http/list.ts';
import { optionalText, requiredText } from '../../../platform/http/text.ts';
import { newId } from '../../../platform/ids.ts';
import { toBoard } from './boards.mapper.ts';
import {
  boardList,
  clearDefaultBoard,
  countBoardDependents,
  deleteBoard,
  findBoard,
  findBoardIdByName,
  findDefaultBoard,
  insertBoard,
  insertStatuses,
  updateBoard,
  type BoardRow,
} from './boards.repo.ts';
import type { Board, CreateBoardBody, ListBoardsQuery, StatusSeed, UpdateBoardBody } from './boards.schemas.ts';

/** The statuses a board gets when its creator names none. */
export const DEFAULT_STATUSES: readonly StatusSeed[] = [
  { name: 'Open', is_closed: false, is_default: true },
  { name: 'In Progress', is_closed: false },
  { name: 'Closed', is_closed: true },
];

/**
 * A new board's status rows in workflow order. Names are unique regardless of case, at least one
 * status is open, and the default (the one flagged, else the first open one) is open.
 */
export function boardStatusRows(
  tenant: string,
  boardId: string,
  seeds: readonly StatusSeed[],
  now: Date,
  path = 'body.statuses',
): Insertable<TicketStatusesTable>[] {
  const seen = new Set<string>();
  const names = seeds.map((s, i) => {
    const name = requiredText(s.name, `${path}[${i}].name`);
    if (seen.has(name.toLowerCase())) throw validation(`${path}[${i}].name`, `'${name}' appears twice (status names are unique per board regardless of case)`);
    seen.add(name.toLowerCase());
    return name;
  });
  const flagged = seeds.flatMap((s, i) => (s.is_default ? [i] : []));
  if (flagged.length > 1) throw validation(path, 'at most one status can be the default');
  const firstOpen = seeds.findIndex((s) => !s.is_closed);
  if (firstOpen < 0) throw unprocessable('A board needs at least one open (not closed) status', [{ path, message: 'no open status' }]);
  const defaultIndex = flagged[0] ?? firstOpen;
  if (seeds[defaultIndex]!.is_closed) {
    throw unprocessable('The default status must be an open one', [{ path: `${path}[${defaultIndex}].is_default`, message: 'a closed status cannot be the default' }]);
  }
  return seeds.map((s, i) => ({
    tenant,
    status_id: newId(),
    board_id: boardId,
    name: names[i]!,
    is_closed: s.is_closed ?? false,
    is_default: i === defaultIndex,
    order_number: i + 1,
    created_at: now,
    updated_at: now,
  }));
}

async function assertNameFree(trx: Transaction<DB>, tenant: string, name: string, self?: string): Promise<void> {
  const existing = await findBoardIdByName(trx, tenant, name);
  if (existing && existing !== self) throw conflict(`A board named '${name}' already exists (names are unique regardless of case)`, { board_id: existing });
}

/** The board, or 404 when the tenant has none by that id. */
export async function requireBoard(db: Executor, tenant: string, boardId: string, lock = false): Promise<BoardRow> {
  const row = await findBoard(db, tenant, boardId, lock);
  if (!row) throw notFound('Board', boardId);
  return row;
}

/** Inserts a board with its statuses; the caller has checked the name and moved the default if needed. */
export async function addBoard(trx: Transaction<DB>, row: Insertable<BoardsTable>, statuses: readonly StatusSeed[], now: Date): Promise<void> {
  await insertBoard(trx, row);
  await insertStatuses(trx, boardStatusRows(row.tenant, row.board_id, statuses, now));
  await syncBoard(trx, row.tenant, row.board_id);
}

/** The board's search row and those of its statuses and categories, which embed its name. */
async function syncBoard(trx: Executor, tenant: string, boardId: string): Promise<void> {
  const children = await boardChildren(trx, tenant, boardId);
  await syncSearch(trx, tenant, 'board', [boardId]);
  await syncSearch(trx, tenant, 'status', children.statuses);
  await syncSearch(trx, tenant, 'category', children.categories);
}

export function createBoardsService(deps: { db: Kysely<DB> }) {
  const { db } = deps;

  return {
    async list(actor: Actor, query: ListBoardsQuery) {
      const filter = { isActive: query.is_active, search: query.search?.trim() || undefined };
      return listPage(query, boardList(db, actor.tenant, filter), (rows) => rows.map(toBoard));
    },

    async get(actor: Actor, id: string): Promise<Board> {
      return toBoard(await requireBoard(db, actor.tenant, id));
    },

    /** Creates the board with its statuses; the tenant's first board, or one flagged is_default, becomes the default. */
    async create(actor: Actor, body: CreateBoardBody): Promise<Board> {
      const name = requiredText(body.board_name, 'body.board_name');
      return withTransaction(db, async (trx) => {
        await assertNameFree(trx, actor.tenant, name);
        const currentDefault = await findDefaultBoard(trx, actor.tenant);
        const isDefault = body.is_default === true || !currentDefault;
        const isActive = body.is_active ?? true;
        if (isDefault && !isActive) {
          throw unprocessable('The default board must be active', [{ path: 'body.is_active', message: currentDefault ? 'send is_active: true with is_default: true' : 'the tenant\'s first board becomes its default' }]);
        }
        const now = new Date();
        if (isDefault && currentDefault) await clearDefaultBoard(trx, actor.tenant, now);
        const boardId = newId();
        await addBoard(trx, {
          tenant: actor.tenant,
          board_id: boardId,
          board_name: name,
          description: optionalText(body.description) ?? null,
          is_default: isDefault,
          is_active: isActive,
          display_order: body.display_order ?? 0,
          created_at: now,
          updated_at: now,
        }, body.statuses ?? DEFAULT_STATUSES, now);
        return toBoard(await requireBoard(trx, actor.tenant, boardId));
      });
    },

    /** Partial update; is_default: true moves the tenant's default here. A no-op changes nothing. */
    async update(actor: Actor, id: string, body: UpdateBoardBody, ifMatch?: string): Promise<Board> {
      const name = body.board_name === undefined ? undefined : requiredText(body.board_name, 'body.board_name');
      return withTransaction(db, async (trx) => {
        const current = await requireBoard(trx, actor.tenant, id, true);
        assertIfMatch(ifMatch, toBoard(current));
        const set: Updateable<BoardsTable> = {};
        if (name !== undefined && name !== current.board_name) {
          await assertNameFree(trx, actor.tenant, name, id);
          set.board_name = name;
        }
        const description = optionalText(body.description);
        if (description !== undefined && description !== current.description) set.description = description;
        if (body.display_order !== undefined && body.display_order !== current.display_order) set.display_order = body.display_order;
        if (body.is_active !== undefined && body.is_active !== current.is_active) set.is_active = body.is_active;
        if (body.is_default === false && current.is_default) {
          throw conflict('A tenant always has a default board; make another board the default instead');
        }
        if (body.is_default === true && !current.is_default) set.is_default = true;
        const nextActive = set.is_active ?? current.is_active;
        if ((set.is_default ?? current.is_default) && !nextActive) {
          if (current.is_default) throw conflict('The default board cannot be deactivated; make another board the default first');
          throw unprocessable('An inactive board cannot become the default', [{ path: 'body.is_active', message: 'send is_active: true with is_default: true' }]);
        }
        if (Object.keys(set).length === 0) return toBoard(current);
        const now = new Date();
        if (set.is_default) await clearDefaultBoard(trx, actor.tenant, now);
        await updateBoard(trx, actor.tenant, id, { ...set, updated_at: now });
        await syncBoard(trx, actor.tenant, id);
        return toBoard(await requireBoard(trx, actor.tenant, id));
      });
    },

    /** Deletes the board with its statuses; refused for the default board and while tickets or categories use it. */
    async remove(actor: Actor, id: string, ifMatch?: string): Promise<void> {
      await withTransaction(db, async (trx) => {
        const current = await requireBoard(trx, actor.tenant, id, true);
        assertIfMatch(ifMatch, toBoard(current));
        if (current.is_default) throw conflict('The default board cannot be deleted; make another board the default first');
        const dependents = await countBoardDependents(trx, actor.tenant, id);
        if (Object.keys(dependents).length > 0) {
          const list = Object.entries(dependents).map(([k, n]) => `${n} ${k}`).join(', ');
          throw conflict(`Board '${id}' is still used (${list}); move or delete them first`, dependents);
        }
        await deleteBoard(trx, actor.tenant, id);
        await syncSearch(trx, actor.tenant, 'board', [id]);
      });
    },
  };
}

export type BoardsService = ReturnType<typeof createBoardsService>;
