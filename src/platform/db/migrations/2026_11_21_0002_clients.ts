import type { Kysely } from 'kysely';
import { runStatements } from './run-statements.ts';

/** Clients with their locations, contacts, billing profiles and profile contacts. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, `
    create table clients (
      tenant uuid not null references tenants (tenant_id),
      client_id uuid not null,
      client_name text not null,
      client_type text not null default 'company' check (client_type in ('company', 'individual')),
      billing_cycle text not null check (billing_cycle in ('weekly', 'bi-weekly', 'monthly', 'quarterly', 'semi-annually', 'annually')),
      payment_terms text,
      default_currency_code char(3) not null default 'USD',
      client_since date,
      tax_id_number text,
      notes text,
      notes_updated_at timestamptz(3),
      is_inactive boolean not null default false,
      merged_into_client_id uuid,
      merged_at timestamptz(3),
      created_at timestamptz(3) not null default now(),
      updated_at timestamptz(3) not null default now(),
      primary key (tenant, client_id),
      foreign key (tenant, merged_into_client_id) references clients (tenant, client_id)
    );
    create unique index clients_name_uq on clients (tenant, lower(client_name));
    -- The list's default order, tie-break included, so a page is an index walk rather than a sort.
    create index clients_name_sort_idx on clients (tenant, lower(client_name), client_id);
    create index clients_updated_idx on clients (tenant, updated_at, client_id);
    create index clients_created_idx on clients (tenant, created_at, client_id);
    create index clients_merged_into_idx on clients (tenant, merged_into_client_id) where merged_into_client_id is not null;

    create table client_locations (
      tenant uuid not null,
      location_id uuid not null,
      client_id uuid not null,
      location_name text,
      address_line1 text,
      address_line2 text,
      city text,
      state_province text,
      postal_code text,
      country_code char(2) not null,
      country_name text not null,
      phone text,
      email text,
      is_default boolean not null default false,
      is_active boolean not null default true,
      created_at timestamptz(3) not null default now(),
      updated_at timestamptz(3) not null default now(),
      primary key (tenant, location_id),
      foreign key (tenant, client_id) references clients (tenant, client_id) on delete cascade,
      check (not is_default or is_active)
    );
    create index client_locations_client_idx on client_locations (tenant, client_id);
    -- At most one default per client; the service keeps it at exactly one while any location is active.
    create unique index client_locations_default_uq on client_locations (tenant, client_id) where is_default;

    create table contacts (
      tenant uuid not null references tenants (tenant_id),
      contact_id uuid not null,
      client_id uuid,
      full_name text not null,
      email text,
      phone text,
      role text,
      is_inactive boolean not null default false,
      created_at timestamptz(3) not null default now(),
      updated_at timestamptz(3) not null default now(),
      primary key (tenant, contact_id),
      foreign key (tenant, client_id) references clients (tenant, client_id)
    );
    create index contacts_client_idx on contacts (tenant, client_id, lower(full_name), contact_id);
    create index contacts_name_idx on contacts (tenant, lower(full_name), contact_id);
    create index contacts_updated_idx on contacts (tenant, updated_at, contact_id);

    create table client_billing_profiles (
      tenant uuid not null,
      billing_profile_id uuid not null,
      client_id uuid not null,
      name text not null,
      is_default boolean not null default false,
      is_active boolean not null default true,
      created_at timestamptz(3) not null default now(),
      updated_at timestamptz(3) not null default now(),
      primary key (tenant, billing_profile_id),
      foreign key (tenant, client_id) references clients (tenant, client_id) on delete cascade
    );
    create index client_billing_profiles_client_idx on client_billing_profiles (tenant, client_id);
    create unique index client_billing_profiles_default_uq on client_billing_profiles (tenant, client_id) where is_default;

    create table billing_profile_contacts (
      tenant uuid not null,
      billing_profile_id uuid not null,
      contact_id uuid not null,
      can_view_profile_tickets boolean not null default false,
      created_at timestamptz(3) not null default now(),
      primary key (tenant, billing_profile_id, contact_id),
      foreign key (tenant, billing_profile_id) references client_billing_profiles (tenant, billing_profile_id) on delete cascade,
      foreign key (tenant, contact_id) references contacts (tenant, contact_id) on delete cascade
    );
    create index billing_profile_contacts_contact_idx on billing_profile_contacts (tenant, contact_id);
  `);
}
