import type { Kysely, Transaction } from 'kysely';
import type { Actor } from '../../../platform/auth/context.ts';
import { withTransaction, type Executor } from '../../../platform/db/executor.ts';
import type { DB } from '../../../platform/db/schema.ts';
import { assertIfMatch } from '../../../platform/http/etag.ts';
import { conflict, notFound, unprocessable, validation } from '../../../platform/http/errors.ts';
import { listPage } from '../../../platform/http/list.ts';
import { optionalText, requiredText } from '../../../platform/http/text.ts';
import { newId } from '../../../platform/ids.ts';
import { iso } from '../../../platform/time.ts';
import { emitKbSettingsEvent } from '../kb-settings.events.ts';
import {
  deleteKbCategory,
  findKbCategory,
  findKbCategoryIdByName,
  insertKbCategory,
  kbCategoryAncestry,
  kbCategoryList,
  lockKbCategoryTree,
  toCounted,
  updateKbCategory,
  type KbCategoryRow,
} from './categories.repo.ts';
import type { CreateKbCategoryBody, KbCategory, ListKbCategoriesQuery, UpdateKbCategoryBody } from './categories.schemas.ts';

export function toKbCategory(r: KbCategoryRow): KbCategory {
  return {
    category_id: r.category_id,
    name: r.name,
    description: r.description,
    parent_id: r.parent_id,
    display_order: r.display_order,
    article_count: r.article_count,
    child_count: r.child_count,
    created_at: iso(r.created_at),
    updated_at: iso(r.updated_at),
  };
}

async function view(db: Executor, tenant: string, id: string, lock = false): Promise<KbCategoryRow> {
  const row = await findKbCategory(db, tenant, id, lock);
  if (!row) throw notFound('Knowledge-base category', id);
  return row;
}

/** A parent named in a body must be one of the tenant's categories (400 naming the field otherwise). */
async function assertParentExists(trx: Transaction<DB>, tenant: string, parentId: string): Promise<void> {
  if (!(await findKbCategory(trx, tenant, parentId))) throw validation('body.parent_id', `knowledge-base category '${parentId}' does not exist`);
}

async function assertNameFree(trx: Transaction<DB>, tenant: string, parentId: string | null, name: string, self?: string): Promise<void> {
  const existing = await findKbCategoryIdByName(trx, tenant, parentId, name);
  if (existing && existing !== self) {
    throw conflict(`A knowledge-base category named '${name}' already exists ${parentId ? 'under this parent' : 'at the top level'} (sibling names are unique regardless of case)`, {
      category_id: existing,
    });
  }
}

export function createKbCategoriesService(deps: { db: Kysely<DB> }) {
  const { db } = deps;
  return {
    list(actor: Actor, query: ListKbCategoriesQuery) {
      const parentId = query.parent_id === undefined ? undefined : query.parent_id === 'null' ? null : query.parent_id;
      const list = kbCategoryList(db, actor.tenant, { parentId, search: query.search?.trim() || undefined });
      return listPage(query, list, (rows) => rows.map((r) => toKbCategory(toCounted(r))));
    },

    async get(actor: Actor, id: string): Promise<KbCategory> {
      return toKbCategory(await view(db, actor.tenant, id));
    },

    async create(actor: Actor, body: CreateKbCategoryBody): Promise<KbCategory> {
      const name = requiredText(body.name, 'body.name');
      const parentId = body.parent_id ?? null;
      return withTransaction(db, async (trx) => {
        if (parentId !== null) await assertParentExists(trx, actor.tenant, parentId);
        await assertNameFree(trx, actor.tenant, parentId, name);
        const id = newId();
        await insertKbCategory(trx, {
          tenant: actor.tenant,
          category_id: id,
          name,
          description: optionalText(body.description) ?? null,
          parent_id: parentId,
          display_order: body.display_order ?? 0,
        });
        await emitKbSettingsEvent(trx, actor.tenant, 'kb_category', 'created', id, { parent_id: parentId });
        return toKbCategory(await view(trx, actor.tenant, id));
      });
    },

    /** Partial; a move (parent_id) may not put the category under itself or its own subtree (422). */
    async update(actor: Actor, id: string, body: UpdateKbCategoryBody, ifMatch?: string): Promise<KbCategory> {
      const name = body.name === undefined ? undefined : requiredText(body.name, 'body.name');
      const newParent = body.parent_id;
      return withTransaction(db, async (trx) => {
        // Moves take the tenant's tree lock first: two concurrent moves cannot each pass the check and close a cycle.
        if (newParent) await lockKbCategoryTree(trx, actor.tenant);
        const current = await view(trx, actor.tenant, id, true);
        assertIfMatch(ifMatch, toKbCategory(current));
        if (newParent) {
          await assertParentExists(trx, actor.tenant, newParent);
          if ((await kbCategoryAncestry(trx, actor.tenant, newParent)).includes(id)) {
            throw unprocessable(
              `Category '${current.name}' cannot move under ${newParent === id ? 'itself' : 'one of its own descendants'}: that would make the category its own ancestor`,
              { rule: 'category_cannot_be_its_own_ancestor', category_id: id, parent_id: newParent },
            );
          }
        }
        const parentId = newParent === undefined ? current.parent_id : newParent;
        if (name !== undefined || newParent !== undefined) await assertNameFree(trx, actor.tenant, parentId, name ?? current.name, id);
        await updateKbCategory(trx, actor.tenant, id, {
          name,
          description: optionalText(body.description),
          parent_id: newParent,
          display_order: body.display_order,
          updated_at: new Date(),
        });
        await emitKbSettingsEvent(trx, actor.tenant, 'kb_category', 'updated', id, { changed_fields: Object.keys(body).sort() });
        return toKbCategory(await view(trx, actor.tenant, id));
      });
    },

    /** A category with child categories or articles is a 409 (move or delete them first), with the counts in details. */
    async remove(actor: Actor, id: string, ifMatch?: string): Promise<void> {
      await withTransaction(db, async (trx) => {
        const current = await view(trx, actor.tenant, id, true);
        assertIfMatch(ifMatch, toKbCategory(current));
        if (current.child_count > 0 || current.article_count > 0) {
          throw conflict(
            `Knowledge-base category '${current.name}' still has ${current.child_count} child categor${current.child_count === 1 ? 'y' : 'ies'} and ${current.article_count} article(s); move or delete them first`,
            { child_count: current.child_count, article_count: current.article_count },
          );
        }
        await deleteKbCategory(trx, actor.tenant, id);
        await emitKbSettingsEvent(trx, actor.tenant, 'kb_category', 'deleted', id);
      });
    },
  };
}

export type KbCategoriesService = ReturnType<typeof createKbCategoriesService>;
