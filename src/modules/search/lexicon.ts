import { sql } from 'kysely';
import type { Executor } from '../../platform/db/executor.ts';

/** Similarity (pg_trgm) the nearest word needs when no word is one edit away; below it the word is unknown. */
export const CORRECTION_THRESHOLD = 0.3;

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz';

/**
 * The words of the tenant's documents that the postings' merge has not put in its dictionary yet (migration 0038),
 * read from their pending rows (migration 0039): a second's writes, or the backlog of a burst. A subquery, so the
 * caller fetches them in a round trip it makes anyway; it returns them as one text with repeats (migration 0040),
 * which pendingWordsOf reads.
 */
export const pendingWords = (tenant: string) => sql<string>`(select search_pending_words(${tenant}::uuid))`;

/** The distinct words of pendingWords' text. */
export function pendingWordsOf(text: string): ReadonlySet<string> {
  const words = new Set(text.split(' '));
  words.delete('');
  return words;
}

/**
 * Every spelling one edit away from `w` (Damerau–Levenshtein distance 1), in two tiers, each most likely first:
 * swapped neighbours (the commonest typo), then a wrong letter, a letter too many, a letter missing.
 */
function oneEditTiers(w: string): [swaps: string[], others: string[]] {
  const chars = [...w];
  const letters = [...new Set([...ALPHABET, ...chars])];
  const at = (i: number, j: number, mid: string) => chars.slice(0, i).join('') + mid + chars.slice(j).join('');
  // Swapping two different neighbours changes exactly those two places, so no two swaps are the same spelling.
  const swaps: string[] = [];
  for (let i = 0; i + 1 < chars.length; i++) if (chars[i] !== chars[i + 1]) swaps.push(at(i, i + 2, chars[i + 1]! + chars[i]!));
  const others: string[] = [];
  for (let i = 0; i < chars.length; i++) for (const c of letters) if (c !== chars[i]) others.push(at(i, i + 1, c));
  for (let i = 0; i < chars.length; i++) others.push(at(i, i + 1, ''));
  for (let i = 0; i <= chars.length; i++) for (const c of letters) others.push(at(i, i, c));
  const isSwap = new Set(swaps);
  return [swaps, [...new Set(others)].filter((v) => !isSwap.has(v))];
}

/** Every spelling one edit away from `w`, most likely first (oneEditTiers' two tiers in order). */
export function oneEditAway(w: string): string[] {
  return oneEditTiers(w).flat();
}

/** Whether a query word can be corrected: 3–32 characters without digits (numbers and identifiers never are). */
export const correctable = (token: string): boolean => token.length >= 3 && token.length <= 32 && !/\d/.test(token);

/**
 * The typo correction of a query's tokens, or null when some word has no replacement (then nothing can
 * match) or no word needed one. The query as typed matched its last word as a prefix and the others whole
 * (search.parse.ts), so: a word of the tenant's documents is kept as typed; a word that only begins some of
 * them is kept as a prefix (written with a trailing `*`), which widens an earlier word (`proj setu` finds
 * "projector setup"); any other word is replaced by a word of theirs, which then matches whole: the first
 * spelling one edit away that exists (oneEditAway's order), else the most similar word by trigrams. Short
 * words (under 3 letters) and words with digits are kept as typed. Read the result with parseCorrected.
 *
 * The tenant's words are its dictionary (`search_lexicon`) and `pending`: the words of its documents the postings'
 * merge has not reached yet (pendingWords), so a word written a moment ago is corrected to at once.
 */
export async function correctQuery(db: Executor, tenant: string, tokens: readonly string[], pending: ReadonlySet<string>): Promise<string | null> {
  const candidates = tokens.filter(correctable);
  if (candidates.length === 0) return null;
  // A range rather than LIKE, so the btree serves the per-token pattern.
  const known = new Map((await sql<{ token: string; whole: boolean }>`
    select t.token, exists (select 1 from search_lexicon l where l.tenant = ${tenant}::uuid and l.word = t.token) as whole
    from unnest(${candidates}::text[]) as t (token)
    where exists (select 1 from search_lexicon l where l.tenant = ${tenant}::uuid and l.word ~>=~ t.token and l.word ~<~ (t.token || chr(1114111)))
  `.execute(db)).rows.map((r) => [r.token, r.whole]));
  const begins = (token: string) => {
    for (const w of pending) if (w.startsWith(token)) return true;
    return false;
  };
  for (const token of candidates) {
    if (pending.has(token)) known.set(token, true);
    else if (!known.has(token) && begins(token)) known.set(token, false);
  }
  let changed = false;
  const words: string[] = [];
  const last = tokens.length - 1;
  for (const [i, token] of tokens.entries()) {
    // A word never corrected is kept as typed, like a word of theirs.
    const whole = correctable(token) ? known.get(token) : true;
    if (whole !== undefined) {
      // As typed, the last word was a prefix and the others whole; an earlier word only begun is widened.
      words.push(i === last || !whole ? `${token}*` : token);
      if (i < last && !whole) changed = true;
      continue;
    }
    const fix = await oneEditFix(db, tenant, token, pending) ?? await nearestWord(db, tenant, token, pending);
    // Dictionary words are letters only (search_document_words, migration 0038); anything else is refused rather than trusted into a tsquery.
    if (fix === null || !/^[\p{L}\p{M}]+$/u.test(fix)) return null;
    words.push(fix);
    changed = true;
  }
  return changed ? words.join(' ') : null;
}

/**
 * The first spelling in oneEditAway's order that is a word of the tenant's. The swapped neighbours, which come
 * first, are looked up alone before the rest: they find most typos with a few index probes instead of the
 * ~450 of every variant of an 8-letter word (4 ms at 1M rows).
 */
async function oneEditFix(db: Executor, tenant: string, token: string, recent: ReadonlySet<string>): Promise<string | null> {
  const firstFound = async (candidates: string[]): Promise<string | null> => {
    if (candidates.length === 0) return null;
    const found = new Set((await sql<{ word: string }>`
      select distinct word from search_lexicon where tenant = ${tenant}::uuid and word = any(${candidates}::text[])
    `.execute(db)).rows.map((r) => r.word));
    return candidates.find((v) => found.has(v) || recent.has(v)) ?? null;
  };
  const [swaps, others] = oneEditTiers(token);
  return await firstFound(swaps) ?? await firstFound(others);
}

/** Uses pg_trgm.similarity_threshold, which the caller sets to CORRECTION_THRESHOLD. */
async function nearestWord(db: Executor, tenant: string, token: string, pending: ReadonlySet<string>): Promise<string | null> {
  const row = await sql<{ word: string }>`
    select word from (
      select word from search_lexicon where tenant = ${tenant}::uuid and word % ${token}
      union all select p.word from unnest(${[...pending]}::text[]) as p (word) where p.word % ${token}
    ) w order by similarity(word, ${token}) desc, word limit 1
  `.execute(db);
  return row.rows[0]?.word ?? null;
}
