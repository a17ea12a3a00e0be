import { sql } from 'kysely';
import { groupBy } from '../collections.ts';
import type { Executor } from '../db/executor.ts';
import { prepareIf } from '../db/prepared.ts';
import { searchPartitionOf } from './partitions.ts';
import { searchIndexerOf } from './registry.ts';
import type { SearchDocument } from './types.ts';

const SYNC_CHUNK = 1000;

/**
 * Brings the index up to date for these records, inside the caller's transaction: call it after every
 * write of an indexed record (create, update, delete) with the same `trx`, so a committed write is
 * searchable at once and a rolled-back one leaves no trace. Ids whose record is gone are removed,
 * together with the rows that name them as parent (comments of a deleted ticket, tasks of a phase).
 * A write already holding every column of its record's document may pass it to upsertSearchDocuments
 * instead (README).
 */
export async function syncSearch(db: Executor, tenant: string, type: string, ids: readonly string[]): Promise<void> {
  const indexer = searchIndexerOf(type);
  if (!indexer || ids.length === 0) return;
  const unique = [...new Set(ids)];
  // Chunked so a write touching many rows (a client rename re-titles all its tickets) stays bounded per statement.
  for (let i = 0; i < unique.length; i += SYNC_CHUNK) {
    const chunk = unique.slice(i, i + SYNC_CHUNK);
    const docs = await indexer.load(db, tenant, chunk);
    await upsertSearchDocuments(db, tenant, docs);
    const found = new Set(docs.map((d) => d.id));
    await removeFromSearch(db, tenant, type, chunk.filter((id) => !found.has(id)));
  }
}

/** Removes records (and, level by level, the rows whose parent they are) from the index. */
export async function removeFromSearch(db: Executor, tenant: string, type: string, ids: readonly string[]): Promise<void> {
  let level: { object_type: string; object_id: string }[] = ids.map((id) => ({ object_type: type, object_id: id }));
  while (level.length > 0) {
    const types = level.map((r) => r.object_type);
    const objectIds = level.map((r) => r.object_id);
    await db
      .deleteFrom('search_documents')
      .where('tenant', '=', tenant)
      .where(sql<boolean>`(object_type, object_id) in (select * from unnest(${types}::text[], ${objectIds}::uuid[]))`)
      .execute();
    level = await db
      .selectFrom('search_documents')
      .select(['object_type', 'object_id'])
      .where('tenant', '=', tenant)
      .where(sql<boolean>`(parent_type, parent_id) in (select * from unnest(${types}::text[], ${objectIds}::uuid[]))`)
      .execute();
  }
}

// The snippet builder marks matches with these private-use characters; text must not carry its own.
const SENTINELS = /[\uE000-\uE003]/g;
const clean = (s: string | null | undefined): string | null => (s == null ? null : s.replace(SENTINELS, '').replaceAll('\u0000', ''));

const CONTENT = [
  'parent_type', 'parent_id', 'title', 'subtitle', 'body', 'url', 'identifier', 'client_id', 'is_internal',
  'visible_to_user_ids', 'required_permission', 'updated_at',
] as const;

/**
 * Writes documents as given (the search vectors are generated columns), one statement per partition (a
 * record's write, or a batch of one type, is one). A row whose content is
 * unchanged is left alone, so its `indexed_at` keeps marking when its content last changed: search
 * cursors pin their snapshot to it, and a re-index of an up-to-date tenant disturbs no open paging.
 * The partitions' triggers add a pending row per document written: the merge puts its head postings and its words
 * (the typo dictionary) in place after the write (migrations 0032, 0038).
 */
export async function upsertSearchDocuments(db: Executor, tenant: string, docs: readonly SearchDocument[]): Promise<void> {
  for (const [partition, group] of groupBy(docs, (d) => searchPartitionOf(d.type))) {
    // Prepared for a single document (what a record's write indexes): one text per partition, parsed and planned once per connection.
    await upsertStatement(db, partition, tenant, group).modifyEnd(prepareIf(group.length === 1)).execute();
  }
}

/**
 * upsertSearchDocuments' statement for one table, not run: a partition of `search_documents` (migration 0036), or a
 * table of its columns (`bench:search-writes` builds the write of the index before the postings around it).
 */
export function upsertStatement(db: Executor, table: string, tenant: string, docs: readonly SearchDocument[]) {
  // The partition has the parent's columns, so the parent's row type describes it.
  return db
    .insertInto(table as 'search_documents')
    .values(
      docs.map((d) => ({
        tenant,
        object_type: d.type,
        object_id: d.id,
        parent_type: d.parentType ?? null,
        parent_id: d.parentId ?? null,
        title: clean(d.title)!,
        subtitle: clean(d.subtitle),
        body: clean(d.body),
        url: d.url,
        identifier: d.identifier ? d.identifier.toLowerCase() : null,
        client_id: d.clientId ?? null,
        is_internal: d.isInternal ?? false,
        visible_to_user_ids: d.visibleToUserIds ? [...d.visibleToUserIds] : null,
        required_permission: d.requiredPermission ?? null,
        updated_at: d.updatedAt,
        // The database's clock, like the search cursors' snapshot instant (search.engine.ts).
        indexed_at: sql<Date>`clock_timestamp()`,
      })),
    )
    .onConflict((oc) =>
      oc.columns(['tenant', 'object_type', 'object_id']).doUpdateSet((eb) => ({
        parent_type: eb.ref('excluded.parent_type'),
        parent_id: eb.ref('excluded.parent_id'),
        title: eb.ref('excluded.title'),
        subtitle: eb.ref('excluded.subtitle'),
        body: eb.ref('excluded.body'),
        url: eb.ref('excluded.url'),
        identifier: eb.ref('excluded.identifier'),
        client_id: eb.ref('excluded.client_id'),
        is_internal: eb.ref('excluded.is_internal'),
        visible_to_user_ids: eb.ref('excluded.visible_to_user_ids'),
        required_permission: eb.ref('excluded.required_permission'),
        updated_at: eb.ref('excluded.updated_at'),
        indexed_at: eb.ref('excluded.indexed_at'),
      })).where(sql<boolean>`(${sql.join(CONTENT.map((c) => sql.ref(`${table}.${c}`)))}) is distinct from (${sql.join(CONTENT.map((c) => sql.ref(`excluded.${c}`)))})`),
    );
}
