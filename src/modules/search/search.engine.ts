import { sql, type RawBuilder } from 'kysely';
import type { Executor } from '../../platform/db/executor.ts';
import type { RowAccess } from './search.access.ts';
import type { ParsedQuery } from './search.parse.ts';
import { GT, HEADLINE_OPTIONS, LT } from './search.snippet.ts';
import type { SearchType } from './search.types.ts';

/**
 * The general query engine: every query the word engine (search.word-engine.ts) does not take — several
 * words, websearch operators, identifiers typed with their hyphen, a word naming many identifiers. One statement
 * returns a page and exact per-type counts.
 *
 * Score is an integer that depends only on the query and the row's stored content, never on the clock
 * (SCORES). A typo-corrected query (used only when nothing matches strictly, see lexicon.ts) scores a tenth
 * of that, below anything matched as typed. Ties order by updated_at (newer first), then object_type and
 * object_id, so the order is total and the keyset never skips or repeats.
 *
 * Every access rule is part of the WHERE clause, before the page limit and the counts: pages are never
 * short and counts never include a row the caller could not open.
 */
export type SearchSort = 'relevance' | 'recent';

/** Where the query matched, best first: the documented ranking (OpenAPI, README). */
export const SCORES = { identifier: 1000, identifierPrefix: 900, title: 700, subtitle: 500, body: 300 } as const;
/** The text tiers by number, as the word engine orders them (1 title, 2 subtitle or identifier, 3 body). */
export const TIER_SCORES = [SCORES.title, SCORES.subtitle, SCORES.body] as const;

export interface EngineRequest {
  access: RowAccess;
  types: readonly SearchType[];
  query: ParsedQuery;
  sort: SearchSort;
  /** The query is the typo correction of what the user typed (scores scaled down). */
  corrected: boolean;
  limit: number;
  /**
   * Rows whose content changed after this are outside the search (the paging snapshot). Undefined on a
   * first page, which returns the instant to carry instead. Both sides use the database's clock, so
   * API processes with skewed clocks cannot hide fresh rows.
   */
  asOf?: Date;
  after?: { score: number; updatedAt: string; type: string; id: string };
}

export interface EngineRow {
  object_type: SearchType;
  object_id: string;
  parent_id: string | null;
  title: string;
  subtitle: string | null;
  url: string;
  updated_at: Date | string;
  score: number;
  headline: string | null;
}

export interface EngineResult {
  rows: EngineRow[];
  /** Matches per type with at least one; a type past the cap is reported at the cap. */
  groups: Record<string, number>;
  /** False when some type's count stopped at the cap (the count is then a lower bound). */
  countsExact: boolean;
  asOf: Date;
}

/** The divisor of a typo-corrected query's scores. */
export const scale = (corrected: boolean) => sql`${sql.lit(corrected ? 10 : 1)}`;

/** The query names the identifier of the `search_documents` row `d`: exactly, or as its beginning. */
export const namesIdentifier = (q: ParsedQuery) =>
  sql<boolean>`(d.identifier = any(${q.identifiers}::text[]) or d.identifier like ${q.identifierPrefix}::text)`;

/**
 * The title's, the subtitle's (with the identifier's) and the body's vectors of a document `d`: its full-text vector
 * weights them A, B and C (migration 0031), at the same relative positions as their own vectors.
 */
export const TITLE = sql`ts_filter(d.search_vector, '{a}')`;
export const SUBTITLE = sql`ts_filter(d.search_vector, '{b}')`;
const TITLE_OR_SUBTITLE = sql`ts_filter(d.search_vector, '{a,b}')`;
const BODY = sql`ts_filter(d.search_vector, '{c}')`;

function matchAndScore(q: ParsedQuery, corrected: boolean): { match: RawBuilder<boolean>; score: RawBuilder<number> } {
  const ids = sql`${q.identifiers}::text[]`;
  const idPrefix = sql`${q.identifierPrefix}::text`;
  // For plain words the prefix query matches a superset of the websearch one (same words, same
  // stemming), so one index scan suffices; emails, URLs, hyphenated words and operators need both.
  const matches = (vector: RawBuilder<unknown>) => (q.plainWords ? sql`${vector} @@ q.pq` : sql`(${vector} @@ q.wq or ${vector} @@ q.pq)`);
  return {
    match: sql<boolean>`(${matches(sql`d.search_vector`)} or ${namesIdentifier(q)})`,
    score: sql<number>`(case
      when d.identifier = any(${ids}) then ${sql.lit(SCORES.identifier)}
      when d.identifier like ${idPrefix} then ${sql.lit(SCORES.identifierPrefix)}
      when ${matches(TITLE)} then ${sql.lit(SCORES.title)}
      when ${matches(TITLE_OR_SUBTITLE)} then ${sql.lit(SCORES.subtitle)}
      else ${sql.lit(SCORES.body)} end) / ${scale(corrected)}`,
  };
}

/** The caller's access to a `search_documents` row aliased `d`, and the paging snapshot. */
export function documentAccess(a: RowAccess, types: RawBuilder<unknown>, asOf: Date | undefined): RawBuilder<boolean> {
  const portal = a.clientId === null ? sql`` : sql`and d.client_id = ${a.clientId}::uuid and not d.is_internal`;
  return sql<boolean>`d.tenant = ${a.tenant}::uuid
    and d.object_type = ${types}
    and (d.required_permission is null or d.required_permission = any(${a.permissions}::text[]))
    and (d.visible_to_user_ids is null or ${a.userId}::uuid = any(d.visible_to_user_ids))
    ${portal}
    ${asOf ? sql`and d.indexed_at <= ${asOf}` : sql``}`;
}

export const anyType = (types: readonly SearchType[]) => sql`any(${[...types]}::text[])`;

/** Rows of the alias `m` after the cursor in recency order (updated_at desc, object_type, object_id). */
export function laterThan(a: NonNullable<EngineRequest['after']>, m: string): RawBuilder<boolean> {
  const u = sql`${a.updatedAt}::timestamptz`;
  const col = (c: string) => sql.ref(`${m}.${c}`);
  return sql<boolean>`(${col('updated_at')} < ${u} or (${col('updated_at')} = ${u} and (${col('object_type')}, ${col('object_id')}) > (${a.type}::text, ${a.id}::uuid)))`;
}

/** Rows of the alias `m` (with a `score`) after the cursor in the request's order. */
export function keyset(r: EngineRequest): RawBuilder<boolean> {
  const a = r.after;
  if (!a) return sql<boolean>`true`;
  return r.sort === 'recent'
    ? laterThan(a, 'm')
    : sql<boolean>`(m.score < ${a.score}::int or (m.score = ${a.score}::int and ${laterThan(a, 'm')}))`;
}

const orderOf = (sort: SearchSort, alias: string) =>
  sort === 'recent'
    ? sql.raw(`${alias}.updated_at desc, ${alias}.object_type, ${alias}.object_id`)
    : sql.raw(`${alias}.score desc, ${alias}.updated_at desc, ${alias}.object_type, ${alias}.object_id`);

/** The two tsqueries of the query text, as the relation `q` (wq: websearch syntax; pq: every word as a prefix). */
export const queryRelation = (query: ParsedQuery) =>
  sql`select websearch_to_tsquery('english', ${query.text}) as wq, to_tsquery('english', ${query.prefix}::text) as pq`;

/**
 * The final select of both engines: the page `p` (object_type, object_id, score) joined to its documents, with
 * headlines, after one row carrying `g` (groups, as_of and what else the engine counted) so an empty page still returns its counts.
 */
export function pageWithDocuments(tenant: string, sort: SearchSort): RawBuilder<EngineRow & { groups: Record<string, number>; as_of: Date | string }> {
  return sql`
    select g.*, d.object_type, d.object_id, d.parent_id, d.title, d.subtitle, d.url, d.updated_at, p.score,
      case
        when d.body is not null and ${BODY} @@ hq.hq
          then ts_headline('english', translate(left(d.body, 20000), '<>', ${LT + GT}), hq.hq, ${HEADLINE_OPTIONS})
        when d.subtitle is not null and ${SUBTITLE} @@ hq.hq
          then ts_headline('english', translate(d.subtitle, '<>', ${LT + GT}), hq.hq, ${HEADLINE_OPTIONS})
        when ${TITLE} @@ hq.hq then ts_headline('english', translate(d.title, '<>', ${LT + GT}), hq.hq, ${HEADLINE_OPTIONS})
      end as headline
    from g cross join (select case when q.pq is null then q.wq else q.wq || q.pq end as hq from q) hq
    left join (p join search_documents d
      on d.tenant = ${tenant}::uuid and d.object_type = p.object_type and d.object_id = p.object_id) on true
    order by ${orderOf(sort, 'p')}`;
}

/** The engine's rows: the first carries the counts, rows without a document are the empty page's. */
export function engineResult(
  rows: readonly (Partial<EngineRow> & { groups: Record<string, number>; as_of: Date | string })[],
  asOf: Date | undefined,
  countsExact: boolean,
): EngineResult {
  const first = rows[0]!;
  return {
    rows: rows.filter((row) => row.object_id != null) as EngineRow[],
    groups: first.groups,
    countsExact,
    asOf: asOf ?? new Date(first.as_of),
  };
}

/** One page (limit + 1 rows, so the caller knows whether more follow) and the exact counts per type. */
export async function runSearch(db: Executor, r: EngineRequest): Promise<EngineResult> {
  const { match, score } = matchAndScore(r.query, r.corrected);
  const result = await sql<{ groups: Record<string, number>; as_of: Date | string } & Partial<EngineRow>>`
    with q as (${queryRelation(r.query)}),
    m as materialized (
      select d.object_type, d.object_id, d.updated_at, ${score} as score
      from search_documents d cross join q
      where ${documentAccess(r.access, anyType(r.types), r.asOf)} and ${match}
    ),
    p as (select m.* from m where ${keyset(r)} order by ${orderOf(r.sort, 'm')} limit ${r.limit + 1}),
    g as (select coalesce(json_object_agg(c.object_type, c.n), '{}'::json) as groups, statement_timestamp()::timestamptz(3) as as_of
          from (select object_type, count(*)::int as n from m group by object_type) c)
    ${pageWithDocuments(r.access.tenant, r.sort)}
  `.execute(db);
  return engineResult(result.rows, r.asOf, true);
}
