import type { ColumnType, Generated } from 'kysely';

/** Kysely table types of migration 0010_asset_rmm; kept apart from schema.ts so each area edits only its own file. */
type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type CreatedAt = ColumnType<Date, Date | string | undefined, never>;
type NullableJson<T> = ColumnType<T | null, string | null | undefined, string | null>;

export interface RmmIntegrationsTable {
  tenant: string;
  integration_id: string;
  provider: string;
  name: string;
  base_url: string;
  credentials_enc: string;
  api_key_last4: Generated<string>;
  is_active: Generated<boolean>;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

export interface AssetRmmLinksTable {
  tenant: string;
  asset_id: string;
  integration_id: string;
  external_device_id: string;
  agent_status: Generated<'online' | 'offline' | 'overdue' | 'unknown'>;
  device_data: NullableJson<Record<string, unknown>>;
  software: NullableJson<unknown[]>;
  last_synced_at: Date | null;
  linked_at: CreatedAt;
}

export interface AssetRmmTables {
  rmm_integrations: RmmIntegrationsTable;
  asset_rmm_links: AssetRmmLinksTable;
}
