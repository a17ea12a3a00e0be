import type { Kysely } from 'kysely';
import { bodyChecker } from '../../../platform/actions/support.ts';
import type { Actor } from '../../../platform/auth/context.ts';
import { loadOwnerActor } from '../../../platform/auth/owner-actor.ts';
import { withTransaction } from '../../../platform/db/executor.ts';
import type { DB } from '../../../platform/db/schema.ts';
import type { LedgerOperation, LedgerRunStatus } from '../../../platform/db/schema.ledger.ts';
import { enqueue } from '../../../platform/jobs/enqueue.ts';
import { AppError, conflict, notFound, validation } from '../../../platform/http/errors.ts';
import { listPage } from '../../../platform/http/list.ts';
import { newId } from '../../../platform/ids.ts';
import { iso } from '../../../platform/time.ts';
import type { OurBooks } from '../books.ts';
import type { Connected, ConnectionsService } from '../connection/connections.service.ts';
import { findConnection } from '../connection/connections.repo.ts';
import { failureText } from '../ledger.errors.ts';
import { emitLedgerEvent } from '../ledger.events.ts';
import { LedgerProviderError } from '../providers/provider.ts';
import type { ReferenceService } from '../reference/reference.service.ts';
import type { SyncContext } from './context.ts';
import { syncCustomers } from './customers.ts';
import { exportInvoices, planExport, selectInvoices } from './export.ts';
import { childRuns, findRun, insertRun, lastGoodRunStart, latestRuns, outcomesOf, runList, updateRun, type RunRow } from './runs.repo.ts';
import { importInvoices, type ImportParams } from './import.ts';
import { syncPayments, type PaymentSyncParams } from './payments.ts';
import { CustomerSyncBody, InvoiceExportBody, InvoiceImportBody, OPERATIONS, PaymentSyncBody, type BulkSyncBody, type SyncHistoryQuery, type SyncRun, type SyncRunDetail } from './sync.schemas.ts';
import { Tally } from './tally.ts';

/** The job that runs bulk and full syncs in the worker. */
export const LEDGER_SYNC_JOB = 'ledger-sync';
/** A full sync or a bulk export in the worker is not bounded like a request. */
const WORKER_INVOICE_LIMIT = 100_000;
const OUTCOME_LIMIT = 1000;
const FINISHED: readonly LedgerRunStatus[] = ['completed', 'partial', 'failed', 'cancelled'];

const checkCustomers = bodyChecker(CustomerSyncBody);
const checkExport = bodyChecker(InvoiceExportBody);
const checkImport = bodyChecker(InvoiceImportBody);
const checkPayments = bodyChecker(PaymentSyncBody);
const CHECKERS = { customer_sync: checkCustomers, invoice_export: checkExport, invoice_import: checkImport, payment_sync: checkPayments } as const;

/** A date_range must not end before it starts. */
function checkDateRange(body: object, path: string): void {
  const r = (body as { date_range?: { start_date: string; end_date: string } }).date_range;
  if (r && r.start_date > r.end_date) throw validation(`${path}.date_range.start_date`, 'must not be after end_date');
}

export interface SyncDeps {
  db: Kysely<DB>;
  connections: ConnectionsService;
  reference: ReferenceService;
  books: OurBooks;
}

const toRun = (r: RunRow, realmId: string): SyncRun => ({
  sync_id: r.sync_id,
  realm_id: realmId,
  operation_type: r.operation_type,
  status: r.status,
  parameters: r.parameters,
  parent_sync_id: r.parent_sync_id,
  attempt: r.attempt,
  requested_by: r.requested_by,
  started_at: r.started_at ? iso(r.started_at) : null,
  completed_at: r.completed_at ? iso(r.completed_at) : null,
  duration_ms: r.started_at && r.completed_at ? r.completed_at.getTime() - r.started_at.getTime() : null,
  records_processed: r.records_processed,
  records_successful: r.records_successful,
  records_failed: r.records_failed,
  records_skipped: r.records_skipped,
  error_message: r.error_message,
  error_details: r.error_details,
  created_at: iso(r.created_at),
  updated_at: iso(r.updated_at),
});

/**
 * Sync runs: every operation is a run with per-record outcomes. Customer sync and invoice export run in the
 * request (bounded); bulk and full runs go to the worker (202) and are polled through sync/status/{id}.
 */
export function createSyncService(deps: SyncDeps) {
  const { db, connections, reference, books } = deps;

  /** A run that starts now, in the request. */
  async function newRun(tenant: string, c: Connected, op: LedgerOperation, parameters: object, requestedBy: string | null, attempt = 1): Promise<string> {
    const syncId = newId();
    await insertRun(db, {
      tenant, sync_id: syncId, connection_id: c.connection.connection_id, operation_type: op, parameters: JSON.stringify(parameters),
      requested_by: requestedBy, attempt, status: 'in_progress', started_at: new Date(),
    });
    return syncId;
  }

  /** Ends a run: its counts, its status, and the event in one transaction. */
  async function finish(tenant: string, c: Connected, syncId: string, tally: Tally | null, error?: unknown): Promise<LedgerRunStatus> {
    if (tally) await tally.flush();
    const cancelled = tally ? await tally.cancelled() : false;
    const counts = tally ? { records_processed: tally.processed, records_successful: tally.successful, records_failed: tally.failed, records_skipped: tally.skipped } : {};
    let status: LedgerRunStatus;
    if (error) status = 'failed';
    else if (cancelled) status = 'cancelled';
    else if (tally && tally.failed > 0) status = tally.successful + tally.skipped > 0 ? 'partial' : 'failed';
    else status = 'completed';
    const errorMessage = error ? failureText(error) : null;
    const details = error instanceof LedgerProviderError ? { reason: error.reason, upstream_status: error.upstreamStatus ?? null, upstream_code: error.upstreamCode ?? null } : null;
    await withTransaction(db, async (trx) => {
      const run = (await findRun(trx, tenant, syncId, true))!;
      await updateRun(trx, tenant, syncId, { ...counts, status, completed_at: new Date(), error_message: errorMessage, error_details: details ? JSON.stringify(details) : null });
      if (status === 'cancelled') return;
      await emitLedgerEvent(trx, tenant, status === 'failed' ? 'ledger.sync.failed' : 'ledger.sync.completed', { type: 'ledger_sync', id: syncId }, {
        sync_id: syncId, realm_id: c.connection.realm_id, operation_type: run.operation_type, status, ...counts, error_message: errorMessage,
      });
    });
    return status;
  }

  /** Runs one operation under a run record; an unexpected failure fails the run (and is rethrown when asked). */
  async function runOp(actor: Actor, c: Connected, syncId: string, op: (ctx: SyncContext) => Promise<void>, rethrow: boolean): Promise<LedgerRunStatus> {
    const tally = new Tally(db, actor.tenant, syncId);
    try {
      await op({ db, actor, c, books, reference, tally });
    } catch (err) {
      const status = await finish(actor.tenant, c, syncId, tally, err);
      if (rethrow && !(err instanceof LedgerProviderError)) throw err;
      return status;
    }
    return finish(actor.tenant, c, syncId, tally);
  }

  async function detail(tenant: string, c: Connected, syncId: string): Promise<SyncRunDetail> {
    const row = (await findRun(db, tenant, syncId))!;
    const outcomes = await outcomesOf(db, tenant, syncId, OUTCOME_LIMIT);
    const children = await childRuns(db, tenant, syncId);
    return {
      ...toRun(row, c.connection.realm_id),
      outcomes: outcomes.map((o) => ({ entity_type: o.entity_type, local_id: o.local_id, external_id: o.external_id, outcome: o.outcome as SyncRunDetail['outcomes'][number]['outcome'], message: o.message, created_at: iso(o.created_at) })),
      operations: children.map((r) => toRun(r, c.connection.realm_id)),
    };
  }

  /** An export as a function of a context: select, plan (a 422 before any run exists when unmapped), export. */
  async function prepareExport(actor: Actor, c: Connected, body: InvoiceExportBody, limit?: number) {
    const invoices = await selectInvoices({ db, actor, c, books }, body, limit);
    const planned = await planExport({ db, actor, c, books }, invoices, body.auto_create_items ?? true);
    return (ctx: SyncContext) => exportInvoices(ctx, body, invoices, planned);
  }

  /** The operation a stored run performs, from its parameters (a 422 before it starts when an export cannot be planned). */
  async function operationOf(actor: Actor, c: Connected, op: LedgerOperation, params: Record<string, unknown>, limit?: number): Promise<(ctx: SyncContext) => Promise<void>> {
    switch (op) {
      case 'customer_sync': return (ctx) => syncCustomers(ctx, params);
      case 'invoice_export': return prepareExport(actor, c, params as InvoiceExportBody, limit);
      case 'invoice_import': return (ctx) => importThenPay(ctx, params as ImportParams);
      case 'payment_sync': {
        const since = await lastGoodRunStart(db, actor.tenant, c.connection.connection_id, 'payment_sync');
        return (ctx) => syncPayments(ctx, params as PaymentSyncParams, since);
      }
      default: throw new Error(`operation ${op} has no single-run form`);
    }
  }

  async function importThenPay(ctx: SyncContext, p: ImportParams): Promise<void> {
    await importInvoices(ctx, p);
    if (p.import_payments === false || (await ctx.tally.cancelled())) return;
    const since = await lastGoodRunStart(db, ctx.actor.tenant, ctx.c.connection.connection_id, 'payment_sync');
    await syncPayments(ctx, { date_range: p.date_range }, since);
  }

  async function inline(actor: Actor, realmId: string | undefined, op: LedgerOperation, body: Record<string, unknown>): Promise<SyncRunDetail> {
    const c = await connections.connected(actor.tenant, realmId);
    if (typeof body.client_id === 'string' && op === 'customer_sync') await books.client(actor, body.client_id);
    checkDateRange(body, 'body');
    const run = await operationOf(actor, c, op, body);
    const syncId = await newRun(actor.tenant, c, op, body, actor.userId);
    await runOp(actor, c, syncId, run, true);
    return detail(actor.tenant, c, syncId);
  }

  async function visibleRun(actor: Actor, syncId: string): Promise<{ row: RunRow; c: Connected }> {
    const row = await findRun(db, actor.tenant, syncId);
    if (!row) throw notFound('Sync run', syncId);
    const status = await connections.status(actor);
    const conn = status.connections.find((x) => x.connection_id === row.connection_id);
    if (!conn) throw notFound('Sync run', syncId);
    return { row, c: await connections.connected(actor.tenant, conn.realm_id) };
  }

  async function queue(actor: Actor, c: Connected, op: 'bulk_sync' | 'full_sync', parameters: object, children: { op: LedgerOperation; parameters: object }[], attempt = 1): Promise<SyncRunDetail> {
    const syncId = newId();
    await withTransaction(db, async (trx) => {
      await insertRun(trx, { tenant: actor.tenant, sync_id: syncId, connection_id: c.connection.connection_id, operation_type: op, parameters: JSON.stringify(parameters), requested_by: actor.userId, attempt, status: 'pending' });
      for (const child of children) {
        await insertRun(trx, { tenant: actor.tenant, sync_id: newId(), connection_id: c.connection.connection_id, operation_type: child.op, parameters: JSON.stringify(child.parameters), parent_sync_id: syncId, requested_by: actor.userId, attempt, status: 'pending' });
      }
      await enqueue(trx, { name: LEDGER_SYNC_JOB, tenant: actor.tenant, payload: { sync_id: syncId }, dedupeKey: syncId });
    });
    return detail(actor.tenant, c, syncId);
  }

  function bulkChildren(body: BulkSyncBody): { op: LedgerOperation; parameters: object }[] {
    return body.operations.map((o, i) => {
      const params = (o.parameters ?? {}) as Record<string, unknown>;
      if (typeof params !== 'object' || params === null || Array.isArray(params)) throw validation(`body.operations.${i}.parameters`, 'must be an object');
      try {
        const parameters = CHECKERS[o.operation_type](params);
        checkDateRange(parameters, `body.operations.${i}.parameters`);
        return { op: o.operation_type, parameters };
      } catch (err) {
        if (err instanceof AppError) throw validation(`body.operations.${i}.parameters`, err.message);
        throw err;
      }
    });
  }

  return {
    customers: (actor: Actor, realmId: string | undefined, body: CustomerSyncBody) => inline(actor, realmId, 'customer_sync', body),
    exportInvoices: (actor: Actor, realmId: string | undefined, body: InvoiceExportBody) => inline(actor, realmId, 'invoice_export', body),
    importInvoices: (actor: Actor, realmId: string | undefined, body: InvoiceImportBody) => inline(actor, realmId, 'invoice_import', body),
    payments: (actor: Actor, realmId: string | undefined, body: PaymentSyncBody) => inline(actor, realmId, 'payment_sync', body),

    async bulk(actor: Actor, realmId: string | undefined, body: BulkSyncBody): Promise<SyncRunDetail> {
      const c = await connections.connected(actor.tenant, realmId);
      return queue(actor, c, 'bulk_sync', { stop_on_error: body.stop_on_error ?? false }, bulkChildren(body));
    },

    /** Everything: customers (link or create, push changes), every exportable invoice new or changed, then the ledger's payments. */
    async full(actor: Actor, realmId: string | undefined): Promise<SyncRunDetail> {
      const c = await connections.connected(actor.tenant, realmId);
      return queue(actor, c, 'full_sync', {}, [
        { op: 'customer_sync', parameters: { sync_type: 'bidirectional' } },
        { op: 'invoice_export', parameters: {} },
        { op: 'payment_sync', parameters: {} },
      ]);
    },

    /** The worker's side of bulk and full runs: each operation in order, as the requesting user. */
    async execute(tenant: string, syncId: string): Promise<void> {
      const parent = await findRun(db, tenant, syncId);
      if (!parent || FINISHED.includes(parent.status)) return;
      const conn = await findConnection(db, tenant, parent.connection_id);
      const c = conn ? await connections.connected(tenant, conn.realm_id).catch(() => undefined) : undefined;
      const actor = await loadOwnerActor(db, tenant, parent.requested_by, `ledger-sync:${syncId}`);
      if (!c || !actor) {
        await updateRun(db, tenant, syncId, { status: 'failed', completed_at: new Date(), error_message: !c ? 'The ledger company is no longer connected' : 'The user who asked for the run is gone or inactive' });
        return;
      }
      await updateRun(db, tenant, syncId, { status: 'in_progress', started_at: parent.started_at ?? new Date() });
      const stopOnError = (parent.parameters as { stop_on_error?: boolean }).stop_on_error === true;
      let failed = 0;
      for (const child of await childRuns(db, tenant, syncId)) {
        if (FINISHED.includes(child.status)) {
          if (child.status !== 'completed') failed++;
          continue;
        }
        const stop = failed > 0 && stopOnError;
        if (stop || (await findRun(db, tenant, syncId))!.cancel_requested) {
          await updateRun(db, tenant, child.sync_id, { status: 'cancelled', completed_at: new Date(), error_message: stop ? 'An earlier operation failed (stop_on_error)' : 'The run was cancelled' });
          continue;
        }
        await updateRun(db, tenant, child.sync_id, { status: 'in_progress', started_at: new Date() });
        let status: LedgerRunStatus;
        try {
          const op = await operationOf(actor, c, child.operation_type, child.parameters, WORKER_INVOICE_LIMIT);
          status = await runOp(actor, c, child.sync_id, op, false);
        } catch (err) {
          // A selection that cannot be exported (unmapped, not exportable) fails this operation with the reason.
          status = await finish(tenant, c, child.sync_id, null, err);
        }
        if (status !== 'completed') failed++;
      }
      const children = await childRuns(db, tenant, syncId);
      const sum = (k: 'records_processed' | 'records_successful' | 'records_failed' | 'records_skipped') => children.reduce((n, r) => n + r[k], 0);
      const cancelled = (await findRun(db, tenant, syncId))!.cancel_requested;
      const status: LedgerRunStatus = cancelled ? 'cancelled' : failed === 0 ? 'completed' : failed === children.length ? 'failed' : 'partial';
      await withTransaction(db, async (trx) => {
        await updateRun(trx, tenant, syncId, {
          status, completed_at: new Date(), records_processed: sum('records_processed'), records_successful: sum('records_successful'), records_failed: sum('records_failed'), records_skipped: sum('records_skipped'),
          error_message: failed > 0 ? `${failed} of ${children.length} operations did not complete` : null,
        });
        if (status !== 'cancelled') {
          await emitLedgerEvent(trx, tenant, status === 'failed' ? 'ledger.sync.failed' : 'ledger.sync.completed', { type: 'ledger_sync', id: syncId }, { sync_id: syncId, realm_id: c.connection.realm_id, operation_type: parent.operation_type, status });
        }
      });
    },

    async history(actor: Actor, query: SyncHistoryQuery) {
      const c = await connections.connected(actor.tenant, query.realm_id);
      if (query.from && query.to && query.from > query.to) throw validation('querystring.from', 'must not be after to');
      const list = runList(db, actor.tenant, {
        connectionId: c.connection.connection_id, operationType: query.operation_type, status: query.status,
        from: query.from ? new Date(`${query.from}T00:00:00Z`) : undefined, to: query.to ? new Date(new Date(`${query.to}T00:00:00Z`).getTime() + 86_400_000) : undefined,
      });
      return listPage(query, list, (rows) => rows.map((r) => toRun(r, c.connection.realm_id)));
    },

    async status(actor: Actor, realmId: string | undefined) {
      const c = await connections.connected(actor.tenant, realmId);
      const recent = (await latestRuns(db, actor.tenant, c.connection.connection_id, new Date(Date.now() - 90 * 86_400_000))).filter((r) => r.parent_sync_id === null);
      const running = recent.filter((r) => !FINISHED.includes(r.status));
      const last = OPERATIONS.map((op) => recent.find((r) => r.operation_type === op && FINISHED.includes(r.status))).filter((r): r is RunRow => r !== undefined);
      return { realm_id: c.connection.realm_id, running: running.map((r) => toRun(r, c.connection.realm_id)), last_runs: last.map((r) => toRun(r, c.connection.realm_id)) };
    },

    async get(actor: Actor, syncId: string): Promise<SyncRunDetail> {
      const { c } = await visibleRun(actor, syncId);
      return detail(actor.tenant, c, syncId);
    },

    /** Asks a pending or running run to stop between records; a finished run cannot be cancelled (409). */
    async cancel(actor: Actor, syncId: string): Promise<SyncRunDetail> {
      const { row, c } = await visibleRun(actor, syncId);
      if (FINISHED.includes(row.status)) throw conflict(`Sync run ${syncId} is ${row.status}; only pending and in-progress runs can be cancelled`, { status: row.status });
      await withTransaction(db, async (trx) => {
        await updateRun(trx, actor.tenant, syncId, { cancel_requested: true, ...(row.status === 'pending' ? { status: 'cancelled' as const, completed_at: new Date() } : {}) });
        await trx.updateTable('ledger_sync_runs').set({ cancel_requested: true, updated_at: new Date() }).where('tenant', '=', actor.tenant).where('parent_sync_id', '=', syncId).execute();
        // Operations the worker has not started end now (a pending parent is never picked up again).
        await trx.updateTable('ledger_sync_runs').set({ status: 'cancelled', completed_at: new Date() })
          .where('tenant', '=', actor.tenant).where('parent_sync_id', '=', syncId).where('status', '=', 'pending').execute();
      });
      return detail(actor.tenant, c, syncId);
    },

    /**
     * Runs a failed, partial or cancelled run again with its parameters, as a new run (attempt + 1). Records
     * done before are not redone twice in the ledger: exports skip unchanged invoices and creates reuse their
     * request ids.
     */
    async retry(actor: Actor, syncId: string): Promise<SyncRunDetail> {
      const { row, c } = await visibleRun(actor, syncId);
      if (row.parent_sync_id) throw conflict(`Sync run ${syncId} is one operation of ${row.parent_sync_id}; retry that run`, { parent_sync_id: row.parent_sync_id });
      if (!['failed', 'partial', 'cancelled'].includes(row.status)) throw conflict(`Sync run ${syncId} is ${row.status}; only failed, partial and cancelled runs can be retried`, { status: row.status });
      const attempt = row.attempt + 1;
      if (row.operation_type === 'bulk_sync' || row.operation_type === 'full_sync') {
        const children = (await childRuns(db, actor.tenant, syncId)).map((r) => ({ op: r.operation_type, parameters: r.parameters }));
        return queue(actor, c, row.operation_type, row.parameters, children, attempt);
      }
      const params = row.parameters;
      const op = await operationOf(actor, c, row.operation_type, params);
      const retryId = await newRun(actor.tenant, c, row.operation_type, params, actor.userId, attempt);
      await runOp(actor, c, retryId, op, true);
      return detail(actor.tenant, c, retryId);
    },
  };
}

export type SyncService = ReturnType<typeof createSyncService>;
