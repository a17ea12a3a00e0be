import type { ColumnType, Generated } from 'kysely';

/** Kysely table types of migration 0009_assets; kept apart from schema.ts so each area edits only its own file. */
type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type CreatedAt = ColumnType<Date, Date | string | undefined, never>;
type Json<T> = ColumnType<T, string | undefined, string>;

export interface AssetTypesTable {
  tenant: string;
  slug: string;
  type_name: string;
  description: string | null;
  is_builtin: Generated<boolean>;
  field_schema: Json<unknown[]>;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

export interface AssetsTable {
  tenant: string;
  asset_id: string;
  client_id: string;
  asset_type: string;
  asset_tag: string;
  name: string;
  status: string;
  serial_number: string | null;
  location: string | null;
  /** `date` columns come back as 'YYYY-MM-DD' strings (DATE_OID parser). */
  warranty_end_date: string | null;
  attributes: Json<Record<string, unknown>>;
  notes: string | null;
  notes_updated_at: Date | null;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

export interface AssetHistoryTable {
  tenant: string;
  history_id: string;
  asset_id: string;
  entry_type: 'maintenance' | 'rmm_command';
  schedule_id: string | null;
  maintenance_type: string | null;
  command: string | null;
  description: string | null;
  performed_at: Timestamp;
  performed_by: string | null;
  details: Json<Record<string, unknown>>;
  created_at: CreatedAt;
}

export interface AssetTables {
  asset_types: AssetTypesTable;
  assets: AssetsTable;
  asset_history: AssetHistoryTable;
}
