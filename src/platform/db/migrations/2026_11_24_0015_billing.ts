import { sql, type Kysely } from 'kysely';
import { runStatements } from './run-statements.ts';
import { BUILTIN_SERVICE_TYPES } from '../builtin-service-types.ts';

/**
 * Billing, part 1: the tenant's billing settings, service types, one catalogue for services and products
 * (with per-currency prices), contracts with their assignments to a client's billing profile, contract
 * lines (typed settings in `config`), the services on a line, and the lines attached to a contract.
 *
 * Money is integer cents (bigint) with an ISO 4217 code beside it. A contract belongs to one client; a
 * line is a reusable price plan attached to any number of contracts of its currency. Deleting what
 * something else uses is refused by the service (409) and, underneath, by the `restrict` foreign keys.
 *
 * Existing tenants get the built-in service types, and the `product:*` permissions of roles and scoped
 * API keys become `service:*` (the catalogue's resource, as the reference product names it).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, `
    create table billing_settings (
      tenant uuid primary key references tenants (tenant_id) on delete cascade,
      default_currency_code text not null default 'USD' check (default_currency_code ~ '^[A-Z]{3}$'),
      updated_at timestamptz(3) not null default now()
    );

    create table service_types (
      tenant uuid not null references tenants (tenant_id) on delete cascade,
      service_type_id uuid not null,
      name text not null,
      description text,
      is_builtin boolean not null default false,
      is_active boolean not null default true,
      created_at timestamptz(3) not null default now(),
      updated_at timestamptz(3) not null default now(),
      primary key (tenant, service_type_id)
    );
    create unique index service_types_name_uq on service_types (tenant, lower(name));

    create table service_catalog (
      tenant uuid not null references tenants (tenant_id) on delete cascade,
      service_id uuid not null,
      item_kind text not null check (item_kind in ('service', 'product')),
      service_name text not null,
      custom_service_type_id uuid not null,
      billing_method text not null check (billing_method in ('fixed', 'hourly', 'usage')),
      unit_of_measure text not null,
      default_rate bigint not null default 0 check (default_rate >= 0),
      currency_code text not null check (currency_code ~ '^[A-Z]{3}$'),
      description text,
      sku text,
      barcode text,
      cost bigint check (cost >= 0),
      cost_currency text check (cost_currency ~ '^[A-Z]{3}$'),
      vendor text,
      manufacturer text,
      product_category text,
      is_license boolean not null default false,
      license_term text,
      license_billing_cadence text,
      is_active boolean not null default true,
      created_at timestamptz(3) not null default now(),
      updated_at timestamptz(3) not null default now(),
      primary key (tenant, service_id),
      foreign key (tenant, custom_service_type_id) references service_types (tenant, service_type_id) on delete restrict,
      check (item_kind = 'service' or billing_method = 'usage')
    );
    create unique index service_catalog_sku_uq on service_catalog (tenant, lower(sku)) where sku is not null;
    create index service_catalog_name_idx on service_catalog (tenant, item_kind, lower(service_name), service_id);
    create index service_catalog_type_idx on service_catalog (tenant, custom_service_type_id);

    create table service_prices (
      tenant uuid not null,
      service_id uuid not null,
      currency_code text not null check (currency_code ~ '^[A-Z]{3}$'),
      rate bigint not null check (rate >= 0),
      primary key (tenant, service_id, currency_code),
      foreign key (tenant, service_id) references service_catalog (tenant, service_id) on delete cascade
    );

    create table contracts (
      tenant uuid not null references tenants (tenant_id) on delete cascade,
      contract_id uuid not null,
      client_id uuid not null,
      contract_name text not null,
      contract_description text,
      start_date date not null,
      end_date date,
      billing_frequency text not null check (billing_frequency in ('weekly', 'bi-weekly', 'monthly', 'quarterly', 'semi-annually', 'annually')),
      status text not null default 'draft' check (status in ('draft', 'active', 'terminated', 'expired')),
      currency_code text not null check (currency_code ~ '^[A-Z]{3}$'),
      created_at timestamptz(3) not null default now(),
      updated_at timestamptz(3) not null default now(),
      primary key (tenant, contract_id),
      foreign key (tenant, client_id) references clients (tenant, client_id) on delete restrict,
      check (end_date is null or end_date >= start_date)
    );
    create index contracts_client_idx on contracts (tenant, client_id);
    create index contracts_name_idx on contracts (tenant, lower(contract_name), contract_id);

    create table client_contracts (
      tenant uuid not null,
      client_contract_id uuid not null,
      contract_id uuid not null,
      client_id uuid not null,
      billing_profile_id uuid not null,
      start_date date not null,
      end_date date,
      is_active boolean not null default true,
      created_at timestamptz(3) not null default now(),
      updated_at timestamptz(3) not null default now(),
      primary key (tenant, client_contract_id),
      foreign key (tenant, contract_id) references contracts (tenant, contract_id) on delete cascade,
      foreign key (tenant, billing_profile_id) references client_billing_profiles (tenant, billing_profile_id) on delete restrict,
      check (end_date is null or end_date >= start_date)
    );
    create index client_contracts_contract_idx on client_contracts (tenant, contract_id);
    create index client_contracts_client_idx on client_contracts (tenant, client_id);
    create index client_contracts_profile_idx on client_contracts (tenant, billing_profile_id);

    create table contract_lines (
      tenant uuid not null references tenants (tenant_id) on delete cascade,
      contract_line_id uuid not null,
      contract_line_name text not null,
      description text,
      contract_line_type text not null check (contract_line_type in ('fixed', 'hourly', 'usage', 'bucket')),
      billing_frequency text not null check (billing_frequency in ('weekly', 'bi-weekly', 'monthly', 'quarterly', 'semi-annually', 'annually')),
      currency_code text not null check (currency_code ~ '^[A-Z]{3}$'),
      config jsonb not null,
      is_active boolean not null default true,
      created_at timestamptz(3) not null default now(),
      updated_at timestamptz(3) not null default now(),
      primary key (tenant, contract_line_id)
    );
    create index contract_lines_name_idx on contract_lines (tenant, lower(contract_line_name), contract_line_id);

    create table contract_line_services (
      tenant uuid not null,
      contract_line_id uuid not null,
      service_id uuid not null,
      quantity integer not null default 1 check (quantity >= 1),
      custom_rate_cents bigint check (custom_rate_cents >= 0),
      created_at timestamptz(3) not null default now(),
      updated_at timestamptz(3) not null default now(),
      primary key (tenant, contract_line_id, service_id),
      foreign key (tenant, contract_line_id) references contract_lines (tenant, contract_line_id) on delete cascade,
      foreign key (tenant, service_id) references service_catalog (tenant, service_id) on delete restrict
    );
    create index contract_line_services_service_idx on contract_line_services (tenant, service_id);

    create table contract_line_attachments (
      tenant uuid not null,
      contract_id uuid not null,
      contract_line_id uuid not null,
      custom_rate_cents bigint check (custom_rate_cents >= 0),
      display_order integer not null default 0,
      created_at timestamptz(3) not null default now(),
      primary key (tenant, contract_id, contract_line_id),
      foreign key (tenant, contract_id) references contracts (tenant, contract_id) on delete cascade,
      foreign key (tenant, contract_line_id) references contract_lines (tenant, contract_line_id) on delete restrict
    );
    create index contract_line_attachments_line_idx on contract_line_attachments (tenant, contract_line_id);

    update role_permissions set permission = 'service:' || substr(permission, 9) where permission like 'product:%';
    update api_keys set scopes = array(select case when s like 'product:%' then 'service:' || substr(s, 9) else s end from unnest(scopes) as s)
      where scopes is not null;
  `);
  // Tenants that existed before this migration get the built-in service types new tenants are created with.
  for (const t of BUILTIN_SERVICE_TYPES) {
    await sql`
      insert into service_types (tenant, service_type_id, name, description, is_builtin)
      select tenant_id, gen_random_uuid(), ${t.name}, ${t.description}, true from tenants
      on conflict do nothing
    `.execute(db);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, `
    update role_permissions set permission = 'product:' || substr(permission, 9) where permission like 'service:%';
    update api_keys set scopes = array(select case when s like 'service:%' then 'product:' || substr(s, 9) else s end from unnest(scopes) as s)
      where scopes is not null;
    drop table contract_line_attachments;
    drop table contract_line_services;
    drop table contract_lines;
    drop table client_contracts;
    drop table contracts;
    drop table service_prices;
    drop table service_catalog;
    drop table service_types;
    drop table billing_settings;
  `);
}
