import { unprocessable } from '../../../platform/http/errors.ts';
import { newId } from '../../../platform/ids.ts';
import type { OurInvoice } from '../books.ts';
import { insertMapping, mappingOfLocal, mappingsOf, updateMapping, type MappingRow } from '../mappings/mappings.repo.ts';
import { taxRegionKey } from '../mappings/mappings.service.ts';
import { LedgerProviderError, type InvoiceInput, type LedgerInvoice, type LedgerItem } from '../providers/provider.ts';
import type { SyncContext } from './context.ts';
import { CustomerDirectory, ensureCustomer, isFatal } from './customers.ts';
import { requestIdOf } from './keys.ts';
import type { InvoiceExportBody } from './sync.schemas.ts';

export const EXPORTABLE_STATUSES = ['finalized', 'sent', 'partially_paid', 'paid'] as const;
/** One request exports at most this many invoices; a larger selection goes through POST …/sync/bulk (the worker). */
export const MAX_INLINE_INVOICES = 500;

export type ExportParams = InvoiceExportBody;

/** What an invoice line is sent as: the ledger item and tax code it maps to (or how it will get one). */
export interface Plan {
  items: Map<string, string>; // service id → ledger item id ('' = the default item)
  createItems: Map<string, string>; // service id → income account for the item to create
  taxCodes: Map<string, string | null>; // tax rate id → ledger tax code (null: leave it to the ledger)
  untaxed: string | null;
}

const DEFAULT_ITEM = '';

/** What planning needs: no run exists yet (a selection that cannot be exported records nothing). */
type Planning = Pick<SyncContext, 'db' | 'actor' | 'c' | 'books'>;

/**
 * Checks every line of the selected invoices against the mappings before anything is sent: an item for each
 * catalogue service (or one to create under the default income account), the default item for lines without
 * one, and a tax code for each taxed line's region (or the default). What is missing is a 422 naming it all.
 */
export async function planExport(ctx: Planning, invoices: OurInvoice[], autoCreateItems: boolean): Promise<Plan> {
  const { tenant } = ctx.actor;
  const mappings = await mappingsOf(ctx.db, tenant, ctx.c.connection.connection_id, ['item', 'tax_code', 'account']);
  const item = new Map(mappings.filter((m) => m.entity_type === 'item').map((m) => [m.local_id, m.external_id]));
  const defaultItem = mappings.find((m) => m.entity_type === 'item' && m.is_default)?.external_id;
  const tax = new Map(mappings.filter((m) => m.entity_type === 'tax_code').map((m) => [m.local_id, m.external_id]));
  const defaultTax = mappings.find((m) => m.entity_type === 'tax_code' && m.is_default)?.external_id;
  const income = mappings.find((m) => m.entity_type === 'account' && m.is_default && m.local_id.startsWith('income:'))?.external_id;
  const out: Plan = { items: new Map(), createItems: new Map(), taxCodes: new Map(), untaxed: tax.get('untaxed') ?? null };
  const unmapped = new Map<string, { entity_type: string; local_id: string; name: string; invoice_ids: string[] }>();
  const miss = (type: string, localId: string, name: string, invoiceId: string) => {
    const key = `${type}:${localId}`;
    const m = unmapped.get(key) ?? { entity_type: type, local_id: localId, name, invoice_ids: [] };
    if (!m.invoice_ids.includes(invoiceId) && m.invoice_ids.length < 20) m.invoice_ids.push(invoiceId);
    unmapped.set(key, m);
  };
  for (const inv of invoices.filter((i) => i.status !== 'void')) {
    for (const line of inv.items) {
      const serviceId = line.service_id ?? DEFAULT_ITEM;
      if (!out.items.has(serviceId) && !out.createItems.has(serviceId)) {
        const mapped = line.service_id ? item.get(line.service_id) : defaultItem;
        if (mapped) out.items.set(serviceId, mapped);
        else if (line.service_id && autoCreateItems && income) out.createItems.set(serviceId, income);
        else if (line.service_id && autoCreateItems) miss('account', 'income:default', 'the default income account (items are created under it)', inv.invoice_id);
        else if (line.service_id) miss('item', line.service_id, (await ctx.books.catalogItem(ctx.actor, line.service_id)).name, inv.invoice_id);
        else miss('item', '(default)', 'the default item, for lines without a catalogue service', inv.invoice_id);
      }
      if (line.tax_rate_id && !out.taxCodes.has(line.tax_rate_id)) {
        const region = await ctx.books.taxRegion(ctx.actor, line.tax_rate_id);
        const mapped = (region ? tax.get(taxRegionKey(region)) : undefined) ?? defaultTax;
        if (mapped) out.taxCodes.set(line.tax_rate_id, mapped);
        else miss('tax_code', region ? taxRegionKey(region) : '(no region)', region ? `tax region '${region}'` : `tax rate ${line.tax_rate_id} (it has no region)`, inv.invoice_id);
      }
    }
  }
  if (unmapped.size > 0) {
    const list = [...unmapped.values()];
    throw unprocessable(`Map these before exporting: ${list.map((u) => `${u.entity_type.replace('_', ' ')} ${u.name}`).join('; ')}`, { reason: 'unmapped', unmapped: list });
  }
  return out;
}

/**
 * The invoices an export selects, with their items: finalized, sent, partially paid and paid ones, and voided ones
 * that were exported before (their void is carried to the ledger). Drafts never qualify.
 */
export async function selectInvoices(ctx: Planning, p: ExportParams, limit = MAX_INLINE_INVOICES): Promise<OurInvoice[]> {
  const connectionId = ctx.c.connection.connection_id;
  const exported = async (ids: string[]) => new Set((await mappingsOf(ctx.db, ctx.actor.tenant, connectionId, ['invoice'], ids)).map((m) => m.local_id));
  if (p.invoice_id) {
    const one = await ctx.books.invoice(ctx.actor, p.invoice_id);
    const voidedExport = one.status === 'void' && (await exported([one.invoice_id])).has(one.invoice_id);
    if (!(EXPORTABLE_STATUSES as readonly string[]).includes(one.status) && !voidedExport) {
      throw unprocessable(`Invoice ${one.invoice_number ?? one.invoice_id} is ${one.status}; only finalized, sent, partially paid and paid invoices are exported (and voids of exported ones)`, { reason: 'not_exportable', status: one.status });
    }
    return [one];
  }
  const statuses = p.status_filter?.length ? p.status_filter : [...EXPORTABLE_STATUSES, 'void'];
  const ids = new Set<string>();
  for (const status of statuses) {
    let found = await ctx.books.invoiceIds(ctx.actor, { status, client_id: p.client_id, from: p.date_range?.start_date, to: p.date_range?.end_date });
    if (status === 'void') {
      const known = await exported(found);
      found = found.filter((id) => known.has(id));
    }
    for (const id of found) ids.add(id);
    if (ids.size > limit) {
      throw unprocessable(`The selection holds more than ${limit} invoices; narrow date_range or export through POST /api/v1/quickbooks/sync/bulk`, { reason: 'too_many', limit });
    }
  }
  const out: OurInvoice[] = [];
  for (const id of ids) out.push(await ctx.books.invoice(ctx.actor, id));
  return out;
}

/** What a sync remembers of the ledger's invoice (and of ours) to judge drift and change later. */
export const snapshotOf = (remote: LedgerInvoice, inv: OurInvoice) => JSON.stringify({
  version: remote.version, total_cents: remote.totalCents, doc_number: remote.docNumber, voided: remote.voided, invoice_updated_at: inv.updated_at,
});

/** Whether the ledger's copy changed in a way that matters (total, number, void) since we last wrote it. */
export function driftOf(seen: Record<string, unknown>, remote: LedgerInvoice): string | null {
  if (seen.version === remote.version) return null;
  const changes = [];
  if (seen.total_cents !== remote.totalCents) changes.push(`total ${String(seen.total_cents)} → ${remote.totalCents} cents`);
  if (seen.doc_number !== remote.docNumber) changes.push(`number ${String(seen.doc_number)} → ${String(remote.docNumber)}`);
  if (Boolean(seen.voided) !== remote.voided) changes.push(remote.voided ? 'voided in QuickBooks' : 'un-voided in QuickBooks');
  return changes.length > 0 ? `Changed in QuickBooks since the last export: ${changes.join(', ')}` : null;
}

/**
 * A ledger item for a catalogue service: created under the income account, or — when the ledger already has an
 * item of that name (QuickBooks refuses a duplicate name) — that item.
 */
async function itemFor(ctx: SyncContext, serviceId: string, incomeAccountId: string): Promise<LedgerItem> {
  const { provider, session } = ctx.c;
  const svc = await ctx.books.catalogItem(ctx.actor, serviceId);
  const name = svc.name.slice(0, 100);
  try {
    return await provider.createItem(session, { name, incomeAccountId, description: svc.description }, requestIdOf(ctx.actor.tenant, session.realmId, 'item', serviceId));
  } catch (err) {
    if (!(err instanceof LedgerProviderError && err.reason === 'conflict')) throw err;
    const existing = (await ctx.reference.items(ctx.actor.tenant, session.realmId, true)).find((i) => i.name.toLowerCase() === name.toLowerCase());
    if (!existing) throw err;
    return existing;
  }
}

async function exportOne(ctx: SyncContext, dir: CustomerDirectory, plan: Plan, inv: OurInvoice, p: ExportParams): Promise<void> {
  const { tenant } = ctx.actor;
  const { provider, session } = ctx.c;
  const realm = session.realmId;
  const mapping: MappingRow | undefined = await mappingOfLocal(ctx.db, tenant, ctx.c.connection.connection_id, 'invoice', inv.invoice_id);
  if (mapping && p.skip_existing) return ctx.tally.record('invoice', inv.invoice_id, mapping.external_id, 'skipped', 'Already exported (skip_existing)');
  const seen = (mapping?.metadata ?? {}) as Record<string, unknown>;
  if (mapping && seen.invoice_updated_at === inv.updated_at && mapping.sync_status === 'synced') {
    return ctx.tally.record('invoice', inv.invoice_id, mapping.external_id, 'unchanged', 'Exported and unchanged since');
  }
  if (inv.status === 'void') return voidOne(ctx, inv, mapping!);
  const customer = await ensureCustomer(ctx, dir, await ctx.books.client(ctx.actor, inv.client_id));
  for (const [serviceId, account] of plan.createItems) {
    const made = await itemFor(ctx, serviceId, account);
    await insertMapping(ctx.db, { tenant, mapping_id: newId(), connection_id: ctx.c.connection.connection_id, entity_type: 'item', local_id: serviceId, external_id: made.id, external_name: made.name, last_synced_at: new Date(), metadata: '{}' })
      .catch((err) => { if ((err as { code?: unknown }).code !== '23505') throw err; });
    plan.items.set(serviceId, made.id);
    plan.createItems.delete(serviceId);
    ctx.reference.forget(tenant, ctx.c.connection.connection_id, 'items');
  }
  const input: InvoiceInput = {
    customerId: customer.id,
    docNumber: inv.invoice_number,
    txnDate: inv.issue_date,
    dueDate: inv.due_date,
    currency: inv.currency_code,
    privateNote: `PSA invoice ${inv.invoice_id}`,
    lines: inv.items.map((l) => ({
      description: l.description,
      amountCents: l.total_cents,
      quantity: l.quantity,
      unitPriceCents: l.unit_price_cents,
      itemId: plan.items.get(l.service_id ?? DEFAULT_ITEM)!,
      taxCodeId: l.tax_rate_id ? plan.taxCodes.get(l.tax_rate_id) ?? null : plan.untaxed,
    })),
  };
  if (!mapping) {
    const created = await provider.createInvoice(session, input, requestIdOf(tenant, realm, 'invoice', inv.invoice_id));
    try {
      await insertMapping(ctx.db, { tenant, mapping_id: newId(), connection_id: ctx.c.connection.connection_id, entity_type: 'invoice', local_id: inv.invoice_id, external_id: created.id, external_name: created.docNumber, last_synced_at: new Date(), metadata: snapshotOf(created, inv) });
    } catch (err) {
      if ((err as { code?: unknown }).code !== '23505') throw err;
    }
    return ctx.tally.record('invoice', inv.invoice_id, created.id, 'created');
  }
  const remote = await provider.getInvoice(session, mapping.external_id);
  const drift = driftOf(seen, remote);
  if (drift) {
    await updateMapping(ctx.db, tenant, mapping.mapping_id, { sync_status: 'drift', sync_error: drift });
    return ctx.tally.record('invoice', inv.invoice_id, mapping.external_id, 'drift', `${drift}; not overwritten`);
  }
  const updated = await provider.updateInvoice(session, remote.id, remote.version, input, requestIdOf(tenant, realm, 'invoice-update', inv.invoice_id, inv.updated_at, remote.version));
  await updateMapping(ctx.db, tenant, mapping.mapping_id, { sync_status: 'synced', sync_error: null, last_synced_at: new Date(), external_name: updated.docNumber, metadata: snapshotOf(updated, inv) });
  return ctx.tally.record('invoice', inv.invoice_id, updated.id, 'updated');
}

/** Carries our void of an exported invoice to the ledger, unless the ledger's copy drifted meanwhile. */
async function voidOne(ctx: SyncContext, inv: OurInvoice, mapping: MappingRow): Promise<void> {
  const { tenant } = ctx.actor;
  const { provider, session } = ctx.c;
  const remote = await provider.getInvoice(session, mapping.external_id);
  if (remote.voided) {
    await updateMapping(ctx.db, tenant, mapping.mapping_id, { sync_status: 'synced', sync_error: null, last_synced_at: new Date(), metadata: snapshotOf(remote, inv) });
    return ctx.tally.record('invoice', inv.invoice_id, remote.id, 'unchanged', 'Void in QuickBooks too');
  }
  const drift = driftOf(mapping.metadata, remote);
  if (drift) {
    await updateMapping(ctx.db, tenant, mapping.mapping_id, { sync_status: 'drift', sync_error: drift });
    return ctx.tally.record('invoice', inv.invoice_id, remote.id, 'drift', `${drift}; not voided there`);
  }
  const voided = await provider.voidInvoice(session, remote.id, remote.version, requestIdOf(tenant, session.realmId, 'invoice-void', inv.invoice_id));
  await updateMapping(ctx.db, tenant, mapping.mapping_id, { sync_status: 'synced', sync_error: null, last_synced_at: new Date(), metadata: snapshotOf(voided, inv) });
  return ctx.tally.record('invoice', inv.invoice_id, remote.id, 'updated', 'Voided in QuickBooks');
}

/** Exports each planned invoice (see planExport); one invoice's failure does not stop the rest. */
export async function exportInvoices(ctx: SyncContext, p: ExportParams, invoices: OurInvoice[], planned: Plan): Promise<void> {
  const dir = new CustomerDirectory(ctx);
  for (const inv of invoices) {
    if (await ctx.tally.cancelled()) return;
    try {
      await exportOne(ctx, dir, planned, inv, p);
    } catch (err) {
      if (isFatal(err) || !(err instanceof LedgerProviderError)) throw err;
      await ctx.tally.record('invoice', inv.invoice_id, null, err.reason === 'conflict' ? 'conflict' : 'failed', err.message);
    }
  }
}
