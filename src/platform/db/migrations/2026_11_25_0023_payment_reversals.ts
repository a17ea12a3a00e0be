import type { Kysely } from 'kysely';
import { runStatements } from './run-statements.ts';

/**
 * A recorded payment can be reversed (a bounced cheque, a payment deleted in the accounting ledger): the row
 * stays, marked with when and why, and its money leaves the invoice and the client credit. A `reversal` credit
 * entry takes back an over-payment's credit.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, `
    alter table invoice_payments add column reversed_at timestamptz(3);
    alter table invoice_payments add column reversal_reason text;
    alter table client_credit_entries drop constraint client_credit_entries_kind_check;
    alter table client_credit_entries add constraint client_credit_entries_kind_check check (kind in ('overpayment', 'credit_note', 'applied', 'reversal'));
  `);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, `
    delete from client_credit_entries where kind = 'reversal';
    alter table client_credit_entries drop constraint client_credit_entries_kind_check;
    alter table client_credit_entries add constraint client_credit_entries_kind_check check (kind in ('overpayment', 'credit_note', 'applied'));
    alter table invoice_payments drop column reversal_reason;
    alter table invoice_payments drop column reversed_at;
  `);
}
