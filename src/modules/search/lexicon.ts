import { sql, type RawBuilder } from 'kysely';
import type { Executor } from '../../platform/db/executor.ts';

/**
 * The tenant's dictionary for the typo fallback (table and its trade-offs: migration 0013). Words are
 * the lexemes of the documents' search vectors, so a correction is already in the form the full-text
 * index holds; only letter words of 3–32 characters are kept (numbers, identifiers and fragments of
 * addresses are never corrected, and would only crowd the dictionary).
 */
const isWord = (w: RawBuilder<string>): RawBuilder<boolean> => sql<boolean>`(length(${w}) between 3 and 32 and ${w} !~ '[0-9_@./:+-]')`;

/** Similarity a correction needs (pg_trgm's `similarity`); below it the word counts as unknown. */
export const CORRECTION_THRESHOLD = 0.3;

/** Adds the words of these (just written) documents that the dictionary does not have yet. */
export async function addToLexicon(db: Executor, tenant: string, keys: readonly { object_type: string; object_id: string }[]): Promise<void> {
  if (keys.length === 0) return;
  const types = keys.map((k) => k.object_type);
  const ids = keys.map((k) => k.object_id);
  await sql`
    insert into search_lexicon (tenant, word)
    select distinct ${tenant}::uuid, w.word
    from search_documents d cross join lateral unnest(tsvector_to_array(d.search_vector)) as w (word)
    where d.tenant = ${tenant}::uuid
      and (d.object_type, d.object_id) in (select * from unnest(${types}::text[], ${ids}::uuid[]))
      and ${isWord(sql.ref('w.word'))}
      and not exists (select 1 from search_lexicon l where l.tenant = ${tenant}::uuid and l.word = w.word)
  `.execute(db);
}

/** Rewrites a tenant's dictionary from its documents (drops words no document has any more, and duplicates). */
export async function rebuildLexicon(db: Executor, tenant: string): Promise<void> {
  await sql`delete from search_lexicon where tenant = ${tenant}::uuid`.execute(db);
  await sql`
    insert into search_lexicon (tenant, word)
    select distinct ${tenant}::uuid, w.word
    from search_documents d cross join lateral unnest(tsvector_to_array(d.search_vector)) as w (word)
    where d.tenant = ${tenant}::uuid and ${isWord(sql.ref('w.word'))}
  `.execute(db);
}

/**
 * The query with each word the tenant's documents do not contain (not even as the start of a word)
 * replaced by the most similar dictionary word; null when some word has no similar one (then nothing
 * can match) or nothing needed correcting. Words are compared in their stemmed form, as indexed.
 */
export async function correctQuery(db: Executor, tenant: string, tokens: readonly string[]): Promise<string | null> {
  if (tokens.length === 0) return null;
  const rows = await sql<{ i: number; token: string; known: boolean; correction: string | null }>`
    select t.i::int as i, t.token,
      -- A range rather than LIKE, so the btree serves the per-token pattern.
      exists (select 1 from search_lexicon l where l.tenant = ${tenant}::uuid and l.word ~>=~ s.stem and l.word ~<~ (s.stem || chr(1114111))) as known,
      (select l.word from search_lexicon l
        where l.tenant = ${tenant}::uuid and l.word % s.stem
        order by similarity(l.word, s.stem) desc, l.word limit 1) as correction
    from unnest(${[...tokens]}::text[]) with ordinality as t (token, i)
    cross join lateral (select coalesce((tsvector_to_array(to_tsvector('english', t.token)))[1], t.token) as stem) s
    order by t.i
  `.execute(db);
  let changed = false;
  const words: string[] = [];
  for (const r of rows.rows) {
    if (r.known || r.token.length < 3 || /\d/.test(r.token)) { words.push(r.token); continue; }
    if (r.correction === null) return null;
    words.push(r.correction);
    changed = true;
  }
  return changed ? words.join(' ') : null;
}
