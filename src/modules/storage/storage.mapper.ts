import type { Selectable } from 'kysely';
import type { StorageRecordsTable } from '../../platform/db/schema.ts';
import type { ListedRecord, StorageRecord } from './storage.schemas.ts';
import { iso } from '../../platform/time.ts';

export type StorageRecordRow = Selectable<StorageRecordsTable>;

export function toRecord(row: StorageRecordRow): StorageRecord {
  return {
    namespace: row.namespace,
    key: row.key,
    value: JSON.parse(row.value) as unknown,
    metadata: row.metadata === null ? null : (JSON.parse(row.metadata) as Record<string, unknown>),
    revision: row.revision,
    ttlExpiresAt: row.ttl_expires_at ? iso(row.ttl_expires_at) : null,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

/** A list item: `value` / `metadata` left out when the caller asked for them not to be included. */
export function toListed(row: StorageRecordRow, opts: { values: boolean; metadata: boolean }): ListedRecord {
  const { value, metadata, ...rest } = toRecord(row);
  return { ...rest, ...(opts.values ? { value } : {}), ...(opts.metadata ? { metadata } : {}) };
}
