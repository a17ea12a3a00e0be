import { Type, type Static, type TSchema, type TUnsafe } from 'typebox';

/** Shared building blocks so two endpoints never disagree about what an id or a date is. */
export const Id = Type.String({ format: 'uuid', description: 'UUID' });
export const Timestamp = Type.String({ format: 'date-time', description: 'ISO 8601 UTC timestamp with milliseconds' });
export const DateOnly = Type.String({ format: 'date', description: 'YYYY-MM-DD' });
export const Name = Type.String({ minLength: 1, maxLength: 255 });
export const Email = Type.String({ format: 'email', maxLength: 254 });
export const Phone = Type.String({ maxLength: 50 });
export const Markdown = Type.String({ maxLength: 100_000 });

/**
 * `T | null` written as `type: [t, 'null']` rather than `anyOf`: fast-json-stringify serializes a type
 * list directly but runs a validator per value to pick an `anyOf` branch, which is slow on hot paths.
 */
export function Nullable<T extends TSchema>(schema: T): TUnsafe<Static<T> | null> {
  const { type } = schema as { type?: unknown };
  if (typeof type === 'string' && type !== 'object') {
    return Type.Unsafe<Static<T> | null>({ ...schema, type: [type, 'null'] });
  }
  return Type.Unsafe<Static<T> | null>(Type.Union([schema, Type.Null()]));
}

export const IdParams = Type.Object({ id: Id }, { additionalProperties: false });
/** The query string of a route that takes none (unknown parameters are a 400). */
export const NoQuery = Type.Object({}, { additionalProperties: false });
/** The body of an action route that takes none: an empty object, or no body with `emptyBodyIsObject`. */
export const NoBody = Type.Object({}, { additionalProperties: false, description: 'No body (an empty object is accepted)' });

export const ErrorEnvelope = Type.Object(
  {
    error: Type.Object({
      code: Type.String(),
      message: Type.String(),
      details: Type.Optional(Type.Unknown()),
      request_id: Type.Optional(Type.String()),
    }),
  },
  { $id: 'ErrorEnvelope', description: 'The error envelope every failure uses' },
);

const ABSENT_AFTER_CURSOR = 'Absent on a page requested with `cursor` (a keyset page is not counted, so every page costs the same)';

export const Pagination = Type.Object({
  page: Type.Optional(Type.Integer({ description: `The page number. ${ABSENT_AFTER_CURSOR}` })),
  limit: Type.Integer(),
  total: Type.Optional(Type.Integer({ description: `Rows matching the filters. ${ABSENT_AFTER_CURSOR}` })),
  totalPages: Type.Optional(Type.Integer({ description: `Pages of \`limit\` rows. ${ABSENT_AFTER_CURSOR}` })),
  hasNext: Type.Boolean(),
  hasPrev: Type.Boolean(),
  nextCursor: Type.Optional(Type.String({
    description: 'With `sort=updated_at` (ascending): set whenever more rows follow this page, the first page included. Pass it as `cursor` (with the same query) for the next page; absent on the last page',
  })),
});

/** The sort every list has: the keyset walk for sync (keyset.ts). */
const KEYSET_SORT = 'updated_at';

/**
 * Query fields every list accepts; a resource adds its filters and its own sort whitelist (`updated_at`
 * is added when the area's lacks it: every list walks by keyset).
 */
export function listQuery<S extends string, P extends Record<string, TSchema>>(sortFields: readonly S[], filters: P) {
  const sorts: (S | typeof KEYSET_SORT)[] = sortFields.includes(KEYSET_SORT as S) ? [...sortFields] : [...sortFields, KEYSET_SORT];
  return Type.Object(
    {
      page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1 })),
      limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 25 })),
      sort: Type.Optional(Type.Enum(sorts, {
        description: '`updated_at` sorts ascending by when a row last changed (then its id) unless `order=desc`, and then pages by keyset: see `cursor`',
      })),
      order: Type.Optional(Type.Enum(['asc', 'desc'])),
      updated_since: Type.Optional(Timestamp),
      cursor: Type.Optional(Type.String({
        minLength: 1,
        maxLength: 512,
        description: 'Continues a `sort=updated_at` walk after the page whose `pagination.nextCursor` it is (opaque and signed: pass it unchanged, with the same filters; not with `page` or `order=desc`). Every page costs the same however deep the walk; a row updated during the walk shows up again later with its new `updated_at`, and no row is skipped',
      })),
      ...filters,
    },
    { additionalProperties: false },
  );
}

export const dataOf = <T extends TSchema>(item: T) => Type.Object({ data: item });
export const listOf = <T extends TSchema>(item: T) => Type.Object({ data: Type.Array(item), pagination: Pagination });
