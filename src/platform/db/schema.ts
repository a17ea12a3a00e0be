import type { ColumnType, Generated } from 'kysely';
import type { AssetTables } from './schema.assets.ts';
import type { AssetRmmTables } from './schema.rmm.ts';
import type { ProjectTemplateTables } from './schema.project-templates.ts';
import type { ProjectTables } from './schema.projects.ts';
import type { JobTables } from './schema.jobs.ts';
import type { BillingTables } from './schema.billing.ts';
import type { KbTables } from './schema.kb.ts';
import type { EventCause } from '../events/cause.ts';
import type { OpportunityTables } from './schema.opportunities.ts';
import type { AutomationTables } from './schema.automation.ts';
import type { LedgerTables } from './schema.ledger.ts';

/**
 * Table types for Kysely, kept in step with migrations/ by hand. Column names are the SQL names
 * (snake_case), which are also the API's field names, so mappers stay short.
 */
type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type CreatedAt = ColumnType<Date, Date | string | undefined, never>;

export interface TenantsTable {
  tenant_id: string;
  slug: string;
  name: string;
  plan: Generated<string>;
  addons: Generated<string[]>;
  subscription_status: 'active' | 'trialing' | 'past_due' | 'unpaid' | null;
  trial_end: Date | null;
  solo_pro_trial_end: Date | null;
  premium_trial_end: Date | null;
  premium_trial_confirmed: Generated<boolean>;
  premium_trial_effective_date: Date | null;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

export interface UsersTable {
  tenant: string;
  user_id: string;
  username: string;
  email: string;
  password_hash: string | null;
  first_name: string | null;
  last_name: string | null;
  user_type: 'internal' | 'client' | 'admin' | 'contractor';
  client_id: string | null;
  contact_id: string | null;
  is_inactive: Generated<boolean>;
  phone: string | null;
  timezone: string | null;
  preferences: ColumnType<Record<string, unknown>, string | undefined, string>;
  two_factor_enabled: Generated<boolean>;
  /** TOTP secrets, encrypted with platform/crypto/secret-box. */
  two_factor_secret_enc: string | null;
  two_factor_pending_secret_enc: string | null;
  two_factor_pending_at: Date | null;
  /** TOTP time step last accepted (replay protection). */
  two_factor_last_step: number | null;
  last_login_at: Date | null;
  failed_login_count: Generated<number>;
  locked_until: Date | null;
  password_changed_at: Date | null;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

export interface UserRecoveryCodesTable {
  tenant: string;
  user_id: string;
  code_hash: string;
  used_at: Date | null;
  created_at: CreatedAt;
}

export interface UserAvatarsTable {
  tenant: string;
  user_id: string;
  image: Buffer;
  content_type: string;
  etag: string;
  updated_at: Timestamp;
}

export interface UserActivityTable {
  tenant: string;
  activity_id: string;
  user_id: string;
  actor_user_id: string | null;
  activity_type: string;
  details: ColumnType<Record<string, unknown>, string | undefined, string>;
  ip: string | null;
  user_agent: string | null;
  created_at: CreatedAt;
}

export interface TeamsTable {
  tenant: string;
  team_id: string;
  team_name: string;
  description: string | null;
  manager_id: string | null;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

export interface TeamMembersTable {
  tenant: string;
  team_id: string;
  user_id: string;
  joined_at: CreatedAt;
}

export interface SessionsTable {
  tenant: string;
  session_id: string;
  user_id: string;
  token_hash: string;
  login_method: string;
  ip: string | null;
  user_agent: string | null;
  created_at: CreatedAt;
  last_seen_at: Timestamp;
  expires_at: Date;
  revoked_at: Date | null;
}

export interface AuthFlowsTable {
  state: string;
  provider: string;
  nonce: string;
  code_verifier: string;
  callback_url: string | null;
  tenant_slug: string | null;
  created_at: CreatedAt;
  expires_at: Date;
}

export interface RolesTable {
  tenant: string;
  role_id: string;
  role_name: string;
  description: string | null;
  is_builtin: Generated<boolean>;
  is_client_portal: Generated<boolean>;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

export interface RolePermissionsTable {
  tenant: string;
  role_id: string;
  permission: string;
}

export interface UserRolesTable {
  tenant: string;
  user_id: string;
  role_id: string;
}

export interface ApiKeysTable {
  tenant: string;
  api_key_id: string;
  user_id: string;
  name: string;
  key_hash: string;
  prefix: string;
  scopes: string[] | null;
  expires_at: Date | null;
  rate_limit_burst: number | null;
  rate_limit_per_minute: number | null;
  last_used_at: Date | null;
  revoked_at: Date | null;
  created_at: CreatedAt;
}

export interface EventsTable {
  tenant: string;
  event_id: string;
  event_type: string;
  aggregate_type: string;
  aggregate_id: string;
  payload: ColumnType<unknown, string, string>;
  occurred_at: Timestamp;
  status: Generated<'pending' | 'processing' | 'done' | 'dead'>;
  attempts: Generated<number>;
  next_attempt_at: Timestamp;
  locked_until: Date | null;
  completed_consumers: Generated<string[]>;
  last_error: string | null;
  processed_at: Date | null;
  /** What produced the event when an automation action did (see src/platform/events/cause.ts). */
  cause: ColumnType<EventCause | null, string | null | undefined, string | null>;
}

export interface IdempotencyKeysTable {
  tenant: string;
  owner_id: string;
  idem_key: string;
  request_hash: string;
  status_code: number | null;
  response_body: string | null;
  response_headers: ColumnType<Record<string, string> | null, string | null, string | null>;
  created_at: CreatedAt;
  expires_at: Date;
}

export type ClientType = 'company' | 'individual';
export type BillingCycle = 'weekly' | 'bi-weekly' | 'monthly' | 'quarterly' | 'semi-annually' | 'annually';

export interface ClientsTable {
  tenant: string;
  client_id: string;
  client_name: string;
  client_type: ClientType;
  billing_cycle: BillingCycle;
  payment_terms: string | null;
  default_currency_code: string;
  /** DATE: 'YYYY-MM-DD'. */
  client_since: string | null;
  tax_id_number: string | null;
  notes: string | null;
  notes_updated_at: Date | null;
  is_inactive: Generated<boolean>;
  merged_into_client_id: string | null;
  merged_at: Date | null;
  /** The user who merged the client (its tombstone's audit). */
  merged_by: string | null;
  parent_client_id: string | null;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

export interface ClientLocationsTable {
  tenant: string;
  location_id: string;
  client_id: string;
  location_name: string | null;
  address_line1: string | null;
  address_line2: string | null;
  city: string | null;
  state_province: string | null;
  postal_code: string | null;
  country_code: string;
  country_name: string;
  phone: string | null;
  email: string | null;
  is_default: Generated<boolean>;
  is_active: Generated<boolean>;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

export interface ContactsTable {
  tenant: string;
  contact_id: string;
  client_id: string | null;
  full_name: string;
  email: string | null;
  phone: string | null;
  role: string | null;
  is_inactive: Generated<boolean>;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

export interface ClientBillingProfilesTable {
  tenant: string;
  billing_profile_id: string;
  client_id: string;
  name: string;
  is_default: Generated<boolean>;
  is_active: Generated<boolean>;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

export interface BillingProfileContactsTable {
  tenant: string;
  billing_profile_id: string;
  contact_id: string;
  can_view_profile_tickets: Generated<boolean>;
  created_at: CreatedAt;
}

export interface StorageRecordsTable {
  tenant: string;
  namespace: string;
  key: string;
  /** Serialized JSON text (any JSON value, null included). */
  value: string;
  /** Serialized JSON object, or null. */
  metadata: string | null;
  revision: number;
  size_bytes: number;
  ttl_expires_at: Date | null;
  created_at: ColumnType<Date, Date | string, Date | string>;
  updated_at: Timestamp;
}

export interface StorageUsageTable {
  tenant: string;
  namespace: string;
  key_count: Generated<number>;
  /** bigint; database.ts parses int8 to a number. */
  bytes: ColumnType<number, number | undefined, number>;
}

export interface StorageTenantUsageTable {
  tenant: string;
  namespace_count: Generated<number>;
  /** bigint; database.ts parses int8 to a number. */
  bytes: ColumnType<number, number | undefined, number>;
}

export interface BoardsTable {
  tenant: string;
  board_id: string;
  board_name: string;
  description: string | null;
  is_default: Generated<boolean>;
  is_active: Generated<boolean>;
  display_order: Generated<number>;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

export interface TicketStatusesTable {
  tenant: string;
  status_id: string;
  board_id: string;
  name: string;
  is_closed: Generated<boolean>;
  is_default: Generated<boolean>;
  order_number: Generated<number>;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

export interface TicketPrioritiesTable {
  tenant: string;
  priority_id: string;
  priority_name: string;
  order_number: Generated<number>;
  color: string | null;
  is_default: Generated<boolean>;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

export interface TicketCategoriesTable {
  tenant: string;
  category_id: string;
  category_name: string;
  parent_category_id: string | null;
  board_id: string | null;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

export interface TicketNumberCountersTable {
  tenant: string;
  last_number: number;
}

export interface TicketsTable {
  tenant: string;
  ticket_id: string;
  /** The number behind ticket_number (T-000042 → 42), for numeric ordering. */
  ticket_seq: number;
  ticket_number: string;
  title: string;
  description: string | null;
  board_id: string;
  status_id: string;
  priority_id: string;
  category_id: string | null;
  subcategory_id: string | null;
  client_id: string;
  /** The API's contact_name_id. */
  contact_id: string | null;
  /** The billing profile the ticket belongs to: set when a merge moves it (null: the client's own). */
  billing_profile_id: string | null;
  assigned_to: string | null;
  assigned_team_id: string | null;
  due_date: Date | null;
  is_closed: Generated<boolean>;
  entered_by: string | null;
  entered_at: CreatedAt;
  updated_by: string | null;
  updated_at: Timestamp;
  closed_by: string | null;
  closed_at: Date | null;
}

export interface TicketCommentsTable {
  tenant: string;
  comment_id: string;
  ticket_id: string;
  comment_text: string;
  is_internal: Generated<boolean>;
  author_type: 'internal' | 'client';
  author_user_id: string | null;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

export interface TicketTagsTable {
  tenant: string;
  ticket_id: string;
  tag: string;
  created_at: CreatedAt;
}

export type WebhookDeliveryStatus = 'pending' | 'delivered' | 'retrying' | 'abandoned' | 'failed';

/** JSON columns (jsonb) of webhooks: read as objects, written as JSON text. */
type JsonColumn<T> = ColumnType<T, string | null | undefined, string | null>;

export interface WebhooksTable {
  tenant: string;
  webhook_id: string;
  name: string;
  description: string | null;
  url: string;
  event_types: string[];
  /** SecretBox-sealed JSON object of the custom headers; null when there are none. */
  custom_headers_enc: string | null;
  custom_header_names: ColumnType<string[], string[] | undefined, string[]>;
  rate_limit_per_minute: Generated<number>;
  payload_fields: JsonColumn<Record<string, string[] | null> | null>;
  event_filter: JsonColumn<{ entity_ids: string[] } | null>;
  /** SecretBox-sealed signing secret. */
  secret_enc: string;
  is_active: Generated<boolean>;
  auto_disabled_at: Date | null;
  failing_since: Date | null;
  last_success_at: Date | null;
  last_failure_at: Date | null;
  rate_tokens: number;
  rate_refilled_at: Date;
  rate_granted: Generated<number>;
  created_by_user_id: string | null;
  created_at: ColumnType<Date, Date | string, never>;
  updated_at: Timestamp;
}

export interface WebhookDeliveriesTable {
  tenant: string;
  delivery_id: string;
  webhook_id: string;
  event_id: string;
  event_type: string;
  cycle: Generated<number>;
  attempt: number;
  status: WebhookDeliveryStatus;
  /** The envelope exactly as sent (JSON text). */
  request_body: string;
  response_status: number | null;
  response_body: string | null;
  duration_ms: number | null;
  error: string | null;
  is_test: Generated<boolean>;
  attempted_at: Date | null;
  next_attempt_at: Date | null;
  paused: Generated<boolean>;
  claim_token: string | null;
  claimed_until: Date | null;
  created_at: ColumnType<Date, Date | string, never>;
}

export type InboundAuthType = 'hmac_sha256' | 'bearer' | 'ip_allowlist' | 'path_token';
export type InboundHandlerType = 'direct_action' | 'workflow';
export type InboundAuthStatus = 'verified' | 'internal';
export type InboundDispatchStatus = 'processing' | 'processed' | 'queued' | 'duplicate' | 'failed' | 'error' | 'rejected' | 'rate_limited';

export interface InboundWebhooksTable {
  tenant: string;
  inbound_webhook_id: string;
  name: string;
  description: string | null;
  slug: string;
  auth_type: InboundAuthType;
  /** The non-secret settings of auth_type (a JSON object); the secret itself is in secret_enc. */
  auth_config: ColumnType<Record<string, unknown>, string, string>;
  /** HMAC secret or token, sealed with platform/crypto/secret-box; null for ip_allowlist. */
  secret_enc: string | null;
  secret_rotated_at: Date | null;
  idempotency_source: ColumnType<{ type: 'header' | 'jsonata'; value: string } | null, string | null, string | null>;
  idempotency_window_seconds: number;
  handler_type: InboundHandlerType;
  handler_config: ColumnType<Record<string, unknown>, string, string>;
  rate_limit_per_minute: number;
  is_active: Generated<boolean>;
  /** JSON text of the captured sample body. */
  sample_payload: string | null;
  sample_captured_at: Date | null;
  sample_capture_requested_at: Date | null;
  created_by_user_id: string | null;
  created_at: ColumnType<Date, Date | string, never>;
  updated_at: Timestamp;
}

export interface InboundWebhookDeliveriesTable {
  tenant: string;
  delivery_id: string;
  inbound_webhook_id: string;
  received_at: ColumnType<Date, Date | string, never>;
  completed_at: Date | null;
  request_method: string;
  request_path: string;
  /** JSON text: the filtered request headers. */
  request_headers: string;
  /** The body exactly as received (JSON text); null when not kept (duplicates, rejections). */
  request_body: string | null;
  request_body_bytes: Generated<number>;
  source_ip: string | null;
  user_agent: string | null;
  idempotency_key: string | null;
  auth_status: InboundAuthStatus;
  dispatch_status: InboundDispatchStatus;
  handler_type: string;
  /** JSON text. */
  handler_outcome: string | null;
  response_status: number | null;
  /** JSON text. */
  response_body: string | null;
  duration_ms: number | null;
  is_test: Generated<boolean>;
  is_replay: Generated<boolean>;
  replayed_from_delivery_id: string | null;
  duplicate_of_delivery_id: string | null;
  triggered_by_user_id: string | null;
}

export interface InboundWebhookIdempotencyKeysTable {
  tenant: string;
  inbound_webhook_id: string;
  idempotency_key: string;
  delivery_id: string;
  expires_at: Date;
}

export interface InboundExternalIdsTable {
  tenant: string;
  entity_type: string;
  external_id: string;
  entity_id: string | null;
  claim_token: string | null;
  claimed_until: Date | null;
  inbound_webhook_id: string | null;
  created_at: ColumnType<Date, Date | string, never>;
  updated_at: Timestamp;
}

export interface SearchDocumentsTable {
  tenant: string;
  object_type: string;
  object_id: string;
  parent_type: string | null;
  parent_id: string | null;
  title: string;
  subtitle: string | null;
  body: string | null;
  url: string;
  identifier: string | null;
  client_id: string | null;
  is_internal: Generated<boolean>;
  visible_to_user_ids: string[] | null;
  required_permission: string | null;
  updated_at: Timestamp;
  indexed_at: Timestamp;
  /**
   * Generated (read-only): the title's lexemes weighted A, the subtitle's and identifier's B, the body's C
   * (`ts_filter(search_vector, '{a}')` is the title's vector). Nullable in the catalog though never null.
   */
  search_vector: ColumnType<string | null, never, never>;
}

/**
 * The head postings (migrations 0028, 0029, 0032, 0041): written only by search_postings_merge, from the pending rows the
 * triggers on search_documents add (platform/search/postings.ts).
 */
export interface SearchPostingsTable {
  tenant: string;
  term: string;
  tier: number;
  object_type: string;
  object_id: string;
  updated_at: Timestamp;
  indexed_at: Timestamp;
  restricted: boolean;
  required_permission: string | null;
}

/** A written document whose postings are not merged yet (migration 0032): written only by the triggers. */
export interface SearchPostingsPendingTable {
  tenant: string;
  object_type: string;
  object_id: string;
  /** The replaced version's head words (`ts_filter(search_vector, '{a,b}')`); null for a new document. */
  old_head: string | null;
  old_updated_at: Timestamp | null;
  /** The dictionary words of the version written (migration 0039); null for a delete. */
  words: string[] | null;
}

export interface SearchLexiconTable {
  tenant: string;
  word: string;
}

/** Delta rows of the maintained list totals (src/platform/db/list-counts.ts); written by triggers only. */
export interface ListCountsTable {
  tenant: string;
  list: string;
  delta: number;
}

/** One row per change of a name other records show (src/platform/db/names-version.ts); written by triggers only. */
export interface NameChangesTable {
  tenant: string;
  changes: number;
}

/** Numbers reserved by creates in progress, or given back (src/platform/db/numbering.ts). */
export interface NumberReservationsTable {
  tenant: string;
  sequence: 'ticket' | 'project';
  seq: number;
  reserved_until: Date;
}

export interface DB extends AssetTables, AssetRmmTables, ProjectTables, ProjectTemplateTables, JobTables, BillingTables, KbTables, OpportunityTables, AutomationTables, LedgerTables {
  tenants: TenantsTable;
  users: UsersTable;
  roles: RolesTable;
  role_permissions: RolePermissionsTable;
  user_roles: UserRolesTable;
  api_keys: ApiKeysTable;
  events: EventsTable;
  idempotency_keys: IdempotencyKeysTable;
  clients: ClientsTable;
  client_locations: ClientLocationsTable;
  contacts: ContactsTable;
  client_billing_profiles: ClientBillingProfilesTable;
  billing_profile_contacts: BillingProfileContactsTable;
  user_recovery_codes: UserRecoveryCodesTable;
  user_avatars: UserAvatarsTable;
  user_activity: UserActivityTable;
  teams: TeamsTable;
  team_members: TeamMembersTable;
  sessions: SessionsTable;
  auth_flows: AuthFlowsTable;
  storage_records: StorageRecordsTable;
  storage_usage: StorageUsageTable;
  storage_tenant_usage: StorageTenantUsageTable;
  boards: BoardsTable;
  ticket_statuses: TicketStatusesTable;
  ticket_priorities: TicketPrioritiesTable;
  ticket_categories: TicketCategoriesTable;
  ticket_number_counters: TicketNumberCountersTable;
  tickets: TicketsTable;
  ticket_comments: TicketCommentsTable;
  ticket_tags: TicketTagsTable;
  webhooks: WebhooksTable;
  webhook_deliveries: WebhookDeliveriesTable;
  inbound_webhooks: InboundWebhooksTable;
  inbound_webhook_deliveries: InboundWebhookDeliveriesTable;
  inbound_webhook_idempotency_keys: InboundWebhookIdempotencyKeysTable;
  inbound_external_ids: InboundExternalIdsTable;
  search_documents: SearchDocumentsTable;
  search_lexicon: SearchLexiconTable;
  search_postings: SearchPostingsTable;
  search_postings_pending: SearchPostingsPendingTable;
  list_counts: ListCountsTable;
  name_changes: NameChangesTable;
  number_reservations: NumberReservationsTable;
}
