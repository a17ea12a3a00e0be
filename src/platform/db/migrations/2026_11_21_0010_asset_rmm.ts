import type { Kysely } from 'kysely';
import { runStatements } from './run-statements.ts';

/**
 * RMM: a tenant's connections to RMM products (credentials sealed with SecretBox) and the link from an
 * asset to one device of one connection, with the device data last fetched from it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, `
    create table rmm_integrations (
      tenant uuid not null references tenants (tenant_id),
      integration_id uuid not null,
      provider text not null,
      name text not null,
      base_url text not null,
      credentials_enc text not null,
      -- The API key's last four characters, shown so a user can tell keys apart (the key itself is write-only).
      api_key_last4 text not null default '',
      is_active boolean not null default true,
      created_at timestamptz(3) not null default now(),
      updated_at timestamptz(3) not null default now(),
      primary key (tenant, integration_id)
    );

    create table asset_rmm_links (
      tenant uuid not null,
      asset_id uuid not null,
      integration_id uuid not null,
      external_device_id text not null,
      -- online | offline | overdue | unknown, from the last refresh
      agent_status text not null default 'unknown',
      device_data jsonb,
      software jsonb,
      last_synced_at timestamptz(3),
      linked_at timestamptz(3) not null default now(),
      primary key (tenant, asset_id),
      foreign key (tenant, asset_id) references assets (tenant, asset_id) on delete cascade,
      foreign key (tenant, integration_id) references rmm_integrations (tenant, integration_id)
    );
    create unique index asset_rmm_links_device_uq on asset_rmm_links (tenant, integration_id, external_device_id);
    create unique index rmm_integrations_name_uq on rmm_integrations (tenant, lower(name));

    -- Tenants created before rmm:execute existed: give it to the built-in roles that have it in BUILTIN_ROLES.
    insert into role_permissions (tenant, role_id, permission)
    select tenant, role_id, 'rmm:execute' from roles
    where is_builtin and role_name in ('Admin', 'Manager', 'Technician')
    on conflict do nothing;
  `);
}
