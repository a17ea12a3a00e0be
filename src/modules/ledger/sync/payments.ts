import { withTransaction } from '../../../platform/db/executor.ts';
import { AppError } from '../../../platform/http/errors.ts';
import { newId } from '../../../platform/ids.ts';
import { utcDate } from '../../../platform/time.ts';
import type { OurPaymentInput } from '../books.ts';
import { deleteMapping, insertMapping, mappingOfExternal, mappingsOf, paymentMappingsOf, type MappingRow } from '../mappings/mappings.repo.ts';
import { LedgerProviderError, type LedgerPayment } from '../providers/provider.ts';
import type { SyncContext } from './context.ts';
import { isFatal } from './customers.ts';
import type { PaymentSyncBody } from './sync.schemas.ts';

export type PaymentSyncParams = PaymentSyncBody;

/** How far back change data capture reaches in QuickBooks, and the overlap kept between runs. */
const CDC_WINDOW_MS = 30 * 86_400_000;
const CDC_OVERLAP_MS = 5 * 60_000;

const allocationKey = (paymentId: string, invoiceId: string) => `${paymentId}:${invoiceId}`;

/** What changed in the ledger: payments to apply, and ids of deleted payments to reverse. */
async function changes(ctx: SyncContext, p: PaymentSyncParams, since: Date | null): Promise<{ payments: LedgerPayment[]; deleted: string[] }> {
  const { provider, session } = ctx.c;
  if (p.qbo_payment_id) return { payments: [await provider.getPayment(session, p.qbo_payment_id)], deleted: [] };
  if (p.date_range) return { payments: await provider.listPayments(session, { from: p.date_range.start_date, to: p.date_range.end_date }), deleted: [] };
  const from = new Date(Math.max(Date.now() - CDC_WINDOW_MS + 60_000, (since?.getTime() ?? 0) - CDC_OVERLAP_MS));
  const c = await provider.changesSince(session, from);
  return { payments: c.payments, deleted: c.deleted.filter((d) => d.entity === 'payment').map((d) => d.id) };
}

/** Reverses our payment of a mapping and drops the mapping, in one transaction; one reversed before is only unlinked. */
async function reverse(ctx: SyncContext, m: MappingRow, reason: string): Promise<void> {
  await withTransaction(ctx.db, async (trx) => {
    try {
      await ctx.books.reversePayment(trx, ctx.actor, m.local_id, reason);
    } catch (err) {
      const already = err instanceof AppError && err.code === 'CONFLICT' && typeof (err.details as { reversed_at?: unknown } | undefined)?.reversed_at === 'string';
      if (!already) throw err;
    }
    await deleteMapping(trx, ctx.actor.tenant, m.mapping_id);
  });
  await ctx.tally.record('payment', m.local_id, m.external_id, 'reversed', reason);
}

/**
 * Applies ledger payments to our invoices. Each allocation (a payment's line against one invoice) is recorded
 * as one of our payments in the same transaction as its mapping (`<payment>:<invoice>`), so a retry never
 * records it twice; an allocation whose amount changed is reversed and recorded again; one that disappeared,
 * or a deleted payment, is reversed. An invoice not linked to ours, or another currency, is reported, never guessed.
 */
export async function syncPayments(ctx: SyncContext, p: PaymentSyncParams, since: Date | null): Promise<void> {
  const { tenant } = ctx.actor;
  const connectionId = ctx.c.connection.connection_id;
  const { payments, deleted } = await changes(ctx, p, since);
  const methods = new Map((await mappingsOf(ctx.db, tenant, connectionId, ['payment_method'])).map((m) => [m.external_id, m.local_id as OurPaymentInput['method']]));

  for (const payment of payments) {
    if (await ctx.tally.cancelled()) return;
    const linked = await paymentMappingsOf(ctx.db, tenant, connectionId, payment.id);
    const keep = new Set<string>();
    for (const alloc of payment.allocations) {
      const key = allocationKey(payment.id, alloc.invoiceId);
      keep.add(key);
      try {
        const mapping = linked.find((m) => m.external_id === key);
        if (mapping && (mapping.metadata as { amount_cents?: number }).amount_cents === alloc.amountCents) {
          await ctx.tally.record('payment', mapping.local_id, key, 'unchanged');
          continue;
        }
        const invoiceLink = await mappingOfExternal(ctx.db, tenant, connectionId, 'invoice', alloc.invoiceId);
        if (!invoiceLink) {
          await ctx.tally.record('payment', null, key, 'unmatched', `QuickBooks invoice ${alloc.invoiceId} is not linked to one of ours (export it, or import to link it)`);
          continue;
        }
        const invoice = await ctx.books.invoice(ctx.actor, invoiceLink.local_id);
        if (payment.currency && payment.currency !== invoice.currency_code) {
          await ctx.tally.record('payment', null, key, 'failed', `The payment is in ${payment.currency}, invoice ${invoice.invoice_number ?? invoice.invoice_id} in ${invoice.currency_code}`);
          continue;
        }
        const body: OurPaymentInput = {
          amount_cents: alloc.amountCents,
          payment_date: payment.txnDate ?? utcDate(),
          method: (payment.paymentMethodId && methods.get(payment.paymentMethodId)) || 'other',
          reference: `QuickBooks payment ${payment.id}${payment.reference ? ` (${payment.reference})` : ''}`.slice(0, 255),
        };
        const recorded = await withTransaction(ctx.db, async (trx) => {
          if (mapping) {
            await ctx.books.reversePayment(trx, ctx.actor, mapping.local_id, 'Changed in QuickBooks');
            await deleteMapping(trx, tenant, mapping.mapping_id);
          }
          const made = await ctx.books.recordPayment(trx, ctx.actor, invoice.invoice_id, body);
          await insertMapping(trx, {
            tenant, mapping_id: newId(), connection_id: connectionId, entity_type: 'payment', local_id: made.payment_id, external_id: key,
            external_name: payment.reference, last_synced_at: new Date(), metadata: JSON.stringify({ amount_cents: alloc.amountCents, version: payment.version, invoice_id: invoice.invoice_id }),
          });
          return made;
        });
        await ctx.tally.record('payment', recorded.payment_id, key, mapping ? 'updated' : 'applied', mapping ? `Amount changed in QuickBooks to ${alloc.amountCents} cents: reversed and recorded again` : null);
      } catch (err) {
        if (isFatal(err)) throw err;
        if (err instanceof AppError || err instanceof LedgerProviderError) await ctx.tally.record('payment', null, key, 'failed', err.message);
        else throw err;
      }
    }
    for (const gone of linked.filter((m) => !keep.has(m.external_id))) await reverseSafely(ctx, gone, 'Removed from the payment in QuickBooks');
    const unapplied = payment.totalCents - payment.allocations.reduce((n, a) => n + a.amountCents, 0);
    if (p.include_unapplied && unapplied > 0) await ctx.tally.record('payment', null, payment.id, 'skipped', `${unapplied} cents are unapplied in QuickBooks (no invoice received them)`);
  }
  for (const id of deleted) {
    for (const m of await paymentMappingsOf(ctx.db, tenant, connectionId, id)) await reverseSafely(ctx, m, 'Deleted in QuickBooks');
  }
}

async function reverseSafely(ctx: SyncContext, m: MappingRow, reason: string): Promise<void> {
  try {
    await reverse(ctx, m, reason);
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    await ctx.tally.record('payment', m.local_id, m.external_id, 'failed', `Could not reverse: ${err.message}`);
  }
}
