import { Type, type Static } from 'typebox';
import { Id, Timestamp, dataOf, listOf, listQuery } from '../../../platform/http/schemas.ts';
import { iso } from '../../../platform/time.ts';
import type { ChecklistItemRow } from './checklist.repo.ts';

export const ChecklistItem = Type.Object({
  checklist_item_id: Id,
  task_id: Id,
  item_name: Type.String(),
  completed: Type.Boolean(),
  position: Type.Integer({ description: '1-based order in the task\'s checklist, without gaps' }),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type ChecklistItem = Static<typeof ChecklistItem>;

export function toChecklistItem(row: ChecklistItemRow): ChecklistItem {
  return {
    checklist_item_id: row.checklist_item_id,
    task_id: row.task_id,
    item_name: row.item_name,
    completed: row.completed,
    position: row.position,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

const itemName = Type.String({ minLength: 1, maxLength: 500, description: 'Trimmed; not blank' });
const position = Type.Integer({ minimum: 1, maximum: 100_000, description: '1-based; later items move down one. Past the end means last' });

export const CreateChecklistItemBody = Type.Object(
  { item_name: itemName, completed: Type.Optional(Type.Boolean({ default: false })), position: Type.Optional(position) },
  { additionalProperties: false },
);
export type CreateChecklistItemBody = Static<typeof CreateChecklistItemBody>;

export const UpdateChecklistItemBody = Type.Object(
  { item_name: Type.Optional(itemName), completed: Type.Optional(Type.Boolean()), position: Type.Optional(position) },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateChecklistItemBody = Static<typeof UpdateChecklistItemBody>;

export const ListChecklistQuery = listQuery(['position'] as const, {});
export type ListChecklistQuery = Static<typeof ListChecklistQuery>;

export const ChecklistItemParams = Type.Object({ taskId: Id, itemId: Id }, { additionalProperties: false });

export const ChecklistItemResponse = dataOf(ChecklistItem);
export const ChecklistListResponse = listOf(ChecklistItem);
