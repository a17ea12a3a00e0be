import type { Kysely } from 'kysely';
import { runStatements } from './run-statements.ts';
import { postingsTriggerFunction } from './2026_12_06_0031_search_vectors_from_one.ts';

/**
 * The head postings merged after the write instead of inside it (bench/README.md, "Issue 23: postings merged
 * after the write"). Writing a document's ~8 postings into the ranked index inside the write cost a record's
 * write ~0.25 ms (1.3× the write before the postings) and bulk indexing 20 %; the full-text GIN beside them
 * escapes that cost with its pending list, and so do the postings now:
 *
 * - the triggers on `search_documents` add one `search_postings_pending` row per written document: its key and,
 *   for an update or a delete, the words and recency of the version it replaced (whose postings may be in the
 *   index); a document's key never changes (the writer's upsert sets only its content);
 * - `search_postings_merge(batch)`, run every second by the worker (platform/search/postings.ts), takes every
 *   pending row of the documents of the first `batch` rows (returning how many it took), deletes the postings of
 *   every version they replaced and inserts those of each document as it is now. One merge at a time (an advisory lock): a second one, deleting while
 *   the first inserts, could miss postings the first had not committed yet. A document written again while
 *   it is merged has a pending row the merge did not take, so the next merge replaces what this one inserted;
 *   postings the next merge inserts again are skipped (`on conflict do nothing`), being the same;
 * - the search engine reads the postings of documents with no pending row and computes the others' postings
 *   from their documents (`search_head_words`, the one definition of a document's head words), in the same
 *   statement: a committed write is searchable at once, as before.
 */

/** A document's head words (title: tier 1, subtitle and identifier: tier 2) with the best tier of each. */
const headWordsFunction = [
  'create function search_head_words(v tsvector) returns table (term text, tier smallint) language sql immutable parallel safe as $$',
  'select w.term, min(w.tier)::smallint from (',
  "select unnest(tsvector_to_array(ts_filter(v, '{a}'))) as term, 1 as tier",
  "union all select unnest(tsvector_to_array(ts_filter(v, '{b}'))), 2) w group by w.term $$",
].join(' ');

/**
 * For the search engine: the documents of a tenant with pending postings, and their postings as they are now.
 * PL/pgSQL, so the planner takes their declared sizes (a second's writes) rather than the table's: planned from
 * statistics taken during a bulk load (a million pending rows), the engine's exclusion of these documents from the
 * merged postings was no longer hashed and each search took seconds. And each keeps its own plan: the postings'
 * join to the partitioned documents, planned inside every search, added 8 ms of planning to each.
 */
const pendingDocumentsFunction = `
  create function search_pending_documents(p_tenant uuid) returns table (object_type text, object_id uuid)
  language plpgsql stable rows 100 as $$ begin
  return query select distinct j.object_type, j.object_id from search_postings_pending j where j.tenant = p_tenant;
  end $$`.replace(/\s*\n\s*/g, ' ');

export const pendingPostingsFunction = `
  create function search_pending_postings(p_tenant uuid) returns table (tenant uuid, term text, tier smallint, object_type text,
    object_id uuid, updated_at timestamptz, indexed_at timestamptz, client_id uuid, is_internal boolean, restricted boolean,
    required_permission text)
  language plpgsql stable rows 800 as $$ begin
  return query select d.tenant, t.term, t.tier, d.object_type, d.object_id, d.updated_at::timestamptz, d.indexed_at::timestamptz,
    d.client_id, d.is_internal, d.visible_to_user_ids is not null, d.required_permission
  from (select distinct j.object_type, j.object_id from search_postings_pending j where j.tenant = p_tenant) k
  join search_documents d on d.tenant = p_tenant and d.object_type = k.object_type and d.object_id = k.object_id
  cross join lateral search_head_words(d.search_vector) t;
  end $$`.replace(/\s*\n\s*/g, ' ');

// One line: runStatements splits scripts on `;` at line ends.
export const triggerFunction = `
  create or replace function search_postings_sync() returns trigger language plpgsql as $$ begin
  if TG_OP = 'INSERT' then
    insert into search_postings_pending (tenant, object_type, object_id) select r.tenant, r.object_type, r.object_id from new_rows r;
  else
    insert into search_postings_pending (tenant, object_type, object_id, old_head, old_updated_at)
    select r.tenant, r.object_type, r.object_id, ts_filter(r.search_vector, '{a,b}'), r.updated_at from old_rows r;
  end if;
  return null; end $$`.replace(/\s*\n\s*/g, ' ');

// Dynamic statements (EXECUTE), planned on every call: a plan cached while the pending rows were few (a nested loop
// over a sequential scan of them) took 400 s to merge 60,000 writes that arrived in a burst.
export const mergeFunction = `
  create function search_postings_merge(batch integer) returns integer language plpgsql as $$
  declare writes integer; tenants uuid[]; types text[]; ids uuid[]; begin
  if not pg_try_advisory_xact_lock(hashtext('search_postings_merge')) then return 0; end if;
  execute $m$ with picked as (
    select distinct j.tenant, j.object_type, j.object_id from (
      select tenant, object_type, object_id from search_postings_pending order by tenant, object_type, object_id limit $1
    ) j
  ),
  taken as (
    delete from search_postings_pending j using picked k
    where j.tenant = k.tenant and j.object_type = k.object_type and j.object_id = k.object_id
    returning j.tenant, j.object_type, j.object_id, j.old_head, j.old_updated_at
  ),
  replaced as (
    delete from search_postings p using (
      select r.tenant, t.term collate "C" as term, t.tier, r.object_type, r.object_id, r.old_updated_at
      from taken r cross join lateral search_head_words(r.old_head) t where r.old_head is not null
    ) o
    where p.tenant = o.tenant and p.term = o.term and p.object_type = o.object_type and p.tier = o.tier
      and p.updated_at = o.old_updated_at and p.object_id = o.object_id
  )
  select (select count(*) from taken)::int, array_agg(k.tenant), array_agg(k.object_type), array_agg(k.object_id) from picked k $m$
  into writes, tenants, types, ids using batch;
  if ids is null then return 0; end if;
  execute $m$ insert into search_postings (tenant, term, tier, object_type, object_id, updated_at, indexed_at, client_id, is_internal,
    restricted, required_permission)
  select d.tenant, t.term, t.tier, d.object_type, d.object_id, d.updated_at, d.indexed_at, d.client_id, d.is_internal,
    d.visible_to_user_ids is not null, d.required_permission
  from unnest($1, $2, $3) k (tenant, object_type, object_id)
  join search_documents d on d.tenant = k.tenant and d.object_type = k.object_type and d.object_id = k.object_id
  cross join lateral search_head_words(d.search_vector) t
  on conflict do nothing $m$ using tenants, types, ids;
  return writes; end $$`.replace(/\s*\n\s*/g, ' ');

export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, `
    create table search_postings_pending (
      tenant uuid not null,
      object_type text not null,
      object_id uuid not null,
      old_head tsvector,
      old_updated_at timestamptz(3)
    );
    create index search_postings_pending_document on search_postings_pending (tenant, object_type, object_id);
    ${headWordsFunction};
    ${pendingDocumentsFunction};
    ${pendingPostingsFunction};
    ${mergeFunction};
    ${triggerFunction};
  `);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, `
    select search_postings_merge(2147483647);
    ${postingsTriggerFunction};
    drop function search_postings_merge(integer);
    drop function search_pending_postings(uuid);
    drop function search_pending_documents(uuid);
    drop function search_head_words(tsvector);
    drop table search_postings_pending;
  `);
}
