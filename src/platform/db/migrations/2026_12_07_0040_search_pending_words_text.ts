import type { Kysely } from 'kysely';
import { runStatements } from './run-statements.ts';
import { pendingWordsFromRows } from './2026_12_07_0039_search_pending_rows_words.ts';

/**
 * The pending rows' words read as one text (bench/README.md, "Issue 23: the pending words as one text"). Beside a
 * backlog of 1,000 writes, `search_pending_words(tenant)` unnested their ~31,000 words and kept the ~12,000 distinct
 * ones: 10–12 ms on every typo correction until the worker's next merge, 5 of them the distinct. Joining each row's
 * array into a string and those strings into one took 2.6 ms, and the caller drops the repeats (lexicon.ts). The words
 * are letters only (`search_document_words`, migration 0038), so a space cannot occur inside one.
 *
 * Past `joined_rows` pending rows (a bulk load's backlog) the repeats are dropped here instead, as before: joined, a
 * million writes' words would be ~250 MB of text for the caller to split.
 */
const pendingWordsText = `
  create function search_pending_words(p_tenant uuid, joined_rows integer default 5000) returns text
  language plpgsql stable as $$ begin
  if (select count(*) from (select 1 from search_postings_pending j where j.tenant = p_tenant limit joined_rows + 1) k) <= joined_rows then
    return (select coalesce(string_agg(array_to_string(j.words, ' '), ' '), '') from search_postings_pending j where j.tenant = p_tenant);
  end if;
  return (select coalesce(string_agg(w.found, ' '), '') from
    (select distinct u.found from search_postings_pending j cross join unnest(j.words) as u (found) where j.tenant = p_tenant) w);
  end $$`.replace(/\s*\n\s*/g, ' ');

export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, `
    drop function search_pending_words(uuid);
    ${pendingWordsText};
  `);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, `
    drop function search_pending_words(uuid, integer);
    ${pendingWordsFromRows.replace('create or replace function', 'create function')};
  `);
}
