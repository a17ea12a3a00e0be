import type { Kysely } from 'kysely';
import type { Actor } from '../../../platform/auth/context.ts';
import { withTransaction } from '../../../platform/db/executor.ts';
import type { DB } from '../../../platform/db/schema.ts';
import { listPage } from '../../../platform/http/list.ts';
import { requireVisibleTask } from '../tasks/tasks.writes.ts';
import { checklistList } from './checklist.repo.ts';
import { toChecklistItem, type ChecklistItem, type CreateChecklistItemBody, type ListChecklistQuery, type UpdateChecklistItemBody } from './checklist.schemas.ts';
import { createChecklistItemInTrx, deleteChecklistItemInTrx, updateChecklistItemInTrx } from './checklist.writes.ts';

/** A task's checklist; every write runs in one transaction under the project's lock (see checklist.writes.ts). */
export function createChecklistService(deps: { db: Kysely<DB> }) {
  const { db } = deps;
  return {
    async list(actor: Actor, taskId: string, query: ListChecklistQuery) {
      await requireVisibleTask(db, actor, taskId);
      return listPage(query, checklistList(db, actor.tenant, taskId), (rows) => rows.map(toChecklistItem));
    },
    create(actor: Actor, taskId: string, body: CreateChecklistItemBody): Promise<ChecklistItem> {
      return withTransaction(db, (trx) => createChecklistItemInTrx(trx, actor, taskId, body));
    },
    update(actor: Actor, taskId: string, itemId: string, body: UpdateChecklistItemBody, ifMatch?: string): Promise<ChecklistItem> {
      return withTransaction(db, (trx) => updateChecklistItemInTrx(trx, actor, taskId, itemId, body, ifMatch));
    },
    remove(actor: Actor, taskId: string, itemId: string, ifMatch?: string): Promise<void> {
      return withTransaction(db, (trx) => deleteChecklistItemInTrx(trx, actor, taskId, itemId, ifMatch));
    },
  };
}

export type ChecklistService = ReturnType<typeof createChecklistService>;
