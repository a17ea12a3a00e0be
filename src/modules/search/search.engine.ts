import { sql, type RawBuilder } from 'kysely';
import type { Executor } from '../../platform/db/executor.ts';
import type { RowAccess } from './search.access.ts';
import type { ParsedQuery } from './search.parse.ts';
import { GT, HEADLINE_OPTIONS, LT } from './search.snippet.ts';
import type { SearchType } from './search.types.ts';

/**
 * The query engine: one statement returns a page and the per-type counts.
 *
 * Score is an integer that depends only on the query and the row's stored content, never on the clock:
 * 1000 identifier exact · 900 identifier prefix · 800 title equals the query · 700 title has every word
 * · 600 title has every word as a prefix · 500 subtitle has every word · 400 body has every word ·
 * 300 subtitle by prefix · 200 anywhere by prefix. A typo-corrected query (used only when nothing
 * matches strictly, see lexicon.ts) scores a tenth of that, 20–80: below anything matched as typed.
 * Ties order by updated_at (newer first), then object_type and object_id, so the order is total and
 * the keyset never skips or repeats.
 *
 * Every access rule is part of the WHERE clause, before the page limit and the counts: pages are never
 * short and counts never include a row the caller could not open.
 */
export type SearchSort = 'relevance' | 'recent';

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
  groups: Record<string, number>;
  asOf: Date;
}

function matchAndScore(q: ParsedQuery, corrected: boolean): { match: RawBuilder<boolean>; score: RawBuilder<number> } {
  const ids = sql`${q.identifiers}::text[]`;
  const idPrefix = sql`${q.identifierPrefix}::text`;
  return {
    // For plain words the prefix query matches a superset of the websearch one (same words, same
    // stemming), so one index scan suffices; emails, URLs, hyphenated words and operators need both.
    match: q.plainWords
      ? sql<boolean>`(d.search_vector @@ q.pq or d.identifier = any(${ids}) or d.identifier like ${idPrefix})`
      : sql<boolean>`(d.search_vector @@ q.wq or d.search_vector @@ q.pq or d.identifier = any(${ids}) or d.identifier like ${idPrefix})`,
    score: sql<number>`(case
      when d.identifier = any(${ids}) then 1000
      when d.identifier like ${idPrefix} then 900
      when lower(d.title) = lower(${q.text}) then 800
      when d.title_vector @@ q.wq then 700
      when d.title_vector @@ q.pq then 600
      when d.subtitle_vector @@ q.wq then 500
      when d.search_vector @@ q.wq then 400
      when d.subtitle_vector @@ q.pq then 300
      else 200 end) / ${corrected ? 10 : 1}::int`,
  };
}

function accessPredicate(a: RowAccess, types: readonly SearchType[]): RawBuilder<boolean> {
  const portal = a.clientId === null ? sql`` : sql`and d.client_id = ${a.clientId}::uuid and not d.is_internal`;
  return sql<boolean>`d.tenant = ${a.tenant}::uuid
    and d.object_type = any(${[...types]}::text[])
    and (d.required_permission is null or d.required_permission = any(${a.permissions}::text[]))
    and (d.visible_to_user_ids is null or ${a.userId}::uuid = any(d.visible_to_user_ids))
    ${portal}`;
}

function keyset(r: EngineRequest): RawBuilder<boolean> {
  const a = r.after;
  if (!a) return sql<boolean>`true`;
  const u = sql`${a.updatedAt}::timestamptz`;
  const later = sql`(m.updated_at < ${u} or (m.updated_at = ${u} and (m.object_type, m.object_id) > (${a.type}::text, ${a.id}::uuid)))`;
  return r.sort === 'recent'
    ? sql<boolean>`${later}`
    : sql<boolean>`(m.score < ${a.score}::int or (m.score = ${a.score}::int and ${later}))`;
}

const orderOf = (sort: SearchSort, alias: string) =>
  sort === 'recent'
    ? sql.raw(`${alias}.updated_at desc, ${alias}.object_type, ${alias}.object_id`)
    : sql.raw(`${alias}.score desc, ${alias}.updated_at desc, ${alias}.object_type, ${alias}.object_id`);

/** One page (limit + 1 rows, so the caller knows whether more follow) and the counts per type. */
export async function runSearch(db: Executor, r: EngineRequest): Promise<EngineResult> {
  const { match, score } = matchAndScore(r.query, r.corrected);
  const result = await sql<{ groups: Record<string, number>; as_of: Date | string } & Partial<EngineRow>>`
    with q as (
      select websearch_to_tsquery('english', ${r.query.text}) as wq, to_tsquery('english', ${r.query.prefix}::text) as pq
    ),
    hq as (select case when q.pq is null then q.wq else q.wq || q.pq end as hq from q),
    m as materialized (
      select d.object_type, d.object_id, d.updated_at, ${score} as score
      from search_documents d cross join q
      where ${accessPredicate(r.access, r.types)}
        ${r.asOf ? sql`and d.indexed_at <= ${r.asOf}` : sql``}
        and ${match}
    ),
    p as (select m.* from m where ${keyset(r)} order by ${orderOf(r.sort, 'm')} limit ${r.limit + 1}),
    g as (select coalesce(json_object_agg(c.object_type, c.n), '{}'::json) as groups, statement_timestamp()::timestamptz(3) as as_of
          from (select object_type, count(*)::int as n from m group by object_type) c)
    select g.groups, g.as_of, d.object_type, d.object_id, d.parent_id, d.title, d.subtitle, d.url, d.updated_at, p.score,
      case
        when d.body is not null and ts_filter(d.search_vector, '{c}') @@ hq.hq
          then ts_headline('english', translate(left(d.body, 20000), '<>', ${LT + GT}), hq.hq, ${HEADLINE_OPTIONS})
        when d.subtitle is not null and d.subtitle_vector @@ hq.hq
          then ts_headline('english', translate(d.subtitle, '<>', ${LT + GT}), hq.hq, ${HEADLINE_OPTIONS})
        when d.title_vector @@ hq.hq then ts_headline('english', translate(d.title, '<>', ${LT + GT}), hq.hq, ${HEADLINE_OPTIONS})
      end as headline
    from g cross join hq
    left join (p join search_documents d
      on d.tenant = ${r.access.tenant}::uuid and d.object_type = p.object_type and d.object_id = p.object_id) on true
    order by ${orderOf(r.sort, 'p')}
  `.execute(db);
  const first = result.rows[0]!;
  const rows = result.rows.filter((row) => row.object_id != null) as EngineRow[];
  return { rows, groups: first.groups, asOf: r.asOf ?? new Date(first.as_of) };
}
