import { Type, type Static } from 'typebox';
import { dataOf, DateOnly, Id, listOf, listQuery, Nullable, Timestamp } from '../../../platform/http/schemas.ts';
import { RealmId } from '../ledger.openapi.ts';

export const OPERATIONS = ['customer_sync', 'invoice_export', 'invoice_import', 'payment_sync', 'full_sync', 'bulk_sync'] as const;
export const RUN_STATUSES = ['pending', 'in_progress', 'completed', 'partial', 'failed', 'cancelled'] as const;
/** Operations a bulk request may list. */
export const BULK_OPERATIONS = ['customer_sync', 'invoice_export', 'invoice_import', 'payment_sync'] as const;


export const SyncRun = Type.Object({
  sync_id: Id,
  realm_id: Type.String(),
  operation_type: Type.Enum([...OPERATIONS]),
  status: Type.Enum([...RUN_STATUSES], { description: 'partial: some records failed, drifted or conflicted (see outcomes)' }),
  parameters: Type.Object({}, { additionalProperties: true }),
  parent_sync_id: Nullable(Id),
  attempt: Type.Integer({ description: '1, or the retry number' }),
  requested_by: Nullable(Id),
  started_at: Nullable(Timestamp),
  completed_at: Nullable(Timestamp),
  duration_ms: Nullable(Type.Integer()),
  records_processed: Type.Integer(),
  records_successful: Type.Integer(),
  records_failed: Type.Integer({ description: 'Failed, drifted, conflicting or unmatched records' }),
  records_skipped: Type.Integer(),
  error_message: Nullable(Type.String()),
  error_details: Nullable(Type.Object({}, { additionalProperties: true })),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type SyncRun = Static<typeof SyncRun>;

export const SyncOutcome = Type.Object({
  entity_type: Type.String(),
  local_id: Nullable(Type.String()),
  external_id: Nullable(Type.String()),
  outcome: Type.Enum(['created', 'updated', 'linked', 'unchanged', 'skipped', 'applied', 'reversed', 'drift', 'conflict', 'unmatched', 'failed']),
  message: Nullable(Type.String()),
  created_at: Timestamp,
});

export const SyncRunDetail = Type.Object({
  ...SyncRun.properties,
  outcomes: Type.Array(SyncOutcome, { description: 'Per record, in order (the first 1,000)' }),
  operations: Type.Array(SyncRun, { description: 'A bulk or full run: its operations' }),
});
export type SyncRunDetail = Static<typeof SyncRunDetail>;

export const SyncRunResponse = dataOf(SyncRunDetail);
export const SyncRunListResponse = listOf(SyncRun);

export const SyncHistoryQuery = listQuery(['created_at', 'completed_at'] as const, {
  realm_id: Type.Optional(RealmId),
  operation_type: Type.Optional(Type.Enum([...OPERATIONS])),
  status: Type.Optional(Type.Enum([...RUN_STATUSES])),
  from: Type.Optional(Type.String({ format: 'date', description: 'Runs created on or after (UTC day)' })),
  to: Type.Optional(Type.String({ format: 'date', description: 'Runs created on or before (UTC day)' })),
});
export type SyncHistoryQuery = Static<typeof SyncHistoryQuery>;

export const SyncStatusResponse = dataOf(Type.Object({
  realm_id: Type.String(),
  running: Type.Array(SyncRun, { description: 'Pending and in-progress runs' }),
  last_runs: Type.Array(SyncRun, { description: 'The latest finished run of each operation type' }),
}));

export const SyncParams = Type.Object({ syncId: Id }, { additionalProperties: false });

const DateRange = Type.Object({ start_date: DateOnly, end_date: DateOnly }, { additionalProperties: false, description: 'Inclusive, by issue date' });

export const CustomerSyncBody = Type.Object(
  {
    client_id: Type.Optional(Type.Unsafe<string>({ ...Id, description: 'One client; all when absent' })),
    sync_type: Type.Optional(Type.Enum(['create', 'update', 'bidirectional'], { default: 'bidirectional', description: 'create: link or create customers for unlinked clients; update: push changed clients to their customers; bidirectional: both' })),
    force_update: Type.Optional(Type.Boolean({ default: false, description: 'Push every linked client, overwriting changes made in QuickBooks' })),
    include_inactive: Type.Optional(Type.Boolean({ default: false })),
  },
  { additionalProperties: false },
);
export type CustomerSyncBody = Static<typeof CustomerSyncBody>;

export const InvoiceExportBody = Type.Object(
  {
    invoice_id: Type.Optional(Type.Unsafe<string>({ ...Id, description: 'One invoice; otherwise the selection below' })),
    date_range: Type.Optional(DateRange),
    status_filter: Type.Optional(Type.Array(Type.Enum(['finalized', 'sent', 'partially_paid', 'paid']), { minItems: 1, maxItems: 4, description: 'Default: all four (drafts and voided invoices are never exported)' })),
    client_id: Type.Optional(Id),
    auto_create_items: Type.Optional(Type.Boolean({ default: true, description: 'Create a QuickBooks service item (under the default income account) for an unmapped catalogue service' })),
    skip_existing: Type.Optional(Type.Boolean({ default: false, description: 'Leave invoices exported before untouched even when they changed here' })),
  },
  { additionalProperties: false },
);
export type InvoiceExportBody = Static<typeof InvoiceExportBody>;

export const InvoiceImportBody = Type.Object(
  {
    qbo_invoice_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'One ledger invoice; otherwise date_range (or every invoice)' })),
    date_range: Type.Optional(Type.Object({ start_date: DateOnly, end_date: DateOnly }, { additionalProperties: false, description: 'Inclusive, by the ledger transaction date' })),
    import_payments: Type.Optional(Type.Boolean({ default: true, description: 'Then apply the ledger payments of the same range (as payments/sync)' })),
  },
  { additionalProperties: false },
);
export type InvoiceImportBody = Static<typeof InvoiceImportBody>;

export const PaymentSyncBody = Type.Object(
  {
    qbo_payment_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'One ledger payment' })),
    date_range: Type.Optional(Type.Object({ start_date: DateOnly, end_date: DateOnly }, { additionalProperties: false, description: 'Inclusive, by the ledger transaction date; without it, what changed since the last payment sync (30 days at most)' })),
    include_unapplied: Type.Optional(Type.Boolean({ default: false, description: 'Report amounts the ledger left unapplied' })),
  },
  { additionalProperties: false },
);
export type PaymentSyncBody = Static<typeof PaymentSyncBody>;

export const BulkSyncBody = Type.Object(
  {
    operations: Type.Array(
      Type.Object(
        {
          operation_type: Type.Enum([...BULK_OPERATIONS]),
          parameters: Type.Optional(Type.Unknown({ description: 'The body of the operation’s own endpoint (customers/sync, invoices/export, invoices/import, payments/sync)' })),
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: 10 },
    ),
    stop_on_error: Type.Optional(Type.Boolean({ default: false, description: 'Stop at the first operation that fails or ends partial' })),
  },
  { additionalProperties: false },
);
export type BulkSyncBody = Static<typeof BulkSyncBody>;
