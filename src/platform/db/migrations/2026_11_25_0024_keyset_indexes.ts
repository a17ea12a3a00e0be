import type { Kysely } from 'kysely';
import { runStatements } from './run-statements.ts';

/**
 * The keyset walk of a list (`sort=updated_at&cursor=`, platform/http/keyset.ts) reads the rows after a
 * position in (updated_at, id) order: with a btree on (tenant, updated_at, id) that is an index range scan
 * of `limit + 1` entries, the same cost on page 2,000 as on page 1. Clients, contacts, users, tickets,
 * projects, interactions, opportunities and automation rules have theirs already; these are the other
 * tenant-wide lists that grow without bound (per-parent lists such as a ticket's comments stay small).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, `
    create index assets_updated_idx on assets (tenant, updated_at, asset_id);
    create index project_tasks_updated_idx on project_tasks (tenant, updated_at, task_id);
    create index invoices_updated_idx on invoices (tenant, updated_at, invoice_id);
    create index invoice_payments_updated_idx on invoice_payments (tenant, updated_at, payment_id);
    create index quotes_updated_idx on quotes (tenant, updated_at, quote_id);
    create index contracts_updated_idx on contracts (tenant, updated_at, contract_id);
    create index usage_records_updated_idx on usage_records (tenant, updated_at, usage_id);
    create index automation_executions_updated_idx on automation_executions (tenant, updated_at, execution_id);
    create index kb_articles_updated_idx on kb_articles (tenant, updated_at, article_id);
  `);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, `
    drop index kb_articles_updated_idx;
    drop index automation_executions_updated_idx;
    drop index usage_records_updated_idx;
    drop index contracts_updated_idx;
    drop index quotes_updated_idx;
    drop index invoice_payments_updated_idx;
    drop index invoices_updated_idx;
    drop index project_tasks_updated_idx;
    drop index assets_updated_idx;
  `);
}
