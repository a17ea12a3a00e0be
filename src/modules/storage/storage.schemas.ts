import { Type, type Static } from 'typebox';
import { Nullable, Timestamp } from '../../platform/http/schemas.ts';

export const NAMESPACE_PATTERN = '^[a-z0-9][a-z0-9._-]*$';
export const KEY_PATTERN = '^[^/\\u0000]+$';

const Namespace = Type.String({ minLength: 1, maxLength: 64, pattern: NAMESPACE_PATTERN, description: 'Lowercase letters, digits, `.`, `_`, `-`; 1–64 characters' });
const Key = Type.String({ minLength: 1, maxLength: 256, pattern: KEY_PATTERN, description: '1–256 characters, no `/` (nor U+0000)' });
const TtlSeconds = Type.Integer({ minimum: 1, maximum: 31_536_000, description: 'Expiry in seconds (1 to 365 days); omit for no expiry' });
const IfRevision = Type.Integer({ minimum: 0, maximum: 2_147_483_647, description: 'Apply only if the stored revision equals this; 0 = only if absent' });
const AnyJson = Type.Unknown({ description: 'Any JSON value, null included (≤ 64 KiB serialized)' });
const MetadataIn = Type.Unknown({ description: 'A JSON object (≤ 4 KiB serialized)' });

export const NamespaceParams = Type.Object({ namespace: Namespace }, { additionalProperties: false });
export const RecordParams = Type.Object({ namespace: Namespace, key: Key }, { additionalProperties: false });

export const PutRecordBody = Type.Object(
  {
    value: AnyJson,
    metadata: Type.Optional(MetadataIn),
    ttlSeconds: Type.Optional(TtlSeconds),
    ifRevision: Type.Optional(IfRevision),
  },
  { additionalProperties: false, required: ['value'] },
);
export type PutRecordBody = Static<typeof PutRecordBody>;

export const BulkItem = Type.Object(
  {
    key: Key,
    value: AnyJson,
    metadata: Type.Optional(MetadataIn),
    ttlSeconds: Type.Optional(TtlSeconds),
    ifRevision: Type.Optional(IfRevision),
  },
  { additionalProperties: false, required: ['key', 'value'] },
);
export type BulkItem = Static<typeof BulkItem>;

export const BulkWriteBody = Type.Object(
  { items: Type.Array(BulkItem, { minItems: 1, maxItems: 100, description: '1–100 items, ≤ 1 MiB of values and metadata' }) },
  { additionalProperties: false },
);
export type BulkWriteBody = Static<typeof BulkWriteBody>;

export const DeleteRecordQuery = Type.Object({ ifRevision: Type.Optional(IfRevision) }, { additionalProperties: false });

export const ListRecordsQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 25 })),
    cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 2048, description: 'Opaque; from nextCursor' })),
    keyPrefix: Type.Optional(Type.String({ minLength: 1, maxLength: 256, pattern: '^[^\\u0000]+$' })),
    includeValues: Type.Optional(Type.Boolean({ default: true })),
    includeMetadata: Type.Optional(Type.Boolean({ default: true })),
  },
  { additionalProperties: false },
);
export type ListRecordsQuery = Static<typeof ListRecordsQuery>;

const Metadata = Type.Unsafe<Record<string, unknown> | null>({ type: ['object', 'null'], additionalProperties: true, description: 'A JSON object or null' });

export const StorageRecord = Type.Object({
  namespace: Type.String(),
  key: Type.String(),
  value: Type.Unknown(),
  metadata: Metadata,
  revision: Type.Integer(),
  ttlExpiresAt: Nullable(Timestamp),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type StorageRecord = Static<typeof StorageRecord>;

/** In lists, `value` and `metadata` are left out when includeValues / includeMetadata is false. */
const ListedRecord = Type.Object({
  namespace: Type.String(),
  key: Type.String(),
  value: Type.Optional(Type.Unknown()),
  metadata: Type.Optional(Metadata),
  revision: Type.Integer(),
  ttlExpiresAt: Nullable(Timestamp),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export type ListedRecord = Static<typeof ListedRecord>;

export const RecordResponse = Type.Object({ data: StorageRecord });
export const BulkWriteResponse = Type.Object({ data: Type.Object({ items: Type.Array(StorageRecord) }) });
export const RecordListResponse = Type.Object({
  data: Type.Object({ items: Type.Array(ListedRecord), nextCursor: Nullable(Type.String()) }),
});
