import type { Transaction } from 'kysely';
import type { Actor } from '../../../platform/auth/context.ts';
import type { DB } from '../../../platform/db/schema.ts';
import { assertIfMatch } from '../../../platform/http/etag.ts';
import { notFound } from '../../../platform/http/errors.ts';
import { requiredText } from '../../../platform/http/text.ts';
import { newId } from '../../../platform/ids.ts';
import { requireVisibleTask } from '../tasks/tasks.writes.ts';
import {
  countChecklist,
  deleteChecklistItem,
  findChecklistItem,
  insertChecklistItem,
  shiftChecklist,
  updateChecklistItem,
  type ChecklistItemRow,
} from './checklist.repo.ts';
import { toChecklistItem, type ChecklistItem, type CreateChecklistItemBody, type UpdateChecklistItemBody } from './checklist.schemas.ts';

/** The item if it belongs to this task and the actor may see the task's project; otherwise 404. `lock` locks the project first. */
export async function requireChecklistItem(trx: Transaction<DB>, actor: Actor, taskId: string, itemId: string, lock = false): Promise<ChecklistItemRow> {
  await requireVisibleTask(trx, actor, taskId, lock);
  const item = await findChecklistItem(trx, actor.tenant, itemId);
  if (!item || item.task_id !== taskId) throw notFound('Checklist item', itemId);
  return item;
}

/** Adds an item at `position` (default last; past the end means last), moving later items down one. */
export async function createChecklistItemInTrx(trx: Transaction<DB>, actor: Actor, taskId: string, body: CreateChecklistItemBody): Promise<ChecklistItem> {
  const { tenant } = actor;
  const itemName = requiredText(body.item_name, 'body.item_name');
  await requireVisibleTask(trx, actor, taskId, true);
  const count = await countChecklist(trx, tenant, taskId);
  const position = Math.min(body.position ?? count + 1, count + 1);
  await shiftChecklist(trx, tenant, taskId, position, count, 1);
  const itemId = newId();
  const now = new Date();
  await insertChecklistItem(trx, { tenant, checklist_item_id: itemId, task_id: taskId, item_name: itemName, completed: body.completed ?? false, position, created_at: now, updated_at: now });
  return toChecklistItem((await findChecklistItem(trx, tenant, itemId))!);
}

/** Renames, ticks/unticks or moves an item (its siblings renumbered), honouring If-Match. */
export async function updateChecklistItemInTrx(trx: Transaction<DB>, actor: Actor, taskId: string, itemId: string, patch: UpdateChecklistItemBody, ifMatch?: string): Promise<ChecklistItem> {
  const { tenant } = actor;
  const current = await requireChecklistItem(trx, actor, taskId, itemId, true);
  assertIfMatch(ifMatch, toChecklistItem(current));
  const set: Record<string, unknown> = {};
  if (patch.item_name !== undefined) set.item_name = requiredText(patch.item_name, 'body.item_name');
  if (patch.completed !== undefined) set.completed = patch.completed;
  if (patch.position !== undefined) {
    const target = Math.min(patch.position, await countChecklist(trx, tenant, taskId));
    if (target < current.position) await shiftChecklist(trx, tenant, taskId, target, current.position - 1, 1);
    if (target > current.position) await shiftChecklist(trx, tenant, taskId, current.position + 1, target, -1);
    set.position = target;
  }
  await updateChecklistItem(trx, tenant, itemId, { ...set, updated_at: new Date() });
  return toChecklistItem((await findChecklistItem(trx, tenant, itemId))!);
}

export async function deleteChecklistItemInTrx(trx: Transaction<DB>, actor: Actor, taskId: string, itemId: string, ifMatch?: string): Promise<void> {
  const { tenant } = actor;
  const current = await requireChecklistItem(trx, actor, taskId, itemId, true);
  assertIfMatch(ifMatch, toChecklistItem(current));
  await deleteChecklistItem(trx, tenant, itemId);
  await shiftChecklist(trx, tenant, taskId, current.position + 1, 2_147_483_647, -1);
}
