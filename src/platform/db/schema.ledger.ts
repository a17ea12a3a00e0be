import type { ColumnType, Generated } from 'kysely';

/** Kysely table types of migration 0022_ledger (src/modules/ledger); kept apart from schema.ts. */

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type CreatedAt = ColumnType<Date, Date | string | undefined, never>;
type Json<T> = ColumnType<T, string | T | undefined, string | T>;

export type LedgerConnectionStatus = 'active' | 'expired' | 'error' | 'disconnected';
export type LedgerEntityType = 'customer' | 'invoice' | 'payment' | 'item' | 'tax_code' | 'account' | 'term' | 'payment_method';
export type LedgerSyncStatus = 'synced' | 'pending' | 'error' | 'conflict' | 'drift';
export type LedgerOperation = 'customer_sync' | 'invoice_export' | 'invoice_import' | 'payment_sync' | 'full_sync' | 'bulk_sync';
export type LedgerRunStatus = 'pending' | 'in_progress' | 'completed' | 'partial' | 'failed' | 'cancelled';

export interface LedgerConnectionsTable {
  tenant: string;
  connection_id: string;
  provider: string;
  realm_id: string;
  display_name: string | null;
  country: string | null;
  currency_code: string | null;
  status: Generated<LedgerConnectionStatus>;
  tokens_enc: string | null;
  access_token_expires_at: Date | null;
  refresh_token_expires_at: Date | null;
  is_default: Generated<boolean>;
  last_validated_at: Date | null;
  last_refreshed_at: Date | null;
  last_error: string | null;
  health_checked_at: Generated<Date | null>;
  health_status: Generated<string | null>;
  health_alerted_at: Generated<Date | null>;
  connected_by: string | null;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

export interface LedgerOauthStatesTable {
  tenant: string;
  nonce: string;
  provider: string;
  redirect_uri: string;
  user_id: string | null;
  expires_at: Date;
  used_at: Date | null;
  created_at: CreatedAt;
}

export interface LedgerMappingsTable {
  tenant: string;
  mapping_id: string;
  connection_id: string;
  entity_type: LedgerEntityType;
  local_id: string;
  external_id: string;
  external_name: string | null;
  is_default: Generated<boolean>;
  sync_status: Generated<LedgerSyncStatus>;
  last_synced_at: Date | null;
  sync_error: string | null;
  metadata: Json<Record<string, unknown>>;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

export interface LedgerSyncRunsTable {
  tenant: string;
  sync_id: string;
  connection_id: string;
  operation_type: LedgerOperation;
  status: Generated<LedgerRunStatus>;
  parameters: Json<Record<string, unknown>>;
  parent_sync_id: string | null;
  requested_by: string | null;
  attempt: Generated<number>;
  cancel_requested: Generated<boolean>;
  started_at: Date | null;
  completed_at: Date | null;
  records_processed: Generated<number>;
  records_successful: Generated<number>;
  records_failed: Generated<number>;
  records_skipped: Generated<number>;
  error_message: string | null;
  error_details: Json<Record<string, unknown> | null>;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

export interface LedgerSyncOutcomesTable {
  tenant: string;
  sync_id: string;
  outcome_id: string;
  entity_type: string;
  local_id: string | null;
  external_id: string | null;
  outcome: string;
  message: string | null;
  created_at: CreatedAt;
}

export interface LedgerHealthConfigTable {
  tenant: string;
  config: Json<Record<string, unknown>>;
  updated_by: string | null;
  updated_at: Timestamp;
}

export interface LedgerTables {
  ledger_connections: LedgerConnectionsTable;
  ledger_oauth_states: LedgerOauthStatesTable;
  ledger_mappings: LedgerMappingsTable;
  ledger_sync_runs: LedgerSyncRunsTable;
  ledger_sync_outcomes: LedgerSyncOutcomesTable;
  ledger_health_config: LedgerHealthConfigTable;
}
