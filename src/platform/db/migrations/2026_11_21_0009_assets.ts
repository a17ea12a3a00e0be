import type { Kysely } from 'kysely';
import { runStatements } from './run-statements.ts';

/**
 * Assets: the per-tenant type registry, the assets themselves and their history (maintenance work
 * and RMM commands in one timeline). Further asset tables follow below.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, `
    create table asset_types (
      tenant uuid not null references tenants (tenant_id),
      slug text not null check (slug ~ '^[a-z][a-z0-9_]{0,62}$'),
      type_name text not null,
      description text,
      is_builtin boolean not null default false,
      -- The type's own attribute schema: a list of field definitions validated at save.
      field_schema jsonb not null default '[]',
      created_at timestamptz(3) not null default now(),
      updated_at timestamptz(3) not null default now(),
      primary key (tenant, slug)
    );

    create table assets (
      tenant uuid not null references tenants (tenant_id),
      asset_id uuid not null,
      client_id uuid not null,
      asset_type text not null,
      asset_tag text not null,
      name text not null,
      status text not null,
      serial_number text,
      location text,
      warranty_end_date date,
      attributes jsonb not null default '{}',
      notes text,
      notes_updated_at timestamptz(3),
      created_at timestamptz(3) not null default now(),
      updated_at timestamptz(3) not null default now(),
      primary key (tenant, asset_id),
      foreign key (tenant, client_id) references clients (tenant, client_id),
      -- A type in use cannot be deleted.
      foreign key (tenant, asset_type) references asset_types (tenant, slug)
    );
    create unique index assets_tag_uq on assets (tenant, lower(asset_tag));
    create index assets_client on assets (tenant, client_id);

    -- What happened to an asset: maintenance work recorded and RMM commands run.
    create table asset_history (
      tenant uuid not null,
      history_id uuid not null,
      asset_id uuid not null,
      entry_type text not null check (entry_type in ('maintenance', 'rmm_command')),
      schedule_id uuid,
      maintenance_type text,
      -- RMM commands: reboot | refresh | remote_control | script
      command text,
      description text,
      performed_at timestamptz(3) not null,
      performed_by uuid,
      details jsonb not null default '{}',
      created_at timestamptz(3) not null default now(),
      primary key (tenant, history_id),
      foreign key (tenant, asset_id) references assets (tenant, asset_id) on delete cascade
    );
    create index asset_history_asset on asset_history (tenant, asset_id, performed_at desc, history_id);
  `);
}
