import { sql, type Transaction } from 'kysely';
import type { Executor } from '../../platform/db/executor.ts';
import type { DB } from '../../platform/db/schema.ts';
import { syncSearch } from '../../platform/search/writer.ts';
import type { MergeBlocker, MergeContext, MergeParticipant } from '../clients/index.ts';
import { emitBillingEvents, type BillingEventRow } from './billing.events.ts';

/**
 * Billing's part in a client merge (`POST /clients/{id}/merge`, run by the clients area in one transaction
 * with the source and target client rows locked).
 *
 * What moves. Every billing record naming the source by `client_id` is re-attributed to the target, set-based
 * (one UPDATE per table, whatever the number of records): contracts, their assignments (client_contracts),
 * invoices, payments, credit notes, the client credit ledger, quotes and usage records. Nothing else on them
 * changes: an invoice keeps its number, amounts, status and billing profile (the source's profiles move to
 * the target with their ids — the clients area does that), so credit stays with its profile and currency.
 * The client's tax settings move only when the target has none; otherwise the target's stay and the source's
 * row is left on the tombstone (`tax_settings` 0).
 *
 * The cutover. `ctx.cutoverDate` is the day from which the source's contracts bill under the target. An
 * assignment that started before the cutover and is still running on it (end_date null or ≥ cutover) starts
 * at the cutover once moved: invoice generation bills an assignment from max(period start, assignment start,
 * contract start), so the days before the cutover — billed (or to be settled) under the source — are never
 * billed again under the target. The assignment's `client_contract.updated` event carries the previous
 * start_date. Assignments that ended before the cutover, or start on or after it, keep their dates. The
 * contract's own dates are not touched.
 *
 * Blockers (`invalid_cutover_date`): a source contract (draft or active) starting after the cutover, and a
 * generated, non-void invoice of a source billing profile whose period contains the cutover (billing from
 * the cutover under the target would bill those days twice).
 *
 * Events: `<entity>.updated` per moved contract, assignment, invoice, quote and usage record with
 * `{ <id>, changed_fields, client_id: target, previous_client_id: source, merge: true }`, written in bulk.
 * Payments, credit notes and credit ledger entries have no events of their own: they hang off an invoice
 * (payment_recorded, credited), so their move is announced by that invoice's `invoice.updated`. Moved tax
 * settings announce `client_tax_settings.updated` for the target. Search documents whose subtitle shows the
 * client (contracts, assignments, invoices with their items and notes) are re-synced in the transaction.
 *
 * `count` and `move` report the same keys, and for the same data the same numbers.
 */

export const BILLING_MERGE_KEYS = [
  'contracts', 'client_contracts', 'invoices', 'payments', 'credit_notes', 'client_credit_entries', 'quotes', 'usage_records', 'tax_settings',
] as const;
export type BillingMergeCounts = Record<(typeof BILLING_MERGE_KEYS)[number], number>;

/** The tables moved by `client_id` alone, with their key column (payload and count key beside). */
const MOVED = [
  { key: 'contracts', table: 'contracts', id: 'contract_id' },
  { key: 'invoices', table: 'invoices', id: 'invoice_id' },
  { key: 'payments', table: 'invoice_payments', id: 'payment_id' },
  { key: 'credit_notes', table: 'credit_notes', id: 'credit_note_id' },
  { key: 'client_credit_entries', table: 'client_credit_entries', id: 'entry_id' },
  { key: 'quotes', table: 'quotes', id: 'quote_id' },
  { key: 'usage_records', table: 'usage_records', id: 'usage_id' },
] as const;

type MovedKey = (typeof MOVED)[number]['key'];

export function billingMergeParticipant(): MergeParticipant {
  return {
    name: 'billing',

    async count(db: Executor, ctx: MergeContext): Promise<BillingMergeCounts> {
      const { tenant, sourceId, targetId } = ctx;
      const of = (table: string) => sql<number>`(select count(*)::int from ${sql.table(table)} where tenant = ${tenant} and client_id = ${sourceId})`;
      const { rows } = await sql<BillingMergeCounts>`
        select
          ${of('contracts')} as contracts,
          ${of('client_contracts')} as client_contracts,
          ${of('invoices')} as invoices,
          ${of('invoice_payments')} as payments,
          ${of('credit_notes')} as credit_notes,
          ${of('client_credit_entries')} as client_credit_entries,
          ${of('quotes')} as quotes,
          ${of('usage_records')} as usage_records,
          (select count(*)::int from client_tax_settings s
            where s.tenant = ${tenant} and s.client_id = ${sourceId}
              and not exists (select 1 from client_tax_settings t where t.tenant = ${tenant} and t.client_id = ${targetId})) as tax_settings
      `.execute(db);
      const row = rows[0]!;
      return Object.fromEntries(BILLING_MERGE_KEYS.map((k) => [k, Number(row[k])])) as BillingMergeCounts;
    },

    async blockers(db: Executor, ctx: MergeContext): Promise<MergeBlocker[]> {
      const { tenant, sourceId, cutoverDate } = ctx;
      const out: MergeBlocker[] = [];
      const contracts = await db
        .selectFrom('contracts')
        .select(['contract_id', 'contract_name', sql<string>`start_date::text`.as('start_date')])
        .where('tenant', '=', tenant)
        .where('client_id', '=', sourceId)
        .where('status', 'in', ['draft', 'active'])
        .where('start_date', '>', cutoverDate)
        .orderBy('start_date')
        .orderBy('contract_id')
        .execute();
      for (const c of contracts) {
        out.push({
          code: 'invalid_cutover_date',
          message: `The cutover date ${cutoverDate} precedes the start of contract '${c.contract_name}' (${c.start_date}): choose a cutover on or after ${c.start_date}.`,
          details: { contract_id: c.contract_id, contract_name: c.contract_name, start_date: c.start_date, cutover_date: cutoverDate },
        });
      }
      if (ctx.profileIds.length > 0) {
        const invoices = await db
          .selectFrom('invoices')
          .select(['invoice_id', 'invoice_number', sql<string>`period_start::text`.as('period_start'), sql<string>`period_end::text`.as('period_end')])
          .where('tenant', '=', tenant)
          .where('billing_profile_id', 'in', ctx.profileIds)
          .where('is_generated', '=', true)
          .where('status', '<>', 'void')
          .where('period_start', '<=', cutoverDate)
          .where('period_end', '>=', cutoverDate)
          .orderBy('period_start')
          .orderBy('invoice_id')
          .execute();
        for (const i of invoices) {
          const name = i.invoice_number ? `invoice ${i.invoice_number}` : `draft invoice ${i.invoice_id}`;
          out.push({
            code: 'invalid_cutover_date',
            message: `The cutover date ${cutoverDate} falls inside the period ${i.period_start} – ${i.period_end} already invoiced on ${name}: `
              + 'billing from it under the target would bill those days twice; choose a cutover outside that period.',
            details: { invoice_id: i.invoice_id, invoice_number: i.invoice_number, period_start: i.period_start, period_end: i.period_end, cutover_date: cutoverDate },
          });
        }
      }
      return out;
    },

    async move(trx: Transaction<DB>, ctx: MergeContext): Promise<BillingMergeCounts> {
      const { tenant, sourceId, targetId, cutoverDate } = ctx;
      const moved = {} as Record<MovedKey, string[]>;
      for (const m of MOVED) {
        // client_credit_entries is an append-only ledger: no updated_at.
        const touch = m.table === 'client_credit_entries' ? sql`` : sql`, updated_at = now()`;
        const { rows } = await sql<{ id: string }>`
          update ${sql.table(m.table)} set client_id = ${targetId}${touch}
          where tenant = ${tenant} and client_id = ${sourceId}
          returning ${sql.ref(m.id)} as id
        `.execute(trx);
        moved[m.key] = rows.map((r) => r.id);
      }

      // The assignments, cut over (see the header); `old` is the row as it was before this statement.
      const { rows: assignments } = await sql<{ client_contract_id: string; contract_id: string; previous_start_date: string; cut: boolean }>`
        update client_contracts cc
        set client_id = ${targetId},
            updated_at = now(),
            start_date = case when old.start_date < ${cutoverDate}::date and (old.end_date is null or old.end_date >= ${cutoverDate}::date)
                              then ${cutoverDate}::date else old.start_date end
        from client_contracts old
        where cc.tenant = ${tenant} and cc.client_id = ${sourceId}
          and old.tenant = cc.tenant and old.client_contract_id = cc.client_contract_id
        returning cc.client_contract_id, cc.contract_id, old.start_date::text as previous_start_date, cc.start_date <> old.start_date as cut
      `.execute(trx);

      // Tax settings: the source's row becomes the target's only when the target has none.
      const { rows: tax } = await sql<{ client_id: string }>`
        update client_tax_settings s set client_id = ${targetId}, updated_at = now()
        where s.tenant = ${tenant} and s.client_id = ${sourceId}
          and not exists (select 1 from client_tax_settings t where t.tenant = ${tenant} and t.client_id = ${targetId})
        returning s.client_id
      `.execute(trx);

      const base = { changed_fields: ['client_id'], client_id: targetId, previous_client_id: sourceId, merge: true };
      const plain = (ids: readonly string[]): BillingEventRow[] => ids.map((id) => ({ id, extra: base }));
      await emitBillingEvents(trx, tenant, 'contract', 'updated', plain(moved.contracts));
      await emitBillingEvents(trx, tenant, 'client_contract', 'updated', assignments.map((a) => ({
        id: a.client_contract_id,
        extra: a.cut
          ? { ...base, changed_fields: ['client_id', 'start_date'], contract_id: a.contract_id, start_date: cutoverDate, previous_start_date: a.previous_start_date }
          : { ...base, contract_id: a.contract_id },
      })));
      // Payments, credit notes and credit ledger entries have no events of their own (they are announced on
      // their invoice: payment_recorded, credited): the invoice's `invoice.updated` covers their move.
      await emitBillingEvents(trx, tenant, 'invoice', 'updated', plain(moved.invoices));
      await emitBillingEvents(trx, tenant, 'quote', 'updated', plain(moved.quotes));
      await emitBillingEvents(trx, tenant, 'usage_record', 'updated', plain(moved.usage_records));
      if (tax.length > 0) {
        await emitBillingEvents(trx, tenant, 'client_tax_settings', 'updated', [{
          id: targetId, extra: { changed_fields: ['default_tax_rate_id', 'is_tax_exempt', 'tax_exemption_certificate'], previous_client_id: sourceId, merge: true },
        }]);
      }

      // Search: the documents whose subtitle names the client.
      await syncSearch(trx, tenant, 'contract', moved.contracts);
      await syncSearch(trx, tenant, 'client_contract', assignments.map((a) => a.client_contract_id));
      if (moved.invoices.length > 0) {
        await syncSearch(trx, tenant, 'invoice', moved.invoices);
        const { rows: items } = await sql<{ id: string }>`
          select item_id as id from invoice_items where tenant = ${tenant} and invoice_id = any(${moved.invoices}::uuid[])
        `.execute(trx);
        await syncSearch(trx, tenant, 'invoice_item', items.map((r) => r.id));
        const { rows: notes } = await sql<{ id: string }>`
          select annotation_id as id from invoice_annotations where tenant = ${tenant} and invoice_id = any(${moved.invoices}::uuid[])
        `.execute(trx);
        await syncSearch(trx, tenant, 'invoice_annotation', notes.map((r) => r.id));
      }

      return {
        contracts: moved.contracts.length,
        client_contracts: assignments.length,
        invoices: moved.invoices.length,
        payments: moved.payments.length,
        credit_notes: moved.credit_notes.length,
        client_credit_entries: moved.client_credit_entries.length,
        quotes: moved.quotes.length,
        usage_records: moved.usage_records.length,
        tax_settings: tax.length,
      };
    },
  };
}
