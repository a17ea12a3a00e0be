import type { BoardRow, StatusRow } from './boards.repo.ts';
import type { Board, Status } from './boards.schemas.ts';

export const toBoard = (row: BoardRow): Board => ({
  board_id: row.board_id,
  board_name: row.board_name,
  description: row.description,
  is_default: row.is_default,
  is_active: row.is_active,
  display_order: row.display_order,
  created_at: row.created_at.toISOString(),
  updated_at: row.updated_at.toISOString(),
});

export const toStatus = (row: StatusRow): Status => ({
  status_id: row.status_id,
  board_id: row.board_id,
  name: row.name,
  is_closed: row.is_closed,
  is_default: row.is_default,
  order_number: row.order_number,
  created_at: row.created_at.toISOString(),
  updated_at: row.updated_at.toISOString(),
});
