import type { Kysely, Transaction, Updateable } from 'kysely';
import type { Actor } from '../../../platform/auth/context.ts';
import { syncSearch } from '../../../platform/search/writer.ts';
import { withTransaction, type Executor } from '../../../platform/db/executor.ts';
import type { DB, TicketCategoriesTable } from '../../../platform/db/schema.ts';
import { assertIfMatch } from '../../../platform/http/etag.ts';
import { conflict, notFound, validation } from '../../../platform/http/errors.ts';
import { listPage } from '../../../platform/http/list.ts';
import { requiredText } from '../../../platform/http/text.ts';
import { newId } from '../../../platform/ids.ts';
import { findBoard } from '../boards/boards.repo.ts';
import { toCategory } from './categories.mapper.ts';
import {
  categoryList,
  countSubcategories,
  countTicketsInCategoryTree,
  deleteCategory,
  findCategory,
  findSiblingByName,
  insertCategory,
  setSubcategoriesBoard,
  updateCategory,
  type CategoryRow,
} from './categories.repo.ts';
import type { Category, CreateCategoryBody, ListCategoriesQuery, UpdateCategoryBody } from './categories.schemas.ts';

async function requireCategory(db: Executor, tenant: string, id: string, lock = false): Promise<CategoryRow> {
  const row = await findCategory(db, tenant, id, lock);
  if (!row) throw notFound('Category', id);
  return row;
}

interface Placement {
  parentId: string | null;
  boardId: string | null;
}

/**
 * Where a category sits: under a top-level parent (taking the parent's board) or at the top level
 * (on a board of the tenant, or on none). `boardId` undefined means "whatever the parent has".
 */
async function placement(trx: Transaction<DB>, tenant: string, self: string | undefined, parentId: string | null, boardId: string | null | undefined): Promise<Placement> {
  if (parentId !== null) {
    if (parentId === self) throw validation('body.parent_category_id', 'a category cannot be its own parent');
    const parent = await findCategory(trx, tenant, parentId);
    if (!parent) throw validation('body.parent_category_id', `no category '${parentId}'`);
    if (parent.parent_category_id !== null) {
      throw validation('body.parent_category_id', `'${parent.category_name}' is itself a subcategory; subcategories are one level deep`);
    }
    if (boardId !== undefined && boardId !== parent.board_id) {
      throw validation('body.board_id', `a subcategory has its parent's board (${parent.board_id ?? 'none'}); omit board_id`);
    }
    return { parentId, boardId: parent.board_id };
  }
  if (boardId && !(await findBoard(trx, tenant, boardId))) throw validation('body.board_id', `no board '${boardId}'`);
  return { parentId: null, boardId: boardId ?? null };
}

async function assertNameFree(trx: Transaction<DB>, tenant: string, at: Placement, name: string, self?: string): Promise<void> {
  const existing = await findSiblingByName(trx, tenant, at.boardId, at.parentId, name);
  if (existing && existing !== self) {
    throw conflict(`A category named '${name}' already exists at the same place (same board and parent, regardless of case)`, { category_id: existing });
  }
}

/** Ticket categories with one level of subcategories, optionally limited to a board. */
export function createCategoriesService(deps: { db: Kysely<DB> }) {
  const { db } = deps;

  return {
    async list(actor: Actor, query: ListCategoriesQuery) {
      const filter = {
        boardId: query.board_id,
        parentId: query.parent_category_id,
        topLevel: query.top_level,
        search: query.search?.trim() || undefined,
      };
      return listPage(query, categoryList(db, actor.tenant, filter), (rows) => rows.map(toCategory));
    },

    async get(actor: Actor, id: string): Promise<Category> {
      return toCategory(await requireCategory(db, actor.tenant, id));
    },

    async create(actor: Actor, body: CreateCategoryBody): Promise<Category> {
      const name = requiredText(body.category_name, 'body.category_name');
      return withTransaction(db, async (trx) => {
        const at = await placement(trx, actor.tenant, undefined, body.parent_category_id ?? null, body.board_id);
        await assertNameFree(trx, actor.tenant, at, name);
        const now = new Date();
        const categoryId = newId();
        await insertCategory(trx, {
          tenant: actor.tenant,
          category_id: categoryId,
          category_name: name,
          parent_category_id: at.parentId,
          board_id: at.boardId,
          created_at: now,
          updated_at: now,
        });
        await syncSearch(trx, actor.tenant, 'category', [categoryId]);
        return toCategory(await requireCategory(trx, actor.tenant, categoryId));
      });
    },

    /** Partial update. Moving a category (parent or board) is refused while tickets use it or its subcategories. */
    async update(actor: Actor, id: string, body: UpdateCategoryBody, ifMatch?: string): Promise<Category> {
      const name = body.category_name === undefined ? undefined : requiredText(body.category_name, 'body.category_name');
      return withTransaction(db, async (trx) => {
        const current = await requireCategory(trx, actor.tenant, id, true);
        assertIfMatch(ifMatch, toCategory(current));
        let at: Placement = { parentId: current.parent_category_id, boardId: current.board_id };
        if (body.parent_category_id !== undefined || body.board_id !== undefined) {
          const parentId = body.parent_category_id !== undefined ? body.parent_category_id : current.parent_category_id;
          const boardId = body.board_id !== undefined ? body.board_id : parentId === null ? current.board_id : undefined;
          at = await placement(trx, actor.tenant, id, parentId, boardId);
        }
        const reparented = at.parentId !== current.parent_category_id;
        const moved = reparented || at.boardId !== current.board_id;
        if (reparented && at.parentId !== null) {
          const n = await countSubcategories(trx, actor.tenant, id);
          if (n > 0) throw conflict(`Category '${id}' has ${n} subcategories; subcategories are one level deep, so it cannot become one`, { subcategories: n });
        }
        if (moved) {
          const n = await countTicketsInCategoryTree(trx, actor.tenant, id);
          if (n > 0) throw conflict(`Category '${id}' is used by ${n} tickets; its parent and board cannot change while tickets use it`, { tickets: n });
        }
        const set: Updateable<TicketCategoriesTable> = {};
        if (name !== undefined && name !== current.category_name) set.category_name = name;
        if (reparented) set.parent_category_id = at.parentId;
        if (at.boardId !== current.board_id) set.board_id = at.boardId;
        if (Object.keys(set).length === 0) return toCategory(current);
        await assertNameFree(trx, actor.tenant, at, name ?? current.category_name, id);
        const now = new Date();
        await updateCategory(trx, actor.tenant, id, { ...set, updated_at: now });
        if (at.parentId === null && 'board_id' in set) await setSubcategoriesBoard(trx, actor.tenant, id, at.boardId, now);
        // Subcategory rows embed their parent's name and board.
        const subcategories = await trx.selectFrom('ticket_categories').select('category_id').where('tenant', '=', actor.tenant).where('parent_category_id', '=', id).execute();
        await syncSearch(trx, actor.tenant, 'category', [id, ...subcategories.map((c) => c.category_id)]);
        return toCategory(await requireCategory(trx, actor.tenant, id));
      });
    },

    /** Refused while the category has subcategories or tickets use it. */
    async remove(actor: Actor, id: string, ifMatch?: string): Promise<void> {
      await withTransaction(db, async (trx) => {
        const current = await requireCategory(trx, actor.tenant, id, true);
        assertIfMatch(ifMatch, toCategory(current));
        const subcategories = await countSubcategories(trx, actor.tenant, id);
        if (subcategories > 0) throw conflict(`Category '${id}' still has ${subcategories} subcategories; delete or move them first`, { subcategories });
        const tickets = await countTicketsInCategoryTree(trx, actor.tenant, id);
        if (tickets > 0) throw conflict(`Category '${id}' is still used by ${tickets} tickets; recategorise them first`, { tickets });
        await deleteCategory(trx, actor.tenant, id);
        await syncSearch(trx, actor.tenant, 'category', [id]);
      });
    },
  };
}

export type CategoriesService = ReturnType<typeof createCategoriesService>;
