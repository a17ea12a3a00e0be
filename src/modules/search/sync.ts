import { sql } from 'kysely';
import type { Executor } from '../../platform/db/executor.ts';
import { SEARCH_INDEXERS } from './indexers.ts';
import type { SearchDocument, SearchType } from './search.types.ts';

/**
 * Brings the index up to date for these records, inside the caller's transaction: call it after every
 * write of an indexed record (create, update, delete) with the same `trx`, so a committed write is
 * searchable at once and a rolled-back one leaves no trace. Ids whose record is gone are removed,
 * together with the rows that name them as parent (comments of a deleted ticket, tasks of a phase).
 */
export async function syncSearch(db: Executor, tenant: string, type: SearchType, ids: readonly string[]): Promise<void> {
  const indexer = SEARCH_INDEXERS[type];
  if (!indexer || ids.length === 0) return;
  const unique = [...new Set(ids)];
  const docs = await indexer.load(db, tenant, unique);
  await upsertSearchDocuments(db, tenant, docs);
  const found = new Set(docs.map((d) => d.id));
  await removeFromSearch(db, tenant, type, unique.filter((id) => !found.has(id)));
}

/** Removes records (and, level by level, the rows whose parent they are) from the index. */
export async function removeFromSearch(db: Executor, tenant: string, type: SearchType, ids: readonly string[]): Promise<void> {
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

/** Writes documents as given (the search vector is a generated column). */
export async function upsertSearchDocuments(db: Executor, tenant: string, docs: readonly SearchDocument[]): Promise<void> {
  if (docs.length === 0) return;
  const now = new Date();
  await db
    .insertInto('search_documents')
    .values(
      docs.map((d) => ({
        tenant,
        object_type: d.type,
        object_id: d.id,
        parent_type: d.parentType ?? null,
        parent_id: d.parentId ?? null,
        title: d.title,
        subtitle: d.subtitle ?? null,
        body: d.body ?? null,
        url: d.url,
        identifier: d.identifier ? d.identifier.toLowerCase() : null,
        client_id: d.clientId ?? null,
        is_internal: d.isInternal ?? false,
        visible_to_user_ids: d.visibleToUserIds ? [...d.visibleToUserIds] : null,
        required_permission: d.requiredPermission ?? null,
        updated_at: d.updatedAt,
        indexed_at: now,
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
      })),
    )
    .execute();
}
