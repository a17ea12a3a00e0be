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

export const Pagination = Type.Object({
  page: Type.Integer(),
  limit: Type.Integer(),
  total: Type.Integer(),
  totalPages: Type.Integer(),
  hasNext: Type.Boolean(),
  hasPrev: Type.Boolean(),
});

/** Query fields every list accepts; a resource adds its filters and its own sort whitelist. */
export function listQuery<S extends string, P extends Record<string, TSchema>>(sortFields: readonly S[], filters: P) {
  return Type.Object(
    {
      page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1 })),
      limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 25 })),
      sort: Type.Optional(Type.Enum([...sortFields])),
      order: Type.Optional(Type.Enum(['asc', 'desc'])),
      updated_since: Type.Optional(Timestamp),
      ...filters,
    },
    { additionalProperties: false },
  );
}

export const dataOf = <T extends TSchema>(item: T) => Type.Object({ data: item });
export const listOf = <T extends TSchema>(item: T) => Type.Object({ data: Type.Array(item), pagination: Pagination });
