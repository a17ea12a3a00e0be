import type { Kysely } from 'kysely';
import { runStatements } from './run-statements.ts';
import { mergeFunction } from './2026_12_06_0032_search_postings_pending.ts';

/**
 * The typo dictionary (`search_lexicon`, migration 0013) filled by the postings' merge instead of inside each write
 * (bench/README.md, "Issue 23: the typo dictionary filled by the merge"). Its words were inserted by the write's own
 * statement: a second parse of the document's text and an index probe per distinct word, ~90–150 µs of a record's
 * ~300–900 µs index write, more than the pending row the head postings added to it. The merge reads each document
 * it takes anyway; it now adds that document's new words too, in the same transaction that deletes its pending row.
 * So a word is in the dictionary or in a document with a pending row, never neither: the typo correction reads both
 * (`search_pending_words`), and a word written a moment ago is corrected to at once, as before. The merge adds the
 * words of each document as it is when merged: a version replaced before then (written and rewritten within a
 * second) no longer leaves its words behind, where each write used to add them until the next re-index.
 *
 * - `search_document_words(title, subtitle, body)`: the one definition of a document's dictionary words (as written,
 *   lower case, not stemmed; letter words of 3–32 characters, so numbers, identifiers and fragments of addresses are
 *   never corrected to), used by the merge, by `search_pending_words` and by the re-index's rebuild of a dictionary.
 * - `search_pending_words(tenant)`: the words of the tenant's documents with a pending row (a second's writes).
 * - `search_postings_merge(batch)`: as in migration 0032, plus the new words of the documents it merged. Only one merge
 *   runs at a time, so two merges can no longer both add a new word.
 */
const documentWordsFunction = `
  create function search_document_words(title text, subtitle text, body text) returns setof text
  language sql immutable parallel safe as $$
  select w.word from unnest(tsvector_to_array(to_tsvector('simple'::regconfig,
    coalesce(title, '') || ' ' || coalesce(subtitle, '') || ' ' || left(coalesce(body, ''), 100000)))) as w (word)
  where length(w.word) between 3 and 32 and w.word !~ '[0-9_@./:+-]' $$`.replace(/\s*\n\s*/g, ' ');

// PL/pgSQL, like search_pending_postings (migration 0032): planned for its declared size, a second's writes.
export const pendingWordsFunction = `
  create function search_pending_words(p_tenant uuid) returns table (word text)
  language plpgsql stable rows 1000 as $$ begin
  return query select distinct w.found from
    (select distinct j.object_type, j.object_id from search_postings_pending j where j.tenant = p_tenant) k
  join search_documents d on d.tenant = p_tenant and d.object_type = k.object_type and d.object_id = k.object_id
  cross join lateral search_document_words(d.title, d.subtitle, d.body) as w (found);
  end $$`.replace(/\s*\n\s*/g, ' ');

// The words step goes after the postings' insert, on the same documents (still in $1–$3) and in the same transaction.
// The batch's distinct words first, then one dictionary probe each: probed per document's word, the planner kept only
// the tenant as the probe's index condition (the word as a filter on every row of the tenant's dictionary), and a
// batch of 5,000 documents took 9 minutes.
const wordsStep = `
  execute $m$ with found as materialized (
    select distinct k.tenant, w.found as word
    from unnest($1, $2, $3) k (tenant, object_type, object_id)
    join search_documents d on d.tenant = k.tenant and d.object_type = k.object_type and d.object_id = k.object_id
    cross join lateral search_document_words(d.title, d.subtitle, d.body) as w (found)
  )
  insert into search_lexicon (tenant, word)
  select f.tenant, f.word from found f
  where not exists (select 1 from search_lexicon l where l.tenant = f.tenant and l.word = f.word) $m$ using tenants, types, ids;
  return writes; end $$`.replace(/\s*\n\s*/g, ' ');

const RETURN = 'return writes; end $$';
if (!mergeFunction.endsWith(RETURN)) throw new Error('migration 0038: the merge function of migration 0032 no longer ends as expected');
export const mergeWithWords = mergeFunction.replace('create function', 'create or replace function').slice(0, -RETURN.length) + wordsStep;

export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, `
    ${documentWordsFunction};
    ${pendingWordsFunction};
    ${mergeWithWords};
  `);
}

/** Back to the words written by each write (the writer of that version): the pending documents' words go in first. */
export async function down(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, `
    select search_postings_merge(2147483647);
    ${mergeFunction.replace('create function', 'create or replace function')};
    drop function search_pending_words(uuid);
    drop function search_document_words(text, text, text);
  `);
}
