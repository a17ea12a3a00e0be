import { sql, type Kysely } from 'kysely';
import { BUILTIN_ASSET_TYPES } from '../builtin-asset-types.ts';
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
      manufacturer text,
      model text,
      purchase_date date,
      attributes jsonb not null default '{}',
      notes text,
      notes_updated_at timestamptz(3),
      created_at timestamptz(3) not null default now(),
      updated_at timestamptz(3) not null default now(),
      primary key (tenant, asset_id),
      check (status in ('active', 'inactive', 'in_repair', 'in_stock', 'retired', 'lost')),
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

    -- Recurring maintenance. 'custom' repeats every frequency_interval days.
    create table asset_maintenance_schedules (
      tenant uuid not null,
      schedule_id uuid not null,
      asset_id uuid not null,
      schedule_name text not null,
      description text,
      maintenance_type text not null check (maintenance_type in ('preventive', 'inspection', 'calibration', 'replacement', 'corrective')),
      frequency text not null check (frequency in ('daily', 'weekly', 'monthly', 'quarterly', 'yearly', 'custom')),
      frequency_interval integer not null check (frequency_interval between 1 and 3650),
      start_date date not null,
      next_due date not null,
      last_performed_at timestamptz(3),
      is_active boolean not null default true,
      created_by uuid,
      created_at timestamptz(3) not null default now(),
      updated_at timestamptz(3) not null default now(),
      primary key (tenant, schedule_id),
      foreign key (tenant, asset_id) references assets (tenant, asset_id) on delete cascade
    );
    create index asset_maintenance_asset on asset_maintenance_schedules (tenant, asset_id, next_due);

    -- Typed, directional links between two assets of one tenant (asset_id <relationship_type> related_asset_id).
    create table asset_relationships (
      tenant uuid not null,
      relationship_id uuid not null,
      asset_id uuid not null,
      related_asset_id uuid not null,
      relationship_type text not null check (relationship_type in ('depends_on', 'connected_to', 'contains', 'runs_on', 'backs_up')),
      created_by uuid,
      created_at timestamptz(3) not null default now(),
      primary key (tenant, relationship_id),
      check (asset_id <> related_asset_id),
      foreign key (tenant, asset_id) references assets (tenant, asset_id) on delete cascade,
      foreign key (tenant, related_asset_id) references assets (tenant, asset_id) on delete cascade
    );
    create unique index asset_relationships_uq on asset_relationships (tenant, asset_id, related_asset_id, relationship_type);
    create index asset_relationships_related on asset_relationships (tenant, related_asset_id);

    -- Uploaded files of the tenant; linked to records through association tables.
    create table documents (
      tenant uuid not null references tenants (tenant_id),
      document_id uuid not null,
      file_name text not null,
      mime_type text not null,
      size_bytes integer not null check (size_bytes >= 0),
      sha256 text not null,
      content bytea not null,
      uploaded_by uuid,
      created_at timestamptz(3) not null default now(),
      primary key (tenant, document_id)
    );

    create table asset_documents (
      tenant uuid not null,
      association_id uuid not null,
      asset_id uuid not null,
      document_id uuid not null,
      notes text,
      created_by uuid,
      created_at timestamptz(3) not null default now(),
      primary key (tenant, association_id),
      foreign key (tenant, asset_id) references assets (tenant, asset_id) on delete cascade,
      foreign key (tenant, document_id) references documents (tenant, document_id) on delete cascade
    );
    create unique index asset_documents_uq on asset_documents (tenant, asset_id, document_id);
    create index asset_documents_document on asset_documents (tenant, document_id);

    create table asset_ticket_links (
      tenant uuid not null,
      asset_id uuid not null,
      ticket_id uuid not null,
      relationship_type text not null default 'affected' check (relationship_type in ('affected', 'caused_by', 'related')),
      notes text,
      created_by uuid,
      created_at timestamptz(3) not null default now(),
      primary key (tenant, asset_id, ticket_id),
      foreign key (tenant, asset_id) references assets (tenant, asset_id) on delete cascade,
      foreign key (tenant, ticket_id) references tickets (tenant, ticket_id) on delete cascade
    );
    create index asset_ticket_links_ticket on asset_ticket_links (tenant, ticket_id);
  `);

  // Tenants created before this migration get the built-in types too (new ones get them from createTenant).
  for (const t of BUILTIN_ASSET_TYPES) {
    await sql`
      insert into asset_types (tenant, slug, type_name, description, is_builtin, field_schema)
      select tenant_id, ${t.slug}, ${t.type_name}, ${t.description}, true, ${JSON.stringify(t.field_schema)}::jsonb from tenants
      on conflict do nothing
    `.execute(db);
  }
}
