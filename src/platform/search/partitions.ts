/**
 * The record types with a partition of their own in `search_documents` (migration 0028); every other type is in
 * the default partition, `search_documents_other`. The writer writes into the partition directly (migration
 * 0036 says why); a migration that adds a partition adds its type here (partitions.test.ts compares the two).
 */
export const OWN_PARTITION_TYPES: ReadonlySet<string> = new Set([
  'client', 'contact', 'ticket', 'ticket_comment', 'project', 'project_task', 'project_task_comment', 'asset',
  'invoice', 'invoice_item', 'invoice_annotation', 'contract', 'client_contract', 'document', 'kb_article',
  'service_request_submission', 'workflow_task', 'interaction', 'schedule_entry', 'time_entry', 'opportunity',
]);

/** The partition of `search_documents` that holds a type's documents. */
export const searchPartitionOf = (type: string): string => `search_documents_${OWN_PARTITION_TYPES.has(type) ? type : 'other'}`;
