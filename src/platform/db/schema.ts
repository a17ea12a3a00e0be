import type { ColumnType, Generated } from 'kysely';

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
  bytes: ColumnType<number | string | bigint, number | undefined, number>;
}

export interface StorageTenantUsageTable {
  tenant: string;
  namespace_count: Generated<number>;
  bytes: ColumnType<number | string | bigint, number | undefined, number>;
}

export interface DB {
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
}
