import { Type, type Static } from 'typebox';
import { Id, Nullable, Timestamp, dataOf, listOf, listQuery } from '../../../platform/http/schemas.ts';

export const Priority = Type.Object({
  priority_id: Id,
  priority_name: Type.String(),
  order_number: Type.Integer({ description: 'Ascending: sorting tickets by priority follows it' }),
  color: Nullable(Type.String({ description: '#RRGGBB' })),
  is_default: Type.Boolean({ description: 'New tickets get the default priority when they name none; exactly one per tenant' }),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type Priority = Static<typeof Priority>;

const priorityName = Type.String({ minLength: 1, maxLength: 100, description: 'Trimmed; unique per tenant regardless of case' });
const orderNumber = Type.Integer({ minimum: 0, maximum: 1_000_000, description: 'Default: after the last priority' });
const color = Nullable(Type.String({ pattern: '^#[0-9A-Fa-f]{6}$', minLength: 7, maxLength: 7, description: '#RRGGBB; stored upper-case' }));

export const CreatePriorityBody = Type.Object(
  {
    priority_name: priorityName,
    order_number: Type.Optional(orderNumber),
    color: Type.Optional(color),
    is_default: Type.Optional(Type.Boolean({ description: 'true makes it the tenant\'s default priority' })),
  },
  { additionalProperties: false },
);
export type CreatePriorityBody = Static<typeof CreatePriorityBody>;

export const UpdatePriorityBody = Type.Object(
  {
    priority_name: Type.Optional(priorityName),
    order_number: Type.Optional(orderNumber),
    color: Type.Optional(color),
    is_default: Type.Optional(Type.Boolean({ description: 'true moves the default here; the default cannot be unset, only moved' })),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdatePriorityBody = Static<typeof UpdatePriorityBody>;

export const PRIORITY_SORT_FIELDS = ['order_number', 'priority_name', 'created_at', 'updated_at'] as const;
export type PrioritySortField = (typeof PRIORITY_SORT_FIELDS)[number];
export const ListPrioritiesQuery = listQuery(PRIORITY_SORT_FIELDS, {});
export type ListPrioritiesQuery = Static<typeof ListPrioritiesQuery>;

export const PriorityParams = Type.Object({ priorityId: Id }, { additionalProperties: false });
export const PriorityResponse = dataOf(Priority);
export const PriorityListResponse = listOf(Priority);
