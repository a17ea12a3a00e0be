import { Type, type Static } from 'typebox';
import { Id, dataOf } from '../../platform/http/schemas.ts';
import { CreateUserBody } from './users.schemas.ts';

export const BULK_MAX = 100;

export const BulkCreateUsersBody = Type.Object(
  {
    users: Type.Array(CreateUserBody, { minItems: 1, maxItems: BULK_MAX }),
    options: Type.Optional(
      Type.Object(
        {
          dry_run: Type.Optional(Type.Boolean({ default: false, description: 'Check every item (including uniqueness within the batch) and write nothing' })),
          stop_on_error: Type.Optional(Type.Boolean({ default: false, description: 'Stop at the first failed item; items after it are skipped (not in results)' })),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);
export type BulkCreateUsersBody = Static<typeof BulkCreateUsersBody>;

export const BulkDeactivateUsersBody = Type.Object(
  {
    user_ids: Type.Array(Id, { minItems: 1, maxItems: BULK_MAX, uniqueItems: true }),
    deactivate: Type.Optional(Type.Boolean({ default: true, description: 'false reactivates the users instead' })),
  },
  { additionalProperties: false },
);
export type BulkDeactivateUsersBody = Static<typeof BulkDeactivateUsersBody>;

export const BULK_STATUSES = ['created', 'deactivated', 'activated', 'unchanged', 'error'] as const;
export type BulkStatus = (typeof BULK_STATUSES)[number];

export const BulkItemError = Type.Object({ code: Type.String(), message: Type.String() });
export type BulkItemError = Static<typeof BulkItemError>;

export const BulkResult = Type.Object({
  index: Type.Optional(Type.Integer({ minimum: 0, description: 'Position of the item in `users` (bulk create)' })),
  user_id: Type.Optional(Id),
  status: Type.Enum([...BULK_STATUSES]),
  error: Type.Optional(BulkItemError),
});
export type BulkResult = Static<typeof BulkResult>;

export const BulkOutcome = Type.Object({
  results: Type.Array(BulkResult),
  summary: Type.Object({
    succeeded: Type.Integer({ minimum: 0, description: 'Items that succeeded (or would, in a dry run); unchanged items count here' }),
    failed: Type.Integer({ minimum: 0 }),
    skipped: Type.Integer({ minimum: 0, description: 'Items not attempted because stop_on_error stopped the run' }),
  }),
  dry_run: Type.Boolean(),
});
export type BulkOutcome = Static<typeof BulkOutcome>;

export const BulkOutcomeResponse = dataOf(BulkOutcome);
