import { newId } from '../../../platform/ids.ts';
import { insertMapping, mappingOfExternal, mappingOfLocal, updateMapping } from '../mappings/mappings.repo.ts';
import { LedgerProviderError, type LedgerInvoice } from '../providers/provider.ts';
import type { SyncContext } from './context.ts';
import { isFatal } from './customers.ts';
import { driftOf, snapshotOf } from './export.ts';
import type { InvoiceImportBody } from './sync.schemas.ts';

export type ImportParams = InvoiceImportBody;

/**
 * Reads ledger invoices and reconciles them with ours, never creating invoices here (numbers and totals are ours):
 * a linked invoice is checked for drift (total, number or void changed in the ledger: reported, the mapping
 * marked); an unlinked one is linked to our invoice with the same number, customer and total, without exporting;
 * anything else is reported unmatched.
 */
export async function importInvoices(ctx: SyncContext, p: ImportParams): Promise<void> {
  const { provider, session } = ctx.c;
  const { tenant } = ctx.actor;
  const connectionId = ctx.c.connection.connection_id;
  const remote: LedgerInvoice[] = p.qbo_invoice_id
    ? [await provider.getInvoice(session, p.qbo_invoice_id)]
    : await provider.listInvoices(session, { from: p.date_range?.start_date, to: p.date_range?.end_date });
  for (const inv of remote) {
    if (await ctx.tally.cancelled()) return;
    try {
      const mapping = await mappingOfExternal(ctx.db, tenant, connectionId, 'invoice', inv.id);
      if (mapping) {
        const drift = driftOf(mapping.metadata, inv);
        if (drift) {
          await updateMapping(ctx.db, tenant, mapping.mapping_id, { sync_status: 'drift', sync_error: drift });
          await ctx.tally.record('invoice', mapping.local_id, inv.id, 'drift', drift);
        } else {
          // A new version without a material change (a payment moved the balance): remember it, nothing to report.
          await updateMapping(ctx.db, tenant, mapping.mapping_id, { metadata: JSON.stringify({ ...mapping.metadata, version: inv.version }), last_synced_at: new Date() });
          await ctx.tally.record('invoice', mapping.local_id, inv.id, 'unchanged');
        }
        continue;
      }
      const ours = inv.docNumber ? await ctx.books.invoiceByNumber(ctx.actor, inv.docNumber) : undefined;
      if (!ours) {
        await ctx.tally.record('invoice', null, inv.id, 'unmatched', `No invoice here is numbered ${inv.docNumber ?? '(none)'}`);
        continue;
      }
      const customer = await mappingOfLocal(ctx.db, tenant, connectionId, 'customer', ours.client_id);
      const problems = [];
      if (customer && customer.external_id !== inv.customerId) problems.push(`its customer ${inv.customerId} is not the one ${ours.client_name} is linked to (${customer.external_id})`);
      if (ours.total_cents !== inv.totalCents) problems.push(`its total ${inv.totalCents} differs from ours (${ours.total_cents} cents)`);
      if (await mappingOfLocal(ctx.db, tenant, connectionId, 'invoice', ours.invoice_id)) problems.push(`our ${ours.invoice_number} is already linked to another QuickBooks invoice`);
      if (problems.length > 0) {
        await ctx.tally.record('invoice', ours.invoice_id, inv.id, 'unmatched', `Not linked: ${problems.join('; ')}`);
        continue;
      }
      if (!customer) {
        await insertMapping(ctx.db, { tenant, mapping_id: newId(), connection_id: connectionId, entity_type: 'customer', local_id: ours.client_id, external_id: inv.customerId, external_name: null, last_synced_at: new Date(), metadata: '{}' })
          .catch((err) => { if ((err as { code?: unknown }).code !== '23505') throw err; });
      }
      await insertMapping(ctx.db, { tenant, mapping_id: newId(), connection_id: connectionId, entity_type: 'invoice', local_id: ours.invoice_id, external_id: inv.id, external_name: inv.docNumber, last_synced_at: new Date(), metadata: snapshotOf(inv, ours) });
      await ctx.tally.record('invoice', ours.invoice_id, inv.id, 'linked', `Linked to ${ours.invoice_number} by number, customer and total (not exported)`);
    } catch (err) {
      if (isFatal(err) || !(err instanceof LedgerProviderError)) throw err;
      await ctx.tally.record('invoice', null, inv.id, 'failed', err.message);
    }
  }
}
