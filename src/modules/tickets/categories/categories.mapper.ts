import type { CategoryRow } from './categories.repo.ts';
import type { Category } from './categories.schemas.ts';

export const toCategory = (row: CategoryRow): Category => ({
  category_id: row.category_id,
  category_name: row.category_name,
  parent_category_id: row.parent_category_id,
  board_id: row.board_id,
  created_at: row.created_at.toISOString(),
  updated_at: row.updated_at.toISOString(),
});
