import type { Kysely } from 'kysely';
import { runStatements } from './run-statements.ts';
import { pendingPostingsFunction } from './2026_12_06_0032_search_postings_pending.ts';

/**
 * The pending documents' postings computed only for those that match the search (bench/README.md, "Issue 23: prefix
 * postings, searches beside a backlog"). `search_pending_postings(tenant)` computed every pending document's head
 * words (13,700 postings for a backlog of 1,000 writes: 17 ms per search), and the engine then scanned all of them
 * once per type and term (29 scans per count, as many per page): a search beside a second's writes took 80–160 ms
 * instead of 20–40. Every term a word search reads (the word, the words it begins, its prefix term) begins with the
 * stem its query was parsed to, so a document holding one matches the query: the function now takes that query and
 * skips the other documents with one `@@` each.
 */
export const matchingFunction = `
  create function search_pending_postings(p_tenant uuid, p_query tsquery) returns table (tenant uuid, term text, tier smallint,
    object_type text, object_id uuid, updated_at timestamptz, indexed_at timestamptz, client_id uuid, is_internal boolean,
    restricted boolean, required_permission text)
  language plpgsql stable rows 100 as $$ begin
  return query select d.tenant, t.term, t.tier, d.object_type, d.object_id, d.updated_at::timestamptz, d.indexed_at::timestamptz,
    d.client_id, d.is_internal, d.visible_to_user_ids is not null, d.required_permission
  from (select distinct j.object_type, j.object_id from search_postings_pending j where j.tenant = p_tenant) k
  join search_documents d on d.tenant = p_tenant and d.object_type = k.object_type and d.object_id = k.object_id
  cross join lateral search_head_words(d.search_vector) t
  where d.search_vector @@ p_query;
  end $$`.replace(/\s*\n\s*/g, ' ');

export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, `
    drop function search_pending_postings(uuid);
    ${matchingFunction};
  `);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, `
    drop function search_pending_postings(uuid, tsquery);
    ${pendingPostingsFunction};
  `);
}
