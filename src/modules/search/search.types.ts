/**
 * Every record type the search endpoint accepts (spec, "Search"). A type is searchable once its area's
 * manifest lists an indexer for it; until then it returns nothing.
 */
export const SEARCH_TYPES = [
  'client', 'contact', 'user', 'ticket', 'ticket_comment', 'project', 'project_phase', 'project_task',
  'project_task_comment', 'asset', 'invoice', 'invoice_item', 'invoice_annotation', 'contract', 'client_contract',
  'document', 'kb_article', 'service_catalog', 'service_request_submission', 'service_request_definition',
  'workflow_task', 'interaction', 'schedule_entry', 'time_entry', 'board', 'category', 'tag', 'status', 'opportunity',
] as const;

export type SearchType = (typeof SEARCH_TYPES)[number];
