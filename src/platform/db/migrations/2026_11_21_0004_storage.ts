import type { Kysely } from 'kysely';
import { runStatements } from './run-statements.ts';

/**
 * Per-tenant key-value storage: the records, and exact usage counters kept in the same transaction as
 * every write (per namespace, and the tenant's totals) so quota checks never recount. Keys and
 * namespaces use the "C" collation (byte order) so keyset cursors and ORDER BY agree on every engine.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, `
    create table storage_records (
      tenant uuid not null references tenants (tenant_id),
      namespace text collate "C" not null,
      key text collate "C" not null,
      -- The JSON text exactly as written (text, not jsonb: kept byte for byte, NUL escapes included).
      value text not null,
      metadata text,
      revision integer not null,
      size_bytes integer not null,
      ttl_expires_at timestamptz(3),
      created_at timestamptz(3) not null,
      updated_at timestamptz(3) not null,
      primary key (tenant, namespace, key)
    );
    create index storage_records_expiry_idx on storage_records (ttl_expires_at) where ttl_expires_at is not null;

    create table storage_usage (
      tenant uuid not null references tenants (tenant_id),
      namespace text collate "C" not null,
      key_count integer not null default 0,
      bytes bigint not null default 0,
      primary key (tenant, namespace)
    );

    create table storage_tenant_usage (
      tenant uuid primary key references tenants (tenant_id),
      namespace_count integer not null default 0,
      bytes bigint not null default 0
    );
  `);
}
