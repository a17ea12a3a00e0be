import type { Executor } from '../db/executor.ts';

/**
 * One record as the index holds it. An indexer builds these from its source tables; the same
 * builder serves the in-transaction sync after each write and the `psa search reindex` command, so
 * both always produce identical rows.
 */
export interface SearchDocument {
  /** The record type (`ticket`, `asset`, …): one of the search endpoint's types. */
  type: string;
  /** The record's own id (`ticket_id`, `asset_id`, …). */
  id: string;
  /** The record this one belongs to (a comment's ticket, a task's phase); removing the parent removes it. */
  parentType?: string | null;
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

/** How one area feeds the index: one indexer per record type, listed in the area's manifest. */
export interface SearchIndexer {
  type: string;
  /** The documents for these ids; ids whose record no longer exists are simply absent. */
  load(db: Executor, tenant: string, ids: readonly string[]): Promise<SearchDocument[]>;
  /** Every id of this type in the tenant, keyset-paged by id (re-index). */
  listIds(db: Executor, tenant: string, afterId: string | null, limit: number): Promise<string[]>;
}
