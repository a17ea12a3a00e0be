import { sql, type RawBuilder } from 'kysely';
import type { Executor } from '../db/executor.ts';

/**
 * The tenant's dictionary for the typo fallback (table and its trade-offs: migration 0013): the words
 * of the documents as written, lower case. Only letter words of 3–32 characters are kept: numbers,
 * identifiers and fragments of addresses are never corrected and would only crowd the dictionary.
 */
const documentWords = sql`unnest(tsvector_to_array(to_tsvector('simple'::regconfig,
  coalesce(d.title, '') || ' ' || coalesce(d.subtitle, '') || ' ' || left(coalesce(d.body, ''), 100000))))`;
const isWord = (w: RawBuilder<string>): RawBuilder<boolean> => sql<boolean>`(length(${w}) between 3 and 32 and ${w} !~ '[0-9_@./:+-]')`;

/** Inserts the dictionary words of the tenant's documents that `documents` selects (a condition on `d`). */
function insertWords(db: Executor, tenant: string, documents: RawBuilder<boolean>, onlyNew: boolean) {
  return sql`
    insert into search_lexicon (tenant, word)
    select distinct ${tenant}::uuid, w.word
    from search_documents d cross join lateral ${documentWords} as w (word)
    where d.tenant = ${tenant}::uuid and ${documents} and ${isWord(sql.ref('w.word'))}
      ${onlyNew ? sql`and not exists (select 1 from search_lexicon l where l.tenant = ${tenant}::uuid and l.word = w.word)` : sql``}
  `.execute(db);
}

/** Adds the words of these (just written) documents that the dictionary does not have yet. */
export async function addToLexicon(db: Executor, tenant: string, keys: readonly { object_type: string; object_id: string }[]): Promise<void> {
  if (keys.length === 0) return;
  const types = keys.map((k) => k.object_type);
  const ids = keys.map((k) => k.object_id);
  await insertWords(db, tenant, sql<boolean>`(d.object_type, d.object_id) in (select * from unnest(${types}::text[], ${ids}::uuid[]))`, true);
}

/** Rewrites a tenant's dictionary from its documents (drops words no document has any more, and duplicates). */
export async function rebuildLexicon(db: Executor, tenant: string): Promise<void> {
  await sql`delete from search_lexicon where tenant = ${tenant}::uuid`.execute(db);
  await insertWords(db, tenant, sql<boolean>`true`, false);
}
