import { Type, type Static } from 'typebox';
import { Id, Nullable, Timestamp, dataOf, listOf, listQuery } from '../../../platform/http/schemas.ts';

export const Board = Type.Object({
  board_id: Id,
  board_name: Type.String(),
  description: Nullable(Type.String()),
  is_default: Type.Boolean({ description: 'New tickets land on the default board when they name none; exactly one per tenant' }),
  is_active: Type.Boolean({ description: 'Inactive boards keep their tickets but take no new ones' }),
  display_order: Type.Integer({ description: 'Ascending display position' }),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type Board = Static<typeof Board>;

export const Status = Type.Object({
  status_id: Id,
  board_id: Id,
  name: Type.String(),
  is_closed: Type.Boolean({ description: 'Tickets in this status count as closed' }),
  is_default: Type.Boolean({ description: 'The status new tickets of the board start in; exactly one per board, always an open one' }),
  order_number: Type.Integer({ description: 'Ascending position in the board\'s workflow' }),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type Status = Static<typeof Status>;

const boardName = Type.String({ minLength: 1, maxLength: 100, description: 'Trimmed; unique per tenant regardless of case' });
const boardDescription = Nullable(Type.String({ maxLength: 1000, description: 'Blank means none' }));
const displayOrder = Type.Integer({ minimum: 0, maximum: 1_000_000 });
const statusName = Type.String({ minLength: 1, maxLength: 100, description: 'Trimmed; unique per board regardless of case' });
const orderNumber = Type.Integer({ minimum: 0, maximum: 1_000_000, description: 'Default: after the board\'s last status' });

export const StatusSeed = Type.Object(
  {
    name: statusName,
    is_closed: Type.Optional(Type.Boolean({ default: false })),
    is_default: Type.Optional(Type.Boolean({ description: 'At most one; default: the first open status' })),
  },
  { additionalProperties: false },
);
export type StatusSeed = Static<typeof StatusSeed>;

export const CreateBoardBody = Type.Object(
  {
    board_name: boardName,
    description: Type.Optional(boardDescription),
    is_default: Type.Optional(Type.Boolean({ description: 'true makes it the tenant\'s default board (the previous default stops being one)' })),
    is_active: Type.Optional(Type.Boolean({ default: true })),
    display_order: Type.Optional(displayOrder),
    statuses: Type.Optional(Type.Array(StatusSeed, {
      minItems: 1,
      maxItems: 50,
      description: 'The board\'s statuses in workflow order, at least one open; default: Open, In Progress, Closed',
    })),
  },
  { additionalProperties: false },
);
export type CreateBoardBody = Static<typeof CreateBoardBody>;

export const UpdateBoardBody = Type.Object(
  {
    board_name: Type.Optional(boardName),
    description: Type.Optional(boardDescription),
    is_default: Type.Optional(Type.Boolean({ description: 'true moves the tenant\'s default here; the default cannot be unset, only moved' })),
    is_active: Type.Optional(Type.Boolean({ description: 'The default board stays active' })),
    display_order: Type.Optional(displayOrder),
  },
  { additionalProperties: false, minProperties: 1, description: 'Partial update; statuses change through /boards/{boardId}/statuses' },
);
export type UpdateBoardBody = Static<typeof UpdateBoardBody>;

export const BOARD_SORT_FIELDS = ['display_order', 'board_name', 'created_at', 'updated_at'] as const;
export type BoardSortField = (typeof BOARD_SORT_FIELDS)[number];
export const ListBoardsQuery = listQuery(BOARD_SORT_FIELDS, {
  is_active: Type.Optional(Type.Boolean()),
  search: Type.Optional(Type.String({ maxLength: 100, description: 'Case-insensitive substring of the name; blank means no search' })),
});
export type ListBoardsQuery = Static<typeof ListBoardsQuery>;

export const CreateStatusBody = Type.Object(
  {
    name: statusName,
    is_closed: Type.Optional(Type.Boolean({ default: false })),
    is_default: Type.Optional(Type.Boolean({ description: 'true makes it the board\'s default status (it must be open)' })),
    order_number: Type.Optional(orderNumber),
  },
  { additionalProperties: false },
);
export type CreateStatusBody = Static<typeof CreateStatusBody>;

export const UpdateStatusBody = Type.Object(
  {
    name: Type.Optional(statusName),
    is_closed: Type.Optional(Type.Boolean({ description: 'Cannot change while tickets use the status' })),
    is_default: Type.Optional(Type.Boolean({ description: 'true moves the board\'s default here; the default cannot be unset, only moved' })),
    order_number: Type.Optional(orderNumber),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateStatusBody = Static<typeof UpdateStatusBody>;

export const STATUS_SORT_FIELDS = ['order_number', 'name', 'created_at', 'updated_at'] as const;
export type StatusSortField = (typeof STATUS_SORT_FIELDS)[number];
export const ListStatusesQuery = listQuery(STATUS_SORT_FIELDS, { is_closed: Type.Optional(Type.Boolean()) });
export type ListStatusesQuery = Static<typeof ListStatusesQuery>;

export const BoardParams = Type.Object({ boardId: Id }, { additionalProperties: false });
export const StatusParams = Type.Object({ boardId: Id, statusId: Id }, { additionalProperties: false });

export const BoardResponse = dataOf(Board);
export const BoardListResponse = listOf(Board);
export const StatusResponse = dataOf(Status);
export const StatusListResponse = listOf(Status);
