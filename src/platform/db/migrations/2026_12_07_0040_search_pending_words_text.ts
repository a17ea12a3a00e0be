import type { Kysely } from 'kysely';
import { runStatements } from './run-statements.ts';
import { pendingWordsFromRows } from './2026_12_07_0039_search_pending_rows_words.ts';

/**
 * The pending rows' words read as one text (bench/README.md, "Issue 23: the pending words as one text"). Beside a
 * backlog of 1,000 writes, `search_pending_words(tenant)` unnested their ~31,000 words and kept the ~12,000 distinct
 * ones: 10–12 ms on every typo correction until the worker's next merge, 5 of them the distinct. Joining each row's
 * array into a string and those strings into one took 2.6 ms, and the caller drops the repeats (lexicon.ts). The words
 * are letters only (`search_document_words`, migration 0038), so a space cannot occur inside one.
 */
const pendingWordsText = `
  create function search_pending_words(p_tenant uuid) returns text
  language plpgsql stable as $$ begin
  return (select coalesce(string_agg(array_to_string(j.words, ' '), ' '), '') from search_postings_pending j where j.tenant = p_tenant);
  end $$`.replace(/\s*\n\s*/g, ' ');

export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, `
    drop function search_pending_words(uuid);
    ${pendingWordsText};
  `);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, `
    drop function search_pending_words(uuid);
    ${pendingWordsFromRows.replace('create or replace function', 'create function')};
  `);
}
