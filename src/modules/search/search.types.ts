import type { Executor } from '../../platform/db/executor.ts';

/** Every record type the search endpoint accepts (spec, "Search"). Areas not built yet return nothing. */
export const SEARCH_TYPES = [
  'client', 'contact', 'user', 'ticket', 'ticket_comment', 'project', 'project_phase', 'project_task',
  'project_task_comment', 'asset', 'invoice', 'invoice_item', 'invoice_annotation', 'contract', 'client_contract',
  'document', 'kb_article', 'service_catalog', 'service_request_submission', 'service_request_definition',
  'workflow_task', 'interaction', 'schedule_entry', 'time_entry', 'board', 'category', 'tag', 'status',
] as const;

export type SearchType = (typeof SEARCH_TYPES)[number];

/**
 * One record as the index holds it. An indexer builds these from its source tables; the same
 * builder serves the in-transaction sync after each write and the `psa search reindex` command, so
 * both always produce identical rows.
 */
export interface SearchDocument {
  type: SearchType;
  /** The record's own id (`ticket_id`, `asset_id`, …). */
  id: string;
  /** The record this one belongs to (a comment's ticket, a task's phase); removing the parent removes it. */
  parentType?: SearchType | null;
  parentId?: string | null;
  title: string;
  subtitle?: string | null;
  /** Free text: descriptions, comment text, notes. Plain text; markup already stripped. */
  body?: string | null;
  /** Relative in-app URL, e.g. `/tickets/<id>`. */
  url: string;
  /** A human record number (`T-000123`, `P-000004`); matched exactly or by prefix, ranked first. */
  identifier?: string | null;
  /** The client the record belongs to; client-portal keys see only rows of their own client. */
  clientId?: string | null;
  /** Internal-only rows (internal comments) are never shown to client-portal keys. */
  isInternal?: boolean;
  /** Per-row audience: when set, only these users see the row (assignee-only records). */
  visibleToUserIds?: readonly string[] | null;
  /** When the type gate is not enough (a `status` row may be a ticket or a project status). */
  requiredPermission?: string | null;
  updatedAt: Date | string;
}

/** How one area feeds the index: one file per area, listed in `indexers.ts`. */
export interface SearchIndexer {
  type: SearchType;
  /** The documents for these ids; ids whose record no longer exists are simply absent. */
  load(db: Executor, tenant: string, ids: readonly string[]): Promise<SearchDocument[]>;
  /** Every id of this type in the tenant, keyset-paged by id (re-index). */
  listIds(db: Executor, tenant: string, afterId: string | null, limit: number): Promise<string[]>;
}
