import type { Kysely } from 'kysely';
import { runStatements } from './run-statements.ts';

/**
 * Billing tax and usage: the tenant's tax rates and each client's tax settings (exempt, default rate); and the usage
 * recorded against clients, which usage contract lines bill from.
 *
 * A percentage is stored as an integer number of thousandths of a percent (8.875 % → 8875), so rates with
 * up to three decimals are exact and tax arithmetic never touches a float. A rate a client uses as its
 * default cannot be deleted (the service answers 409; the `restrict` key backs it up).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, `
    create table tax_rates (
      tenant uuid not null references tenants (tenant_id) on delete cascade,
      tax_rate_id uuid not null,
      name text not null,
      region text,
      percentage_thousandths integer not null check (percentage_thousandths between 0 and 100000),
      description text,
      is_active boolean not null default true,
      created_at timestamptz(3) not null default now(),
      updated_at timestamptz(3) not null default now(),
      primary key (tenant, tax_rate_id)
    );
    create unique index tax_rates_name_uq on tax_rates (tenant, lower(name));

    create table client_tax_settings (
      tenant uuid not null,
      client_id uuid not null,
      is_tax_exempt boolean not null default false,
      tax_exemption_certificate text,
      default_tax_rate_id uuid,
      updated_at timestamptz(3) not null default now(),
      primary key (tenant, client_id),
      foreign key (tenant, client_id) references clients (tenant, client_id) on delete cascade,
      foreign key (tenant, default_tax_rate_id) references tax_rates (tenant, tax_rate_id) on delete restrict
    );
    create index client_tax_settings_rate_idx on client_tax_settings (tenant, default_tax_rate_id);

    create table usage_records (
      tenant uuid not null,
      usage_id uuid not null,
      client_id uuid not null,
      service_id uuid not null,
      quantity_units bigint not null check (quantity_units > 0),
      usage_date date not null,
      description text,
      created_by uuid,
      created_at timestamptz(3) not null default now(),
      updated_at timestamptz(3) not null default now(),
      primary key (tenant, usage_id),
      foreign key (tenant, client_id) references clients (tenant, client_id) on delete restrict,
      foreign key (tenant, service_id) references service_catalog (tenant, service_id) on delete restrict
    );
    create index usage_records_client_idx on usage_records (tenant, client_id, usage_date);
    create index usage_records_service_idx on usage_records (tenant, service_id);
  `);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, `
    drop table usage_records;
    drop table client_tax_settings;
    drop table tax_rates;
  `);
}
