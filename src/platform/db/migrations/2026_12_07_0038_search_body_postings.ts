import type { Kysely } from 'kysely';
import { runStatements } from './run-statements.ts';
import { mergeFunctionOf, pendingTriggerFunction } from './2026_12_06_0032_search_postings_pending.ts';
import { headWords } from './2026_12_06_0033_search_prefix_postings.ts';
import { matchingFunctionOf } from './2026_12_06_0034_search_pending_postings_matching.ts';

/**
 * Every word of a document posted, its body's too (bench/README.md, "Issue 23: body words posted"). The postings
 * held the title and subtitle words (tiers 1 and 2); a word's matches in the bodies were counted from the full-text
 * index, which visits each match's row in the heap for its access columns (a GIN has no index-only scan, and
 * PostgreSQL 15 fetches every page of a bitmap scan): up to 1,001 pages per type, 3,200–3,800 pages from outside
 * shared buffers for a mid-frequency word at 1M rows, its search 57–72 ms at p95. A word that appears only in a
 * document's body is now posted at tier 3, so a word's postings hold all its matches: each type's count stops at the
 * cap after cap + 1 index entries, index-only, and a page of body matches is read in ranking order too.
 *
 * Prefix postings (migrations 0033, 0035) stay the title's and subtitle's: the body's would add as many again.
 *
 * `search_posting_terms` replaces `search_head_words` as the one definition of a document's postings (the merge,
 * the pending postings the engine computes, the deletion of a replaced version's). That deletion needs the replaced
 * version's body words now: the pending row of an update or a delete keeps its whole vector (`old_vector`).
 * The request's write does not change otherwise; the merge writes about twice as many postings.
 */
const postingTermsFunction = [
  'create function search_posting_terms(v tsvector) returns table (term text, tier smallint) language sql immutable parallel safe as $$',
  'select x.term, min(w.tier)::smallint from (',
  "select unnest(tsvector_to_array(ts_filter(v, '{a}'))) as term, 1 as tier",
  "union all select unnest(tsvector_to_array(ts_filter(v, '{b}'))), 2",
  "union all select unnest(tsvector_to_array(ts_filter(v, '{c}'))), 3) w",
  'cross join lateral (values (w.term),',
  '(case when w.tier < 3 and length(w.term) >= 3 then chr(1) || left(w.term, 3) end),',
  '(case when w.tier < 3 and length(w.term) >= 4 then chr(1) || left(w.term, 4) end)) x (term)',
  'where x.term is not null group by x.term $$',
].join(' ');

export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, `
    select search_postings_merge(2147483647);
    alter table search_postings_pending rename column old_head to old_vector;
    ${postingTermsFunction};
    ${mergeFunctionOf('search_posting_terms', 'old_vector')};
    ${matchingFunctionOf('search_posting_terms')};
    ${pendingTriggerFunction('r.search_vector', 'old_vector')};
    drop function search_head_words(tsvector);
    insert into search_postings (tenant, term, tier, object_type, object_id, updated_at, indexed_at, client_id, is_internal, restricted,
      required_permission)
    select d.tenant, t.term, t.tier, d.object_type, d.object_id, d.updated_at, d.indexed_at, d.client_id, d.is_internal,
      d.visible_to_user_ids is not null, d.required_permission
    from search_documents d cross join lateral search_posting_terms(d.search_vector) t
    where t.tier = 3
    on conflict do nothing;
  `);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, `
    select search_postings_merge(2147483647);
    delete from search_postings where tier = 3;
    ${headWords([3, 4])};
    alter table search_postings_pending rename column old_vector to old_head;
    ${mergeFunctionOf('search_head_words', 'old_head')};
    ${matchingFunctionOf('search_head_words')};
    ${pendingTriggerFunction("ts_filter(r.search_vector, '{a,b}')", 'old_head')};
    drop function search_posting_terms(tsvector);
  `);
}
