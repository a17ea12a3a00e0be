import { iso } from '../../platform/time.ts';
import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import type { Actor } from '../../platform/auth/context.ts';
import { withTransaction } from '../../platform/db/executor.ts';
import type { DB } from '../../platform/db/schema.ts';
import { validation } from '../../platform/http/errors.ts';
import { permittedTypes, rowAccessOf } from './search.access.ts';
import type { CursorMac } from '../../platform/crypto/signed-token.ts';
import { decodeCursor, encodeCursor, searchBinding, type CursorState } from './search.cursor.ts';
import { runSearch, type EngineRequest, type EngineResult, type SearchSort } from './search.engine.ts';
import { runWordSearch } from './search.word-engine.ts';
import { CORRECTION_THRESHOLD, correctable, correctQuery, pendingWords, pendingWordsOf } from './lexicon.ts';
import { parseCorrected, parseQuery, type ParsedQuery } from './search.parse.ts';
import type { SearchPage, SearchQuery, SearchResult } from './search.schemas.ts';
import { snippetHtml } from './search.snippet.ts';
import { SEARCH_TYPES, type SearchType } from './search.types.ts';

const KNOWN = new Set<string>(SEARCH_TYPES);

function requestedTypes(types: string | undefined): SearchType[] | null {
  if (types === undefined) return null;
  const list = types.split(',').map((t) => t.trim()).filter((t) => t !== '');
  if (list.length === 0) throw validation('querystring.types', 'must name at least one type');
  const unknown = list.filter((t) => !KNOWN.has(t));
  if (unknown.length > 0) throw validation('querystring.types', `unknown type ${unknown.map((t) => `'${t.slice(0, 40)}'`).join(', ')}; expected any of ${SEARCH_TYPES.join(', ')}`);
  return [...new Set(list)] as SearchType[];
}

/**
 * Per-type counts are exact up to this many matches; a type with more is reported at the cap with
 * `countsExact: false`. 1,000 is what keeps a frequent word's counts within the 50 ms target at 1M rows
 * (bench/README.md, "Issue 23"); at 2,000 common words and prefixes missed it.
 */
export const SEARCH_COUNT_CAP = 1000;

/**
 * The word engine's query: one plain word, which may be shaped like an identifier (`srv01`: its identifier tier is
 * then read too). A dictionary correction and a word under 3 characters match whole, anything else as a prefix
 * (search.parse.ts).
 */
function singleWord(q: ParsedQuery): { token: string; whole: boolean } | null {
  if (!q.plainWords || q.tokens.length !== 1 || q.prefix === null) return null;
  return { token: q.tokens[0]!, whole: !q.prefix.endsWith(':*') };
}

/**
 * Runs an engine in its own transaction with settings local to it: enough work_mem that the bitmap
 * of a common word stays exact (a lossy bitmap re-checks every row of its pages: measured 1.5× slower at
 * 1M rows), no JIT (its compile time exceeds what it saves on these queries), and an effective_io_concurrency
 * of 16 (PostgreSQL 18's default; 15 and earlier default to 1): a bitmap heap scan then asks the kernel for the
 * next 16 of its pages ahead, so the counts of a type under the cap, which visit up to cap + 1 scattered pages, read
 * them in parallel when they are not cached (a mid word's p95 at 1M rows with the OS cache dropped: 45.8–48.5 ms at 1,
 * 26.9–28.5 at 16–32; no change on warm caches: bench/README.md, "Issue 23"). Repeatable read, so the
 * word engine's statements (which words a prefix covers, then their matches) see one snapshot. A single
 * word whose english form is one lexeme goes to the word engine (unless it names more identifiers than
 * its identifier tier holds, or the caller is a client-portal key: runWordSearch declines both); everything else
 * (and stop words) to the general one.
 */
function runEngine(db: Kysely<DB>, req: EngineRequest, cap: number): Promise<EngineResult> {
  return db.transaction().setIsolationLevel('repeatable read').execute(async (trx) => {
    const word = singleWord(req.query);
    // The word's lexemes (none for a stop word) come with the settings, in the same round trip.
    const lexemes = word ? sql`(select coalesce(array_agg(lexeme), '{}') from unnest(to_tsvector('english', ${word.token})))` : sql`'{}'::text[]`;
    const { rows } = await sql<{ stems: string[] }>`
      select set_config('work_mem', '64MB', true), set_config('jit', 'off', true), set_config('effective_io_concurrency', '16', true),
        ${lexemes} as stems`.execute(trx);
    const stems = rows[0]!.stems;
    const result = stems.length === 1 ? await runWordSearch(trx, req, { stem: stems[0]!, whole: word!.whole }, cap) : null;
    return result ?? runSearch(trx, req);
  });
}

/** The typo correction of the query (lexicon.ts), looked up with the correction threshold. */
function correction(db: Kysely<DB>, tenant: string, tokens: readonly string[]): Promise<string | null> {
  return withTransaction(db, async (trx) => {
    const { rows } = await sql<{ pending: string }>`
      select set_config('pg_trgm.similarity_threshold', ${String(CORRECTION_THRESHOLD)}, true), ${pendingWords(tenant)} as pending`.execute(trx);
    return correctQuery(trx, tenant, tokens, pendingWordsOf(rows[0]!.pending));
  });
}

/**
 * GET /search. No permission of its own: the types the caller may read are searched, every row
 * filtered by its access record. Paging contract (what "never repeats or skips" means here): the first
 * page fixes a snapshot instant, carried in the cursor; every page of the search covers exactly the
 * rows that match and whose content was last indexed at or before it, in a total order by a score
 * that is a pure function of query and row content. Rows changing or appearing while a client pages
 * therefore cannot shift other rows, cannot reappear, and are left to a fresh search; a row deleted in
 * between simply no longer appears.
 */
export function createSearchService(deps: { db: Kysely<DB>; cursorMac: CursorMac; countCap?: number }) {
  const { db, cursorMac } = deps;
  const cap = deps.countCap ?? SEARCH_COUNT_CAP;
  return {
    async search(actor: Actor, q: SearchQuery): Promise<SearchPage> {
      const query = parseQuery(q.query);
      if (query.text.length === 0) throw validation('querystring.query', 'must contain 1 to 200 characters besides spaces');
      const requested = requestedTypes(q.types);
      const sort: SearchSort = q.sort ?? 'relevance';
      const limit = q.limit ?? 30;
      const binding = searchBinding(actor.tenant, query.text, requested, sort);
      const state: CursorState | undefined = q.cursor === undefined ? undefined : decodeCursor(cursorMac, binding, q.cursor);
      const types = permittedTypes(actor, requested === null ? null : new Set(requested));
      if (types.length === 0) return { results: [], groups: {}, totalCount: 0, countsExact: true };

      const req: EngineRequest = {
        access: rowAccessOf(actor),
        types,
        query: state?.corrected ? parseCorrected(state.corrected) : query,
        sort,
        corrected: Boolean(state?.corrected),
        limit,
        asOf: state?.asOf,
        after: state && { score: state.score, updatedAt: state.updatedAt, type: state.type, id: state.id },
      };
      let result = await runEngine(db, req, cap);
      let corrected = state?.corrected ?? null;
      // Nothing matched as typed: correct misspelt words against the tenant's dictionary and search
      // again. Identifiers are exact by nature: "T-000002" resembling "T-000001" is no match.
      if (!state && Object.keys(result.groups).length === 0 && query.tokens.some(correctable) && query.identifiers.length === 0) {
        corrected = await correction(db, actor.tenant, query.tokens);
        if (corrected !== null) result = await runEngine(db, { ...req, query: parseCorrected(corrected), corrected: true }, cap);
      }

      const rows = result.rows.slice(0, limit);
      const groups = Object.fromEntries(types.map((t) => [t, result.groups[t] ?? 0]));
      const results: SearchResult[] = rows.map((r) => {
        const snippet = snippetHtml(r.headline);
        return {
          type: r.object_type,
          id: r.object_id,
          ...(r.parent_id ? { parentId: r.parent_id } : {}),
          title: r.title,
          ...(r.subtitle ? { subtitle: r.subtitle } : {}),
          ...(snippet ? { snippet } : {}),
          url: r.url,
          score: r.score,
          updatedAt: iso(r.updated_at),
        };
      });
      const last = rows.at(-1);
      const nextCursor = result.rows.length > limit && last
        ? encodeCursor(cursorMac, binding, { sort, corrected, asOf: result.asOf, score: last.score, updatedAt: iso(last.updated_at), type: last.object_type, id: last.object_id })
        : undefined;
      return {
        results,
        groups,
        totalCount: Object.values(groups).reduce((a, b) => a + b, 0),
        countsExact: result.countsExact,
        ...(nextCursor ? { nextCursor } : {}),
      };
    },
  };
}

export type SearchService = ReturnType<typeof createSearchService>;
