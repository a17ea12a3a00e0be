import type { Kysely } from 'kysely';
import { runStatements } from './run-statements.ts';

/**
 * Billing, part 2: invoices (items, annotations), payments, credit notes, the client credit ledger, and
 * quotes (items).
 *
 * An invoice belongs to a client billing profile and one currency. Its number is taken from the tenant's
 * sequence in `billing_settings` when it is finalized (a deleted draft leaves no gap); its money columns are
 * maintained by the service in the same transaction as the change that moves them, and the check below
 * holds the identity balance = total − paid − credited underneath. An invoice generated from contracts
 * records its period; the partial unique index refuses a second generation of the same period for a
 * billing profile and currency unless the first was voided.
 *
 * Client credit is a ledger: over-payments and credit notes add to it, applying it to an invoice takes
 * from it; the balance per billing profile and currency is the sum of its entries.
 *
 * Quantities are integer ten-thousandths (1.5 → 15000), tax percentages integer thousandths of a percent,
 * money integer cents (bigint) beside an ISO 4217 code.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, `
    alter table billing_settings
      add column invoice_number_prefix text not null default 'INV-',
      add column next_invoice_number bigint not null default 1 check (next_invoice_number >= 1),
      add column credit_note_number_prefix text not null default 'CN-',
      add column next_credit_note_number bigint not null default 1 check (next_credit_note_number >= 1),
      add column quote_number_prefix text not null default 'Q-',
      add column next_quote_number bigint not null default 1 check (next_quote_number >= 1),
      add column default_payment_terms_days integer not null default 30 check (default_payment_terms_days between 0 and 365);

    create table invoices (
      tenant uuid not null references tenants (tenant_id) on delete cascade,
      invoice_id uuid not null,
      client_id uuid not null,
      billing_profile_id uuid not null,
      invoice_number text,
      status text not null default 'draft' check (status in ('draft', 'finalized', 'sent', 'partially_paid', 'paid', 'void')),
      currency_code text not null check (currency_code ~ '^[A-Z]{3}$'),
      issue_date date not null,
      due_date date not null,
      period_start date,
      period_end date,
      is_generated boolean not null default false,
      po_number text,
      subtotal_cents bigint not null default 0,
      tax_cents bigint not null default 0,
      total_cents bigint not null default 0,
      amount_paid_cents bigint not null default 0 check (amount_paid_cents >= 0),
      credited_cents bigint not null default 0 check (credited_cents >= 0),
      balance_cents bigint not null default 0,
      finalized_at timestamptz(3),
      sent_at timestamptz(3),
      paid_at timestamptz(3),
      voided_at timestamptz(3),
      void_reason text,
      created_by uuid,
      created_at timestamptz(3) not null default now(),
      updated_at timestamptz(3) not null default now(),
      primary key (tenant, invoice_id),
      foreign key (tenant, client_id) references clients (tenant, client_id) on delete restrict,
      foreign key (tenant, billing_profile_id) references client_billing_profiles (tenant, billing_profile_id) on delete restrict,
      check (balance_cents = total_cents - amount_paid_cents - credited_cents),
      check (due_date >= issue_date),
      check ((period_start is null) = (period_end is null) and (period_end is null or period_end >= period_start)),
      check ((invoice_number is null) = (status = 'draft'))
    );
    create unique index invoices_number_uq on invoices (tenant, invoice_number) where invoice_number is not null;
    create unique index invoices_generated_period_uq on invoices (tenant, billing_profile_id, currency_code, period_start)
      where is_generated and status <> 'void';
    create index invoices_client_idx on invoices (tenant, client_id, issue_date);
    create index invoices_profile_idx on invoices (tenant, billing_profile_id, period_start);
    create index invoices_issue_idx on invoices (tenant, issue_date, invoice_id);
    create index invoices_status_due_idx on invoices (tenant, status, due_date);

    create table invoice_items (
      tenant uuid not null,
      item_id uuid not null,
      invoice_id uuid not null,
      display_order integer not null default 0,
      description text not null,
      quantity_units bigint not null check (quantity_units > 0),
      unit_price_cents bigint not null,
      service_id uuid,
      tax_rate_id uuid,
      tax_percentage_thousandths integer not null default 0 check (tax_percentage_thousandths between 0 and 100000),
      total_cents bigint not null,
      tax_cents bigint not null,
      contract_id uuid,
      contract_line_id uuid,
      source jsonb,
      created_at timestamptz(3) not null default now(),
      updated_at timestamptz(3) not null default now(),
      primary key (tenant, item_id),
      foreign key (tenant, invoice_id) references invoices (tenant, invoice_id) on delete cascade,
      foreign key (tenant, service_id) references service_catalog (tenant, service_id) on delete restrict,
      foreign key (tenant, tax_rate_id) references tax_rates (tenant, tax_rate_id) on delete restrict
    );
    create index invoice_items_invoice_idx on invoice_items (tenant, invoice_id, display_order);
    create index invoice_items_service_idx on invoice_items (tenant, service_id);
    create index invoice_items_rate_idx on invoice_items (tenant, tax_rate_id);

    create table invoice_annotations (
      tenant uuid not null,
      annotation_id uuid not null,
      invoice_id uuid not null,
      content text not null,
      is_internal boolean not null default true,
      created_by uuid,
      created_at timestamptz(3) not null default now(),
      updated_at timestamptz(3) not null default now(),
      primary key (tenant, annotation_id),
      foreign key (tenant, invoice_id) references invoices (tenant, invoice_id) on delete cascade
    );
    create index invoice_annotations_invoice_idx on invoice_annotations (tenant, invoice_id, created_at);

    create table invoice_payments (
      tenant uuid not null,
      payment_id uuid not null,
      invoice_id uuid not null,
      client_id uuid not null,
      billing_profile_id uuid not null,
      currency_code text not null,
      amount_cents bigint not null check (amount_cents > 0),
      applied_cents bigint not null check (applied_cents >= 0),
      to_credit_cents bigint not null check (to_credit_cents >= 0),
      payment_date date not null,
      method text not null check (method in ('cash', 'check', 'card', 'bank_transfer', 'other')),
      reference text,
      created_by uuid,
      created_at timestamptz(3) not null default now(),
      updated_at timestamptz(3) not null default now(),
      primary key (tenant, payment_id),
      foreign key (tenant, invoice_id) references invoices (tenant, invoice_id) on delete restrict,
      check (applied_cents + to_credit_cents = amount_cents)
    );
    create index invoice_payments_invoice_idx on invoice_payments (tenant, invoice_id, created_at);
    create index invoice_payments_date_idx on invoice_payments (tenant, payment_date);
    create index invoice_payments_client_idx on invoice_payments (tenant, client_id);

    create table credit_notes (
      tenant uuid not null,
      credit_note_id uuid not null,
      credit_note_number text not null,
      invoice_id uuid not null,
      client_id uuid not null,
      billing_profile_id uuid not null,
      currency_code text not null,
      amount_cents bigint not null check (amount_cents > 0),
      applied_cents bigint not null check (applied_cents >= 0),
      to_credit_cents bigint not null check (to_credit_cents >= 0),
      reason text not null,
      issue_date date not null,
      created_by uuid,
      created_at timestamptz(3) not null default now(),
      updated_at timestamptz(3) not null default now(),
      primary key (tenant, credit_note_id),
      foreign key (tenant, invoice_id) references invoices (tenant, invoice_id) on delete restrict,
      check (applied_cents + to_credit_cents = amount_cents)
    );
    create unique index credit_notes_number_uq on credit_notes (tenant, credit_note_number);
    create index credit_notes_invoice_idx on credit_notes (tenant, invoice_id);
    create index credit_notes_client_idx on credit_notes (tenant, client_id, issue_date);

    create table client_credit_entries (
      tenant uuid not null,
      entry_id uuid not null,
      client_id uuid not null,
      billing_profile_id uuid not null,
      currency_code text not null,
      amount_cents bigint not null check (amount_cents <> 0),
      kind text not null check (kind in ('overpayment', 'credit_note', 'applied')),
      invoice_id uuid,
      payment_id uuid,
      credit_note_id uuid,
      created_by uuid,
      created_at timestamptz(3) not null default now(),
      primary key (tenant, entry_id),
      foreign key (tenant, client_id) references clients (tenant, client_id) on delete restrict,
      foreign key (tenant, billing_profile_id) references client_billing_profiles (tenant, billing_profile_id) on delete restrict
    );
    create index client_credit_entries_profile_idx on client_credit_entries (tenant, billing_profile_id, currency_code);
    create index client_credit_entries_client_idx on client_credit_entries (tenant, client_id, created_at);

    create table quotes (
      tenant uuid not null references tenants (tenant_id) on delete cascade,
      quote_id uuid not null,
      quote_number text not null,
      client_id uuid not null,
      title text not null,
      description text,
      currency_code text not null check (currency_code ~ '^[A-Z]{3}$'),
      issue_date date not null,
      valid_until date not null,
      status text not null default 'draft' check (status in ('draft', 'sent', 'accepted', 'rejected', 'expired')),
      subtotal_cents bigint not null default 0,
      tax_cents bigint not null default 0,
      total_cents bigint not null default 0,
      mrr_cents bigint not null default 0,
      nrr_cents bigint not null default 0,
      hardware_cents bigint not null default 0,
      sent_at timestamptz(3),
      accepted_at timestamptz(3),
      rejected_at timestamptz(3),
      rejection_reason text,
      converted_contract_id uuid,
      converted_at timestamptz(3),
      created_by uuid,
      created_at timestamptz(3) not null default now(),
      updated_at timestamptz(3) not null default now(),
      primary key (tenant, quote_id),
      foreign key (tenant, client_id) references clients (tenant, client_id) on delete restrict,
      check (valid_until >= issue_date)
    );
    create unique index quotes_number_uq on quotes (tenant, quote_number);
    create index quotes_client_idx on quotes (tenant, client_id, issue_date);
    create index quotes_issue_idx on quotes (tenant, issue_date, quote_id);

    create table quote_items (
      tenant uuid not null,
      item_id uuid not null,
      quote_id uuid not null,
      display_order integer not null default 0,
      description text not null,
      quantity_units bigint not null check (quantity_units > 0),
      unit_price_cents bigint not null,
      service_id uuid,
      tax_rate_id uuid,
      tax_percentage_thousandths integer not null default 0 check (tax_percentage_thousandths between 0 and 100000),
      total_cents bigint not null,
      tax_cents bigint not null,
      item_kind text not null check (item_kind in ('service', 'product')),
      is_recurring boolean not null default false,
      billing_frequency text check (billing_frequency in ('weekly', 'bi-weekly', 'monthly', 'quarterly', 'semi-annually', 'annually')),
      created_at timestamptz(3) not null default now(),
      updated_at timestamptz(3) not null default now(),
      primary key (tenant, item_id),
      foreign key (tenant, quote_id) references quotes (tenant, quote_id) on delete cascade,
      foreign key (tenant, service_id) references service_catalog (tenant, service_id) on delete restrict,
      foreign key (tenant, tax_rate_id) references tax_rates (tenant, tax_rate_id) on delete restrict,
      check (is_recurring = (billing_frequency is not null))
    );
    create index quote_items_quote_idx on quote_items (tenant, quote_id, display_order);
    create index quote_items_service_idx on quote_items (tenant, service_id);
    create index quote_items_rate_idx on quote_items (tenant, tax_rate_id);
  `);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, `
    drop table quote_items;
    drop table quotes;
    drop table client_credit_entries;
    drop table credit_notes;
    drop table invoice_payments;
    drop table invoice_annotations;
    drop table invoice_items;
    drop table invoices;
    alter table billing_settings
      drop column invoice_number_prefix, drop column next_invoice_number,
      drop column credit_note_number_prefix, drop column next_credit_note_number,
      drop column quote_number_prefix, drop column next_quote_number,
      drop column default_payment_terms_days;
  `);
}
