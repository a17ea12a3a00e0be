import type { Kysely } from 'kysely';
import { runStatements } from './run-statements.ts';

/**
 * Prefix postings (bench/README.md, "Issue 23: prefix postings, searches beside a backlog"): every head word of
 * four characters or more is also posted under its first four characters, marked with a leading U+0001 (no lexeme
 * holds a control character, and the mark sorts before every word, outside any word's range). A four-letter query
 * used to read and group every head posting of every word it begins (`zelo` begins 39 words: 22,000 postings,
 * 50–100 ms at 1M rows); it now reads its one prefix term in ranking order, like a single word, and stops at the
 * cap. One posting per document and prefix, at the best tier of the words it begins.
 *
 * `search_head_words` stays the one definition of a document's head postings: the merge, the pending postings the
 * engine computes and the deletion of a replaced version's postings all read it. The postings already merged get
 * their prefix postings here (the pending ones first merged, so every document's postings are of one definition).
 * The request's write does not change: postings are merged after it (migration 0032); the merge writes about
 * twice as many.
 */

/** `search_head_words` with prefix postings of these lengths (none: the head words alone, as migration 0032 made it). */
export const headWords = (prefixLengths: readonly number[]) => [
  'create or replace function search_head_words(v tsvector) returns table (term text, tier smallint) language sql immutable parallel safe as $$',
  'select x.term, min(w.tier)::smallint from (',
  "select unnest(tsvector_to_array(ts_filter(v, '{a}'))) as term, 1 as tier",
  "union all select unnest(tsvector_to_array(ts_filter(v, '{b}'))), 2) w",
  `cross join lateral (values (w.term)${prefixLengths.map((n) => `, (case when length(w.term) >= ${n} then chr(1) || left(w.term, ${n}) end)`).join('')}) x (term)`,
  'where x.term is not null group by x.term $$',
].join(' ');

/**
 * Inserts the postings of every document whose term satisfies `where` (a condition on a term column): the backfill
 * of a kind of posting `search_head_words` has just begun to define. Run after merging what is pending, so every
 * document's postings are of the new definition.
 */
export const backfillPostings = (where: (term: string) => string) => `
    insert into search_postings (tenant, term, tier, object_type, object_id, updated_at, indexed_at, client_id, is_internal, restricted,
      required_permission)
    select d.tenant, t.term, t.tier, d.object_type, d.object_id, d.updated_at, d.indexed_at, d.client_id, d.is_internal,
      d.visible_to_user_ids is not null, d.required_permission
    from search_documents d cross join lateral search_head_words(d.search_vector) t
    where ${where('t.term')}
    on conflict do nothing`;

const prefixPosting = (term: string) => `left(${term}, 1) = chr(1)`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, `
    select search_postings_merge(2147483647);
    ${headWords([4])};
    ${backfillPostings(prefixPosting)};
  `);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, `
    select search_postings_merge(2147483647);
    ${headWords([])};
    delete from search_postings where ${prefixPosting('term')};
  `);
}
