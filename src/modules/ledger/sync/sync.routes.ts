import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { NoBody, NoQuery } from '../../../platform/http/schemas.ts';
import { emptyBodyIsObject } from '../../../platform/http/empty-body.ts';
import { LEDGER_ERRORS, RealmQuery, tags } from '../ledger.openapi.ts';
import { BulkSyncBody, CustomerSyncBody, InvoiceExportBody, InvoiceImportBody, PaymentSyncBody, SyncHistoryQuery, SyncParams, SyncRunListResponse, SyncRunResponse, SyncStatusResponse } from './sync.schemas.ts';
import type { SyncService } from './sync.service.ts';

const read = { permission: 'ledger:read' };
const write = { permission: 'ledger:write' };
const location = (id: string) => `/api/v1/quickbooks/sync/status/${id}`;

export const syncRoutes = (service: SyncService): FastifyPluginAsyncTypebox => async (app) => {
  app.post('/quickbooks/customers/sync', {
    schema: { operationId: 'syncLedgerCustomers', tags, summary: 'Link, create or update ledger customers for our clients (one or all); answers the run with its per-client outcomes', querystring: RealmQuery, body: CustomerSyncBody, response: { 200: SyncRunResponse, ...LEDGER_ERRORS } },
    config: write,
    preValidation: emptyBodyIsObject,
  }, async (req) => ({ data: await service.customers(req.actor, req.query.realm_id, req.body) }));

  app.post('/quickbooks/invoices/export', {
    schema: {
      operationId: 'exportLedgerInvoices', tags,
      summary: 'Export invoices (one, or by date range, status and client; up to 500) to the ledger exactly once: unmapped items or tax regions are a 422 naming them; changed invoices are updated unless QuickBooks changed them too (drift, reported)',
      querystring: RealmQuery, body: InvoiceExportBody, response: { 200: SyncRunResponse, ...LEDGER_ERRORS },
    },
    config: write,
    preValidation: emptyBodyIsObject,
  }, async (req) => ({ data: await service.exportInvoices(req.actor, req.query.realm_id, req.body) }));

  app.post('/quickbooks/invoices/import', {
    schema: {
      operationId: 'importLedgerInvoices', tags,
      summary: 'Reconcile ledger invoices with ours (one, or by date range): linked ones are checked for drift, unlinked ones linked by number, customer and total (never created here); then the payments are applied',
      querystring: RealmQuery, body: InvoiceImportBody, response: { 200: SyncRunResponse, ...LEDGER_ERRORS },
    },
    config: write,
    preValidation: emptyBodyIsObject,
  }, async (req) => ({ data: await service.importInvoices(req.actor, req.query.realm_id, req.body) }));

  app.post('/quickbooks/payments/sync', {
    schema: {
      operationId: 'syncLedgerPayments', tags,
      summary: 'Apply ledger payments to our linked invoices exactly once (changed amounts re-applied, deleted payments reversed); unlinked invoices and other currencies are reported',
      querystring: RealmQuery, body: PaymentSyncBody, response: { 200: SyncRunResponse, ...LEDGER_ERRORS },
    },
    config: write,
    preValidation: emptyBodyIsObject,
  }, async (req) => ({ data: await service.payments(req.actor, req.query.realm_id, req.body) }));

  app.post('/quickbooks/sync/bulk', {
    schema: { operationId: 'bulkLedgerSync', tags, summary: 'Queue 1–10 operations (customer_sync, invoice_export, invoice_import, payment_sync) to run in order in the worker; 202 with the run to poll', querystring: RealmQuery, body: BulkSyncBody, response: { 202: SyncRunResponse, ...LEDGER_ERRORS } },
    config: write,
  }, async (req, reply) => {
    const run = await service.bulk(req.actor, req.query.realm_id, req.body);
    reply.code(202).header('Location', location(run.sync_id));
    return { data: run };
  });

  app.post('/quickbooks/sync/full', {
    schema: { operationId: 'fullLedgerSync', tags, summary: 'Queue a full sync (customers, every exportable invoice, then the ledger’s payments) in the worker; 202 with the run to poll', querystring: RealmQuery, body: NoBody, response: { 202: SyncRunResponse, ...LEDGER_ERRORS } },
    config: { permission: 'ledger:admin' },
    preValidation: emptyBodyIsObject,
  }, async (req, reply) => {
    const run = await service.full(req.actor, req.query.realm_id);
    reply.code(202).header('Location', location(run.sync_id));
    return { data: run };
  });

  app.get('/quickbooks/sync/history', {
    schema: { operationId: 'listLedgerSyncHistory', tags, summary: 'Sync runs, newest first (filter by operation_type, status, from, to)', querystring: SyncHistoryQuery, response: { 200: SyncRunListResponse, ...LEDGER_ERRORS } },
    config: read,
  }, (req) => service.history(req.actor, req.query));

  app.get('/quickbooks/sync/status', {
    schema: { operationId: 'getLedgerSyncStatus', tags, summary: 'Runs in progress and the latest finished run of each operation', querystring: RealmQuery, response: { 200: SyncStatusResponse, ...LEDGER_ERRORS } },
    config: read,
  }, async (req) => ({ data: await service.status(req.actor, req.query.realm_id) }));

  app.get('/quickbooks/sync/status/:syncId', {
    schema: { operationId: 'getLedgerSyncRun', tags, summary: 'One run with its per-record outcomes and, for bulk and full runs, its operations', params: SyncParams, querystring: NoQuery, response: { 200: SyncRunResponse, ...LEDGER_ERRORS } },
    config: read,
  }, async (req) => ({ data: await service.get(req.actor, req.params.syncId) }));

  app.post('/quickbooks/sync/:syncId/cancel', {
    schema: { operationId: 'cancelLedgerSync', tags, summary: 'Stop a pending or running run between records (409 once finished)', params: SyncParams, querystring: NoQuery, body: NoBody, response: { 200: SyncRunResponse, ...LEDGER_ERRORS } },
    config: write,
    preValidation: emptyBodyIsObject,
  }, async (req) => ({ data: await service.cancel(req.actor, req.params.syncId) }));

  app.post('/quickbooks/sync/:syncId/retry', {
    schema: { operationId: 'retryLedgerSync', tags, summary: 'Run a failed, partial or cancelled run again as a new run (nothing is created twice in the ledger)', params: SyncParams, querystring: NoQuery, response: { 200: SyncRunResponse, 202: SyncRunResponse, ...LEDGER_ERRORS } },
    config: write,
  }, async (req, reply) => {
    const run = await service.retry(req.actor, req.params.syncId);
    if (run.status === 'pending') reply.code(202).header('Location', location(run.sync_id));
    return { data: run };
  });
};
