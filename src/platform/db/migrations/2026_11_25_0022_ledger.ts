import type { Kysely } from 'kysely';
import { runStatements } from './run-statements.ts';

/**
 * The accounting-ledger integration (QuickBooks Online): one connection per tenant and company (realm) with
 * its OAuth tokens sealed by SecretBox, the single-use OAuth states, one mapping ledger shared by every
 * entity type (our record or key ↔ the ledger's id), sync runs with one outcome row per entity, and the
 * health-monitoring configuration.
 *
 * The announced `ledger:create|update|delete` permissions become `ledger:write` and `ledger:admin` (admin:
 * disconnect, full sync, health configuration, diagnostics), in roles and in scoped API keys.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, `
    create table ledger_connections (
      tenant uuid not null references tenants (tenant_id) on delete cascade,
      connection_id uuid not null,
      provider text not null,
      realm_id text not null check (length(realm_id) between 1 and 64),
      display_name text,
      country text,
      currency_code text,
      -- active: tokens work, expired: the refresh token is dead (reconnect), error: the last call failed,
      -- disconnected: tokens revoked and deleted, mappings kept for a reconnect of the same company.
      status text not null default 'active' check (status in ('active', 'expired', 'error', 'disconnected')),
      -- {"access_token", "refresh_token"} sealed with SecretBox, null once disconnected.
      tokens_enc text,
      access_token_expires_at timestamptz(3),
      refresh_token_expires_at timestamptz(3),
      is_default boolean not null default false,
      last_validated_at timestamptz(3),
      last_refreshed_at timestamptz(3),
      last_error text,
      -- The health monitor's last look (when, the overall status) and when it last alerted.
      health_checked_at timestamptz(3),
      health_status text,
      health_alerted_at timestamptz(3),
      connected_by uuid,
      created_at timestamptz(3) not null default now(),
      updated_at timestamptz(3) not null default now(),
      primary key (tenant, connection_id)
    );
    create unique index ledger_connections_realm_uq on ledger_connections (tenant, provider, realm_id);
    create unique index ledger_connections_default_uq on ledger_connections (tenant) where is_default;

    create table ledger_oauth_states (
      tenant uuid not null references tenants (tenant_id) on delete cascade,
      nonce uuid not null,
      provider text not null,
      redirect_uri text not null,
      user_id uuid,
      expires_at timestamptz(3) not null,
      used_at timestamptz(3),
      created_at timestamptz(3) not null default now(),
      primary key (tenant, nonce)
    );

    create table ledger_mappings (
      tenant uuid not null,
      mapping_id uuid not null,
      connection_id uuid not null,
      entity_type text not null check (entity_type in ('customer', 'invoice', 'payment', 'item', 'tax_code', 'account', 'term', 'payment_method')),
      -- Our side: a record id (client, invoice, payment, service) or a key (a tax region, an account role).
      local_id text not null check (length(local_id) between 1 and 255),
      external_id text not null check (length(external_id) between 1 and 64),
      external_name text,
      is_default boolean not null default false,
      sync_status text not null default 'synced' check (sync_status in ('synced', 'pending', 'error', 'conflict', 'drift')),
      last_synced_at timestamptz(3),
      sync_error text,
      -- What the last sync saw of the ledger's record (version, total, document number): drift is judged against it
      metadata jsonb not null default '{}',
      created_at timestamptz(3) not null default now(),
      updated_at timestamptz(3) not null default now(),
      primary key (tenant, mapping_id),
      foreign key (tenant, connection_id) references ledger_connections (tenant, connection_id) on delete cascade
    );
    create unique index ledger_mappings_local_uq on ledger_mappings (tenant, connection_id, entity_type, local_id);
    -- One of our records per ledger record for transactions and customers, while many keys may share an account, item or tax code.
    create unique index ledger_mappings_external_uq on ledger_mappings (tenant, connection_id, entity_type, external_id)
      where entity_type in ('customer', 'invoice', 'payment');
    -- One default per entity type (accounts: per account type, the part of local_id before ':').
    create unique index ledger_mappings_default_uq on ledger_mappings (tenant, connection_id, entity_type, (case when entity_type = 'account' then split_part(local_id, ':', 1) else '' end))
      where is_default;

    create table ledger_sync_runs (
      tenant uuid not null,
      sync_id uuid not null,
      connection_id uuid not null,
      operation_type text not null check (operation_type in ('customer_sync', 'invoice_export', 'invoice_import', 'payment_sync', 'full_sync', 'bulk_sync')),
      status text not null default 'pending' check (status in ('pending', 'in_progress', 'completed', 'partial', 'failed', 'cancelled')),
      parameters jsonb not null default '{}',
      parent_sync_id uuid,
      requested_by uuid,
      attempt integer not null default 1,
      cancel_requested boolean not null default false,
      started_at timestamptz(3),
      completed_at timestamptz(3),
      records_processed integer not null default 0,
      records_successful integer not null default 0,
      records_failed integer not null default 0,
      records_skipped integer not null default 0,
      error_message text,
      error_details jsonb,
      created_at timestamptz(3) not null default now(),
      updated_at timestamptz(3) not null default now(),
      primary key (tenant, sync_id),
      foreign key (tenant, connection_id) references ledger_connections (tenant, connection_id) on delete cascade
    );
    create index ledger_sync_runs_created_idx on ledger_sync_runs (tenant, created_at desc, sync_id desc);

    create table ledger_sync_outcomes (
      tenant uuid not null,
      sync_id uuid not null,
      outcome_id uuid not null,
      entity_type text not null,
      local_id text,
      external_id text,
      -- created | updated | linked | unchanged | skipped | applied | reversed | drift | unmatched | failed
      outcome text not null,
      message text,
      created_at timestamptz(3) not null default now(),
      primary key (tenant, sync_id, outcome_id),
      foreign key (tenant, sync_id) references ledger_sync_runs (tenant, sync_id) on delete cascade
    );

    create table ledger_health_config (
      tenant uuid not null references tenants (tenant_id) on delete cascade primary key,
      config jsonb not null,
      updated_by uuid,
      updated_at timestamptz(3) not null default now()
    );

    insert into role_permissions (tenant, role_id, permission)
      select distinct tenant, role_id, 'ledger:write' from role_permissions where permission in ('ledger:create', 'ledger:update')
      on conflict do nothing;
    insert into role_permissions (tenant, role_id, permission)
      select tenant, role_id, 'ledger:admin' from role_permissions where permission = 'ledger:delete'
      on conflict do nothing;
    delete from role_permissions where permission in ('ledger:create', 'ledger:update', 'ledger:delete');
    update api_keys set scopes = array(select distinct case when s in ('ledger:create', 'ledger:update') then 'ledger:write' when s = 'ledger:delete' then 'ledger:admin' else s end from unnest(scopes) as s)
      where scopes is not null and scopes && array['ledger:create', 'ledger:update', 'ledger:delete'];
  `);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, `
    update role_permissions set permission = 'ledger:create' where permission = 'ledger:write';
    update role_permissions set permission = 'ledger:delete' where permission = 'ledger:admin';
    update api_keys set scopes = array(select distinct case when s = 'ledger:write' then 'ledger:create' when s = 'ledger:admin' then 'ledger:delete' else s end from unnest(scopes) as s)
      where scopes is not null;
    drop table ledger_health_config;
    drop table ledger_sync_outcomes;
    drop table ledger_sync_runs;
    drop table ledger_mappings;
    drop table ledger_oauth_states;
    drop table ledger_connections;
  `);
}
