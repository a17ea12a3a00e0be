import { sql, type Compilable, type RawBuilder } from 'kysely';
import type { Executor } from '../db/executor.ts';
import { prepareIf } from '../db/prepared.ts';

/**
 * The tenant's dictionary for the typo fallback (table and its trade-offs: migration 0013): the words
 * of the documents as written, lower case. Only letter words of 3–32 characters are kept: numbers,
 * identifiers and fragments of addresses are never corrected and would only crowd the dictionary.
 */
const documentWords = sql`unnest(tsvector_to_array(to_tsvector('simple'::regconfig,
  coalesce(d.title, '') || ' ' || coalesce(d.subtitle, '') || ' ' || left(coalesce(d.body, ''), 100000))))`;
const isWord = sql<boolean>`(length(w.word) between 3 and 32 and w.word !~ '[0-9_@./:+-]')`;

/** The dictionary words of the rows `documents` (a relation named `d` with title, subtitle, body), inserted. */
function insertWordsOf(tenant: string, documents: RawBuilder<unknown>, onlyNew: boolean) {
  return sql`
    insert into search_lexicon (tenant, word)
    select distinct ${tenant}::uuid, w.word
    from ${documents} cross join lateral ${documentWords} as w (word)
    where ${isWord}
      ${onlyNew ? sql`and not exists (select 1 from search_lexicon l where l.tenant = ${tenant}::uuid and l.word = w.word)` : sql``}
  `;
}

/**
 * Runs `upsert` (a write of search documents returning their title, subtitle and body) and adds the words
 * of the rows it wrote that the dictionary does not have yet, in one statement: the words are read from
 * what the write returns, so a document write costs one round trip, not two. `prepare` when the statement's
 * text is one of a few (a single document: what a record's write indexes), so it is parsed and planned once
 * per connection.
 */
export async function upsertWithWords(db: Executor, tenant: string, upsert: Compilable<unknown>, prepare: boolean): Promise<void> {
  await sql`with written as (${upsert}) ${insertWordsOf(tenant, sql`written d`, true)}${prepareIf(prepare)}`.execute(db);
}

/** Rewrites a tenant's dictionary from its documents (drops words no document has any more, and duplicates). */
export async function rebuildLexicon(db: Executor, tenant: string): Promise<void> {
  await sql`delete from search_lexicon where tenant = ${tenant}::uuid`.execute(db);
  await insertWordsOf(tenant, sql`(select title, subtitle, body from search_documents where tenant = ${tenant}::uuid) d`, false).execute(db);
}
