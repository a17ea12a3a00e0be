import type { Executor } from '../../../platform/db/executor.ts';
import { joined, listIdsOf } from '../../../platform/search/indexing.ts';
import type { SearchIndexer } from '../../../platform/search/types.ts';

/*
 * Invoices, their items and their notes. A draft (and everything on it) is internal, so client-portal keys
 * find their client's invoices only once finalized — as the API shows them; internal notes never reach
 * the portal. Finalizing re-indexes the items and notes with the invoice.
 */

const invoiceTitle = (r: { invoice_number: string | null; client_name: string }) => (r.invoice_number ? `Invoice ${r.invoice_number}` : `Draft invoice for ${r.client_name}`);

export const invoiceSearchIndexer: SearchIndexer = {
  type: 'invoice',
  async load(db: Executor, tenant, ids) {
    if (ids.length === 0) return [];
    const rows = await db
      .selectFrom('invoices as i')
      .innerJoin('clients as c', (j) => j.onRef('c.tenant', '=', 'i.tenant').onRef('c.client_id', '=', 'i.client_id'))
      .select(['i.invoice_id', 'i.invoice_number', 'i.client_id', 'i.status', 'i.currency_code', 'i.po_number', 'i.issue_date', 'i.updated_at', 'c.client_name'])
      .where('i.tenant', '=', tenant)
      .where('i.invoice_id', 'in', ids)
      .execute();
    return rows.map((r) => ({
      type: 'invoice' as const,
      id: r.invoice_id,
      title: invoiceTitle(r),
      subtitle: joined(r.client_name, r.status, r.currency_code, r.issue_date),
      body: r.po_number ? `PO ${r.po_number}` : null,
      url: `/invoices/${r.invoice_id}`,
      identifier: r.invoice_number,
      clientId: r.client_id,
      isInternal: r.status === 'draft',
      updatedAt: r.updated_at,
    }));
  },
  listIds: (db, tenant, afterId, limit) => listIdsOf(db, 'invoices', 'invoice_id', tenant, afterId, limit),
};

export const invoiceItemSearchIndexer: SearchIndexer = {
  type: 'invoice_item',
  async load(db: Executor, tenant, ids) {
    if (ids.length === 0) return [];
    const rows = await db
      .selectFrom('invoice_items as it')
      .innerJoin('invoices as i', (j) => j.onRef('i.tenant', '=', 'it.tenant').onRef('i.invoice_id', '=', 'it.invoice_id'))
      .innerJoin('clients as c', (j) => j.onRef('c.tenant', '=', 'i.tenant').onRef('c.client_id', '=', 'i.client_id'))
      .select(['it.item_id', 'it.invoice_id', 'it.description', 'it.updated_at', 'i.invoice_number', 'i.client_id', 'i.status', 'c.client_name'])
      .where('it.tenant', '=', tenant)
      .where('it.item_id', 'in', ids)
      .execute();
    return rows.map((r) => ({
      type: 'invoice_item' as const,
      id: r.item_id,
      parentType: 'invoice',
      parentId: r.invoice_id,
      title: r.description,
      subtitle: joined(invoiceTitle(r), r.client_name),
      url: `/invoices/${r.invoice_id}`,
      clientId: r.client_id,
      isInternal: r.status === 'draft',
      updatedAt: r.updated_at,
    }));
  },
  listIds: (db, tenant, afterId, limit) => listIdsOf(db, 'invoice_items', 'item_id', tenant, afterId, limit),
};

export const invoiceAnnotationSearchIndexer: SearchIndexer = {
  type: 'invoice_annotation',
  async load(db: Executor, tenant, ids) {
    if (ids.length === 0) return [];
    const rows = await db
      .selectFrom('invoice_annotations as a')
      .innerJoin('invoices as i', (j) => j.onRef('i.tenant', '=', 'a.tenant').onRef('i.invoice_id', '=', 'a.invoice_id'))
      .innerJoin('clients as c', (j) => j.onRef('c.tenant', '=', 'i.tenant').onRef('c.client_id', '=', 'i.client_id'))
      .select(['a.annotation_id', 'a.invoice_id', 'a.content', 'a.is_internal', 'a.updated_at', 'i.invoice_number', 'i.client_id', 'i.status', 'c.client_name'])
      .where('a.tenant', '=', tenant)
      .where('a.annotation_id', 'in', ids)
      .execute();
    return rows.map((r) => ({
      type: 'invoice_annotation' as const,
      id: r.annotation_id,
      parentType: 'invoice',
      parentId: r.invoice_id,
      title: `Note on ${invoiceTitle(r)}`,
      subtitle: r.client_name,
      body: r.content,
      url: `/invoices/${r.invoice_id}`,
      clientId: r.client_id,
      isInternal: r.is_internal || r.status === 'draft',
      updatedAt: r.updated_at,
    }));
  },
  listIds: (db, tenant, afterId, limit) => listIdsOf(db, 'invoice_annotations', 'annotation_id', tenant, afterId, limit),
};
