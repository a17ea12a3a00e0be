import type { Kysely } from 'kysely';
import { runStatements } from './run-statements.ts';
import { mergeFunction, triggerFunction as triggerFunctionBefore } from './2026_12_06_0032_search_postings_pending.ts';
import { mergeWithWords, pendingWordsFunction } from './2026_12_07_0038_search_lexicon_from_merge.ts';

/**
 * A written document's dictionary words stored in its pending row (bench/README.md, "Issue 23: the pending rows'
 * words"). Migration 0038 moved the dictionary's words out of the write into the merge, and the typo correction read
 * the words of documents not merged yet by parsing their text again: 75–82 ms beside a backlog of 1,000 writes, on
 * every corrected search until the worker's next merge. The write's trigger now parses the document's words once,
 * without the dictionary probes the write used to make (`search_document_words`, migration 0038), and the
 * correction and the merge read them from the pending rows:
 *
 * - the triggers add `words` to each pending row: the words of the version written (none for a delete);
 * - `search_pending_words(tenant)` is the distinct words of the tenant's pending rows, with no document read;
 * - `search_postings_merge(batch)` inserts the new words of the rows it takes, in the statement that deletes them.
 *   So the words of every version written reach the dictionary, as they did before migration 0038, and a word is
 *   still in the dictionary or in a pending row, never neither.
 */

/**
 * The dictionary words of the transition row `r`, as an array. The words function is read in a FROM clause, where
 * PostgreSQL inlines it: called in a select list it is not, and took 27 µs a document here against 17.
 */
const wordsOf = (r: string) => `array(select w.found from search_document_words(${r}.title, ${r}.subtitle, ${r}.body) as w (found))`;

// One line: runStatements splits scripts on `;` at line ends. The key of a document never changes (the writer's
// upsert sets only its content), so an update's old and new rows pair up by it.
const triggerFunction = `
  create or replace function search_postings_sync() returns trigger language plpgsql as $$ begin
  if TG_OP = 'INSERT' then
    insert into search_postings_pending (tenant, object_type, object_id, words)
    select r.tenant, r.object_type, r.object_id, ${wordsOf('r')} from new_rows r;
  elsif TG_OP = 'UPDATE' then
    insert into search_postings_pending (tenant, object_type, object_id, old_head, old_updated_at, words)
    select o.tenant, o.object_type, o.object_id, ts_filter(o.search_vector, '{a,b}'), o.updated_at, ${wordsOf('n')}
    from old_rows o join new_rows n on n.tenant = o.tenant and n.object_type = o.object_type and n.object_id = o.object_id;
  else
    insert into search_postings_pending (tenant, object_type, object_id, old_head, old_updated_at)
    select r.tenant, r.object_type, r.object_id, ts_filter(r.search_vector, '{a,b}'), r.updated_at from old_rows r;
  end if;
  return null; end $$`.replace(/\s*\n\s*/g, ' ');

// PL/pgSQL, like search_pending_postings (migration 0032): planned for its declared size, a second's writes.
export const pendingWordsFromRows = `
  create or replace function search_pending_words(p_tenant uuid) returns table (word text)
  language plpgsql stable rows 1000 as $$ begin
  return query select distinct w.found from search_postings_pending j cross join unnest(j.words) as w (found) where j.tenant = p_tenant;
  end $$`.replace(/\s*\n\s*/g, ' ');

// The words step joins migration 0032's first statement, which deletes the pending rows it takes (`taken`). The
// batch's distinct words first, then one dictionary probe each (migration 0038: probed per document's word, a
// batch of 5,000 documents took 9 minutes).
const WORDS_AT = ' select (select count(*) from taken)::int,';
const wordsStep = `,
  found as materialized (select distinct r.tenant, w.found as word from taken r cross join unnest(r.words) as w (found)),
  added as (
    insert into search_lexicon (tenant, word)
    select f.tenant, f.word from found f
    where not exists (select 1 from search_lexicon l where l.tenant = f.tenant and l.word = f.word)
  )`.replace(/\s*\n\s*/g, ' ');
const TAKEN_RETURNS = 'returning j.tenant, j.object_type, j.object_id, j.old_head, j.old_updated_at';
if (!mergeFunction.includes(WORDS_AT) || !mergeFunction.includes(TAKEN_RETURNS)) {
  throw new Error('migration 0039: the merge function of migration 0032 no longer reads as expected');
}
export const mergeFromRows = mergeFunction.replace('create function', 'create or replace function')
  .replace(TAKEN_RETURNS, `${TAKEN_RETURNS}, j.words`)
  .replace(WORDS_AT, `${wordsStep}${WORDS_AT}`);

export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, `
    select search_postings_merge(2147483647);
    alter table search_postings_pending add column words text[];
    ${triggerFunction};
    ${pendingWordsFromRows};
    ${mergeFromRows};
  `);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, `
    select search_postings_merge(2147483647);
    ${mergeWithWords};
    ${pendingWordsFunction.replace('create function', 'create or replace function')};
    ${triggerFunctionBefore};
    alter table search_postings_pending drop column words;
  `);
}
