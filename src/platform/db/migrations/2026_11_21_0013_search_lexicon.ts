import type { Kysely } from 'kysely';
import { runStatements } from './run-statements.ts';

/**
 * The typo fallback's dictionary: the words that occur in a tenant's search documents, as written
 * (lower case, not stemmed: people misspell words, not stems), with a btree for exact lookups of
 * candidate spellings and a trigram index for the nearest word. A misspelt query word is corrected to a
 * word here and the corrected query runs through the ordinary full-text index, instead of a trigram
 * scan over every title (measured at 1M rows: p95 267 ms, and it could not find words in bodies).
 *
 * Writers add the words of the documents they change (src/modules/search/sync.ts). There is
 * deliberately no unique constraint: with one, two transactions adding the same new word would wait
 * for each other and could deadlock; a rare duplicate row costs nothing (lookups pick one word) and the
 * re-index command rewrites a tenant's dictionary without them. Words of deleted documents stay until
 * then; a correction to such a word simply finds nothing, as the misspelt query would have.
 *
 * The title trigram index served only the old fallback and is dropped.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, `
    create table search_lexicon (
      tenant uuid not null references tenants (tenant_id),
      word text not null
    );
    create index search_lexicon_word on search_lexicon (tenant, word text_pattern_ops);
    create index search_lexicon_trgm on search_lexicon using gin (word gin_trgm_ops);

    insert into search_lexicon (tenant, word)
      select distinct d.tenant, w.word
      from search_documents d
      cross join lateral unnest(tsvector_to_array(to_tsvector('simple'::regconfig,
        coalesce(d.title, '') || ' ' || coalesce(d.subtitle, '') || ' ' || left(coalesce(d.body, ''), 100000)))) as w (word)
      where length(w.word) between 3 and 32 and w.word !~ '[0-9_@./:+-]';

    drop index search_documents_title_trgm;
  `);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, `
    create index search_documents_title_trgm on search_documents using gin (title gin_trgm_ops);
    drop table search_lexicon;
  `);
}
