/**
 * Turns the user's text into the pieces the SQL needs. Nothing here reaches SQL as syntax: the raw
 * text goes to websearch_to_tsquery (which accepts any input), the prefix query is built only from
 * letter/digit runs, and identifiers only from a strict pattern.
 */
export interface ParsedQuery {
  /** Control characters removed, whitespace collapsed, trimmed. */
  text: string;
  /** The letter/digit runs, lower case (at most 8, each at most 64 characters). */
  tokens: string[];
  /** `tok1 & tok2:*` over the letter/digit runs: the last one a prefix unless short; null when none or the query uses operators. */
  prefix: string | null;
  /** Only letters, digits and spaces, no operators: the prefix query alone finds every match. */
  plainWords: boolean;
  /** Exact identifier candidates (lower case): `t-123` and its zero-padded `t-000123`. */
  identifiers: string[];
  /** LIKE pattern for identifiers starting with the query, or null. */
  identifierPrefix: string | null;
}

const MAX_PREFIX_TOKENS = 8;
const MIN_PREFIX = 3;
const OPERATORS = /"|(^|\s)-\S|\sor\s/i;
const IDENTIFIER = /^([a-z]{1,10})-?(\d{1,12})$/;

export function normalizeQuery(raw: string): string {
  return raw.replace(/\p{Cc}/gu, ' ').replace(/\s+/gu, ' ').trim();
}

export function parseQuery(raw: string): ParsedQuery {
  const text = normalizeQuery(raw);
  const tokens = (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).slice(0, MAX_PREFIX_TOKENS).map((t) => t.slice(0, 64));
  // With websearch operators the user asked for exact logic; a prefix AND of the words would override it.
  // Only the last word is a prefix (the one still being typed), as Algolia's prefixLast and Elasticsearch's
  // match_bool_prefix: a GIN index skips through a whole word's postings but reads every word a prefix
  // covers in full, so two frequent prefixes cost their whole posting lists however few rows they share
  // (bench/README.md, issue 23: 1.3–25× slower counts). A query whose earlier words only begin words of the
  // tenant's documents (`proj setu`) is widened to prefixes by the typo fallback (lexicon.ts correctQuery).
  // One- and two-character tokens match whole words only: `t:*` would scan every word starting with t
  // (an identifier "T-000123" has such a token), which costs more than the whole rest of the query.
  const last = tokens.length - 1;
  const prefix = tokens.length > 0 && !OPERATORS.test(text) ? tokens.map((t, i) => (i < last || t.length < MIN_PREFIX ? t : `${t}:*`)).join(' & ') : null;
  const plainWords = prefix !== null && /^[\p{L}\p{N} ]+$/u.test(text) && !/(^| )or( |$)/i.test(text);
  const m = IDENTIFIER.exec(text.toLowerCase());
  if (!m) return { text, tokens, prefix, plainWords, identifiers: [], identifierPrefix: null };
  const [, letters, digits] = m as unknown as [string, string, string];
  const identifiers = [...new Set([`${letters}-${digits}`, `${letters}-${digits.padStart(6, '0')}`])];
  return { text, tokens, prefix, plainWords, identifiers, identifierPrefix: `${letters}-${digits}%` };
}

/**
 * The query a typo correction stands for (lexicon.ts correctQuery): words with a trailing `*` were kept
 * as typed and match as prefixes (whole words under 3 characters, as in parseQuery); the others are
 * dictionary words and match whole, so a corrected short word does not pull in every longer word that
 * starts with it.
 */
export function parseCorrected(corrected: string): ParsedQuery {
  const parts = corrected.split(' ').filter((p) => p !== '');
  const tokens = parts.map((p) => p.replace(/\*$/, ''));
  const prefix = parts.map((p, i) => (p.endsWith('*') && tokens[i]!.length >= MIN_PREFIX ? `${tokens[i]}:*` : tokens[i])).join(' & ');
  return { text: tokens.join(' '), tokens, prefix, plainWords: true, identifiers: [], identifierPrefix: null };
}
