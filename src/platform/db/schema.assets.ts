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

export type AssetStatus = 'active' | 'inactive' | 'in_repair' | 'in_stock' | 'retired' | 'lost';
export type MaintenanceType = 'preventive' | 'inspection' | 'calibration' | 'replacement' | 'corrective';
export type MaintenanceFrequency = 'daily' | 'weekly' | 'monthly' | 'quarterly' | 'yearly' | 'custom';
export type AssetRelationshipType = 'depends_on' | 'connected_to' | 'contains' | 'runs_on' | 'backs_up';
export type AssetTicketRelationship = 'affected' | 'caused_by' | 'related';

export interface AssetsTable {
  tenant: string;
  asset_id: string;
  client_id: string;
  asset_type: string;
  asset_tag: string;
  name: string;
  status: AssetStatus;
  serial_number: string | null;
  location: string | null;
  /** `date` columns come back as 'YYYY-MM-DD' strings (DATE_OID parser). */
  warranty_end_date: string | null;
  manufacturer: string | null;
  model: string | null;
  purchase_date: string | null;
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

export interface AssetMaintenanceSchedulesTable {
  tenant: string;
  schedule_id: string;
  asset_id: string;
  schedule_name: string;
  description: string | null;
  maintenance_type: MaintenanceType;
  frequency: MaintenanceFrequency;
  frequency_interval: number;
  start_date: string;
  next_due: string;
  last_performed_at: Date | null;
  is_active: Generated<boolean>;
  created_by: string | null;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

export interface AssetRelationshipsTable {
  tenant: string;
  relationship_id: string;
  asset_id: string;
  related_asset_id: string;
  relationship_type: AssetRelationshipType;
  created_by: string | null;
  created_at: CreatedAt;
}

export interface DocumentsTable {
  tenant: string;
  document_id: string;
  file_name: string;
  mime_type: string;
  size_bytes: number;
  sha256: string;
  content: Buffer;
  uploaded_by: string | null;
  created_at: CreatedAt;
}

export interface AssetDocumentsTable {
  tenant: string;
  association_id: string;
  asset_id: string;
  document_id: string;
  notes: string | null;
  created_by: string | null;
  created_at: CreatedAt;
}

export interface AssetTicketLinksTable {
  tenant: string;
  asset_id: string;
  ticket_id: string;
  relationship_type: AssetTicketRelationship;
  notes: string | null;
  created_by: string | null;
  created_at: CreatedAt;
}

export interface AssetTables {
  asset_types: AssetTypesTable;
  assets: AssetsTable;
  asset_history: AssetHistoryTable;
  asset_maintenance_schedules: AssetMaintenanceSchedulesTable;
  asset_relationships: AssetRelationshipsTable;
  documents: DocumentsTable;
  asset_documents: AssetDocumentsTable;
  asset_ticket_links: AssetTicketLinksTable;
}
