import type { PriorityRow } from './priorities.repo.ts';
import type { Priority } from './priorities.schemas.ts';

export const toPriority = (row: PriorityRow): Priority => ({
  priority_id: row.priority_id,
  priority_name: row.priority_name,
  order_number: row.order_number,
  color: row.color,
  is_default: row.is_default,
  created_at: row.created_at.toISOString(),
  updated_at: row.updated_at.toISOString(),
});
