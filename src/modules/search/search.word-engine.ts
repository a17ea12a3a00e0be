import { sql, type RawBuilder } from 'kysely';
import type { Executor } from '../../platform/db/executor.ts';
import { likePrefixPattern } from '../../platform/db/like.ts';
import { prepareIf } from '../../platform/db/prepared.ts';
import type { RowAccess } from './search.access.ts';
import {
  anyType, documentAccess, laterThan, pageWithDocuments, queryRelation, scale, TIER_SCORES,
  type EngineRequest, type EngineResult, type EngineRow,
} from './search.engine.ts';
import type { SearchType } from './search.types.ts';

/**
 * The engine for a query of one plain word (matched as a prefix from 3 characters on, whole below): the
 * queries whose matches run into the tens of thousands. It reads what the general engine reads from every
 * match from two smaller structures (migration 0028):
 *
 * - the head postings (`search_postings`): one index-only range scan over the words the query covers gives
 *   every title and subtitle match with its tier, recency and access columns: the first page in ranking order
 *   and each type's head count, without visiting a document;
 * - counts that stop at the cap: a type whose head matches alone pass the cap is reported at the cap; any
 *   other is counted from its own partition's full-text index, visiting at most cap + 1 documents.
 *
 * Body-only matches (tier 3) are read, newest first, only when the head matches run out before the page ends;
 * `sort=recent` reads every match newest first, which the planner serves from the recency index for a
 * frequent word and from the full-text index for a rare one. Per-row access is applied before anything is
 * counted or paged, as in the general engine.
 */
export interface WordQuery {
  /** The word's lexeme (the english stemmer's form of the typed word). */
  stem: string;
  /** Match the lexeme whole (words under 3 characters, dictionary corrections), not as a prefix. */
  whole: boolean;
}

/**
 * The least string after every string that starts with `s`, in code point order (the "C" collation's order of
 * UTF-8): `s` with its last character that can be, moved to the next code point. Null for a string of U+10FFFF.
 */
export function prefixEnd(s: string): string | null {
  const chars = [...s];
  for (let i = chars.length - 1; i >= 0; i--) {
    let next = chars[i]!.codePointAt(0)! + 1;
    if (next >= 0xd800 && next <= 0xdfff) next = 0xe000;
    if (next <= 0x10ffff) return chars.slice(0, i).join('') + String.fromCodePoint(next);
  }
  return null;
}

/**
 * The postings' term condition. A prefix is a range with both ends as parameters, so the statement runs prepared
 * (planning it over every partition took 5–10 ms a search) and its generic plan still reads one index range.
 */
function termCondition(word: WordQuery): { term: RawBuilder<boolean>; prepared: boolean } {
  if (word.whole) return { term: sql<boolean>`p.term = ${word.stem}`, prepared: true };
  const end = prefixEnd(word.stem);
  return end === null
    ? { term: sql<boolean>`p.term like ${likePrefixPattern(word.stem)}`, prepared: false }
    : { term: sql<boolean>`p.term >= ${word.stem} and p.term < ${end}`, prepared: true };
}

/**
 * The postings `p` the caller may see. A restricted posting (a per-user audience) is checked against its
 * document by key, through a function so that only those few rows pay for it: as an EXISTS (or a lateral join)
 * the planner either hashed a scan of every document for the caller's id (380 ms at 1M rows) or set up a
 * lookup over every partition for each of ~19k postings (20 ms).
 */
function visiblePostings(a: RowAccess, term: RawBuilder<boolean>, types: RawBuilder<unknown>, asOf: Date | undefined): RawBuilder<unknown> {
  const portal = a.clientId === null ? sql`` : sql`and p.client_id = ${a.clientId}::uuid and not p.is_internal`;
  return sql`search_postings p
    where ${term} and p.tenant = ${a.tenant}::uuid
      and p.object_type = ${types}
      and (p.required_permission is null or p.required_permission = any(${a.permissions}::text[]))
      and (case when p.restricted then search_document_visible_to(p.tenant, p.object_type, p.object_id, ${a.userId}::uuid) else true end)
      ${portal}
      ${asOf ? sql`and p.indexed_at <= ${asOf}` : sql``}`;
}

/** Tier from a cursor's score (scores are TIER_SCORES, divided by ten for a typo correction). */
const tierOf = (score: number, corrected: boolean) => TIER_SCORES.findIndex((s) => s / (corrected ? 10 : 1) === score) + 1;

function headAfter(r: EngineRequest): RawBuilder<boolean> {
  const a = r.after;
  if (!a) return sql<boolean>`true`;
  const tier = tierOf(a.score, r.corrected);
  return sql<boolean>`(h.tier > ${tier} or (h.tier = ${tier} and ${laterThan(a, 'h')}))`;
}

function bodyAfter(r: EngineRequest): RawBuilder<boolean> {
  const a = r.after;
  if (!a || tierOf(a.score, r.corrected) < 3) return sql<boolean>`true`;
  return laterThan(a, 'd');
}

const tierScore = (tier: RawBuilder<unknown>, corrected: boolean) =>
  sql`(case ${tier} when 1 then ${sql.lit(TIER_SCORES[0])} when 2 then ${sql.lit(TIER_SCORES[1])} else ${sql.lit(TIER_SCORES[2])} end) / ${scale(corrected)}`;

interface PageKey { object_type: string; object_id: string; updated_at: Date | string; score: number }

/**
 * Statement 1: the head matches (one range scan of the postings), each type's count up to the cap, and, for
 * the relevance order, the page's head rows.
 */
async function countsAndHead(db: Executor, r: EngineRequest, word: WordQuery, cap: number) {
  const { access, types, asOf, limit, corrected } = r;
  const { term, prepared } = termCondition(word);
  const head = r.sort === 'recent'
    ? sql`select null::text as object_type, null::uuid as object_id, null::timestamptz as updated_at, null::int as score where false`
    : sql`select h.object_type, h.object_id, h.updated_at, ${tierScore(sql`h.tier`, corrected)} as score from h where ${headAfter(r)}
        order by h.tier, h.updated_at desc, h.object_type, h.object_id limit ${limit + 1}`;
  const result = await sql<{ counts: Record<string, number> | null; as_of: Date | string; page: PageKey[] | null }>`
    with q as (${queryRelation(r.query)}),
    h as materialized (
      select p.object_type, p.object_id, min(p.tier) as tier, max(p.updated_at) as updated_at
      from ${visiblePostings(access, term, anyType(types), asOf)}
      group by p.object_type, p.object_id
    ),
    hc as (select h.object_type, count(*)::int as n from h group by h.object_type),
    -- Materialized: inlined, its counting subquery would run once for the filter and again for the value.
    n as materialized (
      select t.object_type, case
        when coalesce(hc.n, 0) > ${cap} then ${cap + 1}
        else (select count(*)::int from (select 1 from search_documents d cross join q
              where ${documentAccess(access, sql`t.object_type`, asOf)} and d.search_vector @@ q.pq limit ${cap + 1}) c)
        end as n
      from unnest(${[...types]}::text[]) as t (object_type) left join hc on hc.object_type = t.object_type
    ),
    hp as (${head})
    select (select json_object_agg(n.object_type, n.n) from n where n.n > 0) as counts,
      statement_timestamp()::timestamptz(3) as as_of,
      (select json_agg(hp) from hp) as page${prepareIf(prepared)}
  `.execute(db);
  return result.rows[0]!;
}

/**
 * Statement 2, when the head rows leave the page short (relevance) or for `sort=recent`: matches newest first,
 * read per type the way its density calls for. A type past the cap is dense: the recency index finds a page
 * of its matches after a few hundred rows. A type under it has at most cap matches, just counted: its
 * full-text index and a sort read them, where a recency scan could walk the whole type to find none.
 */
async function recentMatches(db: Executor, r: EngineRequest, counts: Record<string, number>, cap: number, bodyOnly: boolean): Promise<PageKey[]> {
  const { access, asOf, limit, corrected } = r;
  const dense = r.types.filter((t) => (counts[t] ?? 0) > cap);
  const sparse = r.types.filter((t) => (counts[t] ?? 0) > 0 && (counts[t] ?? 0) <= cap);
  const after = bodyOnly ? bodyAfter(r) : r.after ? laterThan(r.after, 'd') : sql<boolean>`true`;
  const where = (types: readonly string[]) => sql`${documentAccess(access, anyType(types as SearchType[]), asOf)} and d.search_vector @@ q.pq
    ${bodyOnly ? sql`and not d.title_vector @@ q.pq and not d.subtitle_vector @@ q.pq` : sql``} and ${after}`;
  const score = bodyOnly
    ? tierScore(sql`3`, corrected)
    : tierScore(sql`case when d.title_vector @@ q.pq then 1 when d.subtitle_vector @@ q.pq then 2 else 3 end`, corrected);
  const parts = [
    ...(dense.length ? [sql`(select d.object_type, d.object_id, d.updated_at, ${score} as score from search_documents d cross join q
        where ${where(dense)} order by d.updated_at desc, d.object_type, d.object_id limit ${limit + 1})`] : []),
    // The sort key is an expression the recency index cannot supply, so the planner reads the full-text index.
    ...(sparse.length ? [sql`(select d.object_type, d.object_id, d.updated_at, ${score} as score from search_documents d cross join q
        where ${where(sparse)} order by d.updated_at + interval '0 s' desc, d.object_type, d.object_id limit ${limit + 1})`] : []),
  ];
  if (parts.length === 0) return [];
  const rows = await sql<PageKey>`
    with q as (${queryRelation(r.query)})
    select u.* from (${sql.join(parts, sql` union all `)}) u order by u.updated_at desc, u.object_type, u.object_id limit ${limit + 1}
  `.execute(db);
  return rows.rows;
}

/** Statement 3: the page's documents with their headlines, in page order. */
async function documentsOf(db: Executor, r: EngineRequest, page: readonly PageKey[]): Promise<EngineRow[]> {
  if (page.length === 0) return [];
  const rows = await sql<EngineRow>`
    with q as (${queryRelation(r.query)}),
    p as (select * from unnest(${page.map((k) => k.object_type)}::text[], ${page.map((k) => k.object_id)}::uuid[],
      ${page.map((k) => k.updated_at)}::timestamptz[], ${page.map((k) => k.score)}::int[]) as p (object_type, object_id, updated_at, score)),
    g as (select 1 as page)
    ${pageWithDocuments(r.access.tenant, r.sort)}${prepareIf(true)}
  `.execute(db);
  return rows.rows;
}

/** One page (limit + 1 rows) and per-type counts exact up to `cap`. */
export async function runWordSearch(db: Executor, r: EngineRequest, word: WordQuery, cap: number): Promise<EngineResult> {
  const first = await countsAndHead(db, r, word, cap);
  const counts = first.counts ?? {};
  let page = first.page ?? [];
  if (r.sort === 'recent') page = await recentMatches(db, r, counts, cap, false);
  else if (page.length <= r.limit) page = [...page, ...(await recentMatches(db, r, counts, cap, true))].slice(0, r.limit + 1);
  const groups = Object.fromEntries(Object.entries(counts).map(([t, n]) => [t, Math.min(n, cap)]));
  return {
    rows: await documentsOf(db, r, page),
    groups,
    countsExact: Object.values(counts).every((n) => n <= cap),
    asOf: r.asOf ?? new Date(first.as_of),
  };
}
