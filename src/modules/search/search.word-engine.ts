import { sql, type RawBuilder } from 'kysely';
import type { Executor } from '../../platform/db/executor.ts';
import { likePrefixPattern } from '../../platform/db/like.ts';
import { prepareIf } from '../../platform/db/prepared.ts';
import type { RowAccess } from './search.access.ts';
import {
  anyType, documentAccess, laterThan, pageWithDocuments, queryRelation, scale, SUBTITLE, TIER_SCORES, TITLE,
  type EngineRequest, type EngineResult, type EngineRow,
} from './search.engine.ts';
import { identifierMatches } from './search.identifier-tier.ts';
import type { SearchType } from './search.types.ts';

/**
 * The engine for a query of one plain word (matched as a prefix from 3 characters on, whole below): the
 * queries whose matches run into the tens of thousands. A word shaped like an identifier (`srv01`) also reads the
 * identifiers it names (search.identifier-tier.ts), which rank first. It reads what the general engine reads from every
 * match from two smaller structures (migrations 0028 and 0029):
 *
 * - the head postings (`search_postings`): every title and subtitle match with its tier, recency and access
 *   columns, keyed in ranking order within each word and type. For a word (or a prefix covering a few, or a
 *   prefix of three or four letters, which has postings of its own), each type's range gives its head count up to the cap and
 *   its best rows for the page, index-only (rankedHead); a longer prefix covering many words reads its whole range
 *   and groups it per document (groupedHead). The postings of documents written since the last merge (migration
 *   0032, usually the last second's) are computed from their rows in the same statement (visiblePostings), so a
 *   write is searchable at once;
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
 * The terms a word covers, as conditions on `p.term`: `from` its lower end, `below` its upper end (a prefix is
 * one range of the "C"-collated key; a whole word is one term).
 */
function termRange(word: WordQuery): { from: RawBuilder<boolean>; below: RawBuilder<boolean> } {
  if (word.whole) return { from: sql<boolean>`p.term = ${word.stem}`, below: sql<boolean>`true` };
  const end = prefixEnd(word.stem);
  return {
    from: sql<boolean>`p.term >= ${word.stem}`,
    below: end === null ? sql<boolean>`p.term like ${likePrefixPattern(word.stem)}` : sql<boolean>`p.term < ${end}`,
  };
}

/** The postings' columns, in the order of both sides of visiblePostings. */
const POSTING = 'tenant, term, tier, object_type, object_id, updated_at, indexed_at, restricted, required_permission';

/**
 * The relations `pd` (documents of the tenant whose postings are pending: written since the last merge) and `pp`
 * (the postings, as they are now, of the terms `terms` (a condition on `p.term`) of those that match the query `q.pq`,
 * computed from their rows with the merge's own definition: every posting a word search reads belongs to a document
 * matching it), for a statement's WITH list after `q`: visiblePostings reads them, once per type and term, so `pp`
 * holds only what the statement reads. Usually a second's writes (platform/search/postings.ts).
 *
 * `computed`: the pending postings of a range holding `terms`, as an earlier statement of the search's transaction
 * computed them (termsOf: the search runs in one repeatable-read snapshot, so they are the same); computing them
 * again took as long as the rest of the statement beside a second's writes (~10 ms for 1,000 pending documents).
 */
const pendingPostings = (tenant: string, terms: RawBuilder<boolean>, computed?: string) => sql`
    pd as materialized (select * from search_pending_documents(${tenant}::uuid)),
    pp as materialized (
      select * from (
        select tenant, term collate "C" as term, tier, object_type, object_id, updated_at, indexed_at, restricted, required_permission
        from ${computed === undefined
          ? sql`search_pending_postings(${tenant}::uuid, (select q.pq from q))`
          : sql`json_to_recordset(${computed}::json) as j (${sql.raw(POSTING_TYPES)})`}
      ) p where ${terms}
    )`;

/** POSTING's columns with their types, to read postings back from JSON. */
const POSTING_TYPES = `tenant uuid, term text, tier smallint, object_type text, object_id uuid, updated_at timestamptz, indexed_at timestamptz,
  restricted boolean, required_permission text`;

/**
 * The postings `p` the caller may see (the statement's WITH list holds pendingPostings), as of the statement
 * (migration 0032): the merged ones of documents with nothing pending, and the pending documents' from `pp`. Every
 * condition is written into both sides, with `tail` (an order and limit, say) after each: the planner does not
 * push a lateral reference into a union reliably, and without `p.term = t.term` in its index condition a count
 * read a type's whole range (16 s at 1M rows). The merged side keeps its index order, so a range read in ranking
 * order is still an index-only scan.
 *
 * A restricted posting (a per-user audience) is checked against its document by key, through a function so that
 * only those few rows pay for it: as an EXISTS (or a lateral join) the planner either hashed a scan of every
 * document for the caller's id (380 ms at 1M rows) or set up a lookup over every partition for each of ~19k
 * postings (20 ms). No client condition: a client-portal caller never gets here (runWordSearch).
 */
function visiblePostings(a: RowAccess, term: RawBuilder<boolean>, types: RawBuilder<unknown>, asOf: Date | undefined, tail: RawBuilder<unknown> = sql``): RawBuilder<unknown> {
  const visible = sql`${term} and p.tenant = ${a.tenant}::uuid
      and p.object_type = ${types}
      and (p.required_permission is null or p.required_permission = any(${a.permissions}::text[]))
      and (case when p.restricted then search_document_visible_to(p.tenant, p.object_type, p.object_id, ${a.userId}::uuid) else true end)
      ${asOf ? sql`and p.indexed_at <= ${asOf}` : sql``}`;
  return sql`(
      (select ${sql.raw(POSTING)} from search_postings p where ${visible} and (p.object_type, p.object_id) not in (select * from pd) ${tail})
      union all (select ${sql.raw(POSTING)} from pp p where ${visible} ${tail})
    ) p`;
}

/** Tier from a cursor's score (scores are TIER_SCORES, divided by ten for a typo correction). */
const tierOf = (score: number, corrected: boolean) => TIER_SCORES.findIndex((s) => s / (corrected ? 10 : 1) === score) + 1;

/** Head rows of the alias `h` after the cursor in the relevance order (tier, then recency). */
function headAfter(r: EngineRequest, h: string): RawBuilder<boolean> {
  const a = r.after;
  if (!a) return sql<boolean>`true`;
  const tier = tierOf(a.score, r.corrected);
  return sql<boolean>`(${sql.ref(`${h}.tier`)} > ${tier} or (${sql.ref(`${h}.tier`)} = ${tier} and ${laterThan(a, h)}))`;
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
 * Statement 1's result: each type's count (cap + 1 for past the cap) and, for the relevance order, the head page.
 * Statement 1 is planned with its values: run prepared, PostgreSQL settled on a generic plan that made a rare
 * word's search 10× slower (p50 187 ms against 17 ms at 1M rows).
 */
interface HeadResult { counts: Record<string, number> | null; as_of: Date | string; page: PageKey[] | null }

/**
 * Each type's count up to the cap, from its head count `hc` (object_type, n): past the cap from the head alone,
 * otherwise from the type's own full-text index, visiting at most cap + 1 documents. Materialized: inlined, the
 * counting subquery would run once for the filter and again for the value.
 */
function typeCounts(r: EngineRequest, cap: number): RawBuilder<unknown> {
  return sql`n as materialized (
      select t.object_type, case
        when coalesce(hc.n, 0) > ${cap} then ${cap + 1}
        else (select count(*)::int from (select 1 from search_documents d cross join q
              where ${documentAccess(r.access, sql`t.object_type`, r.asOf)} and d.search_vector @@ q.pq limit ${cap + 1}) c)
        end as n
      from unnest(${[...r.types]}::text[]) as t (object_type) left join hc on hc.object_type = t.object_type
    )`;
}

/** The head page of `sort=recent`, which reads its page newest first instead (statement 2). */
const NO_HEAD = sql`select null::text as object_type, null::uuid as object_id, null::timestamptz as updated_at, null::int as score where false`;

const headResult = (hp: RawBuilder<unknown>) => sql`
    select (select json_object_agg(n.object_type, n.n) from n where n.n > 0) as counts,
      statement_timestamp()::timestamptz(3) as as_of,
      (select json_agg(hp) from (${hp}) hp) as page`;

/**
 * Statement 1 when the query's head matches are those of a few words (`terms`, at most RANKED_TERMS): read in
 * ranking order. Each type's range of the postings key (tenant, term, object_type, tier, updated_at desc,
 * object_id) is counted up to cap + 1 entries and gives its best limit + 1 rows after the cursor; the page is the
 * best of those, grouped per document (its best tier) when several words are read. A frequent word reads about
 * cap + 1 entries per type and a page's worth per type, however many postings it has.
 *
 * Several words: a type past the cap in one word is past it in all; otherwise its documents are counted across
 * the words without repeats. The page is exact: a document whose best posting is not among its range's best
 * limit + 1 ranks behind at least that many others. On a later page, a document whose best posting came before
 * the cursor (a title word) would reappear with a worse one after it (a subtitle word): a subtitle posting is read
 * only if its document has no title posting among the words (titlePosting).
 */
async function rankedHead(db: Executor, r: EngineRequest, terms: readonly string[], cap: number, pending?: string): Promise<HeadResult> {
  const { access, types, asOf, limit, corrected } = r;
  const posted = (term: RawBuilder<unknown>, type: RawBuilder<unknown>, tail?: RawBuilder<unknown>) =>
    visiblePostings(access, sql<boolean>`p.term = ${term}`, type, asOf, tail);
  const ofType = posted(sql`t.term`, sql`ty.object_type`);
  // Not needed for the first page (a document's best posting comes first), nor for one word (one posting per document).
  const notShown = r.after && terms.length > 1 ? sql`and (p.tier = 1 or not exists (${titlePosting(terms)}))` : sql``;
  const head = r.sort === 'recent'
    ? NO_HEAD
    : sql`select c.object_type, c.object_id, max(c.updated_at) as updated_at, ${tierScore(sql`min(c.tier)`, corrected)} as score
        from unnest(${[...types]}::text[]) as ty (object_type) cross join t cross join lateral (
          select p.object_type, p.object_id, p.updated_at, p.tier
          from ${posted(sql`t.term`, sql`ty.object_type`, sql`and ${headAfter(r, 'p')} ${notShown} order by p.tier, p.updated_at desc, p.object_id limit ${limit + 1}`)}
          order by p.tier, p.updated_at desc, p.object_id limit ${limit + 1}) c
        group by c.object_type, c.object_id
        order by min(c.tier), max(c.updated_at) desc, c.object_type, c.object_id limit ${limit + 1}`;
  const result = await sql<HeadResult>`
    with q as (${queryRelation(r.query)}),
    ${pendingPostings(access.tenant, sql<boolean>`p.term = any(${[...terms]}::text[])`, pending)},
    t as (select w collate "C" as term from unnest(${[...terms]}::text[]) as w),
    tc as materialized (
      select ty.object_type, t.term, (select count(*)::int from (select 1 from ${ofType} limit ${cap + 1}) c) as n
      from unnest(${[...types]}::text[]) as ty (object_type) cross join t
    ),
    hc as (
      select tc.object_type, case
        when max(tc.n) > ${cap} then ${cap + 1}
        when count(*) filter (where tc.n > 0) <= 1 then max(tc.n)
        else (select count(distinct p.object_id)::int from t cross join lateral (select p.object_id from ${posted(sql`t.term`, sql`tc.object_type`)}) p)
        end as n
      from tc group by tc.object_type
    ),
    ${typeCounts(r, cap)}
    ${headResult(head)}
  `.execute(db);
  return result.rows[0]!;
}

/**
 * For a subtitle posting `p`: the title postings of its document among `terms`. Such a document ranks by its title
 * posting (postings hold tiers 1 and 2 only), which the page reads where it falls (before the cursor: on an earlier
 * page), so its subtitle posting is never the one it ranks by. One index probe per word: the key's columns are all
 * given. A pending document's merged postings may be an older version's, so they are looked up in `pp` instead.
 */
function titlePosting(terms: readonly string[]): RawBuilder<unknown> {
  const title = sql`e.term = any(${[...terms]}::text[]) and e.object_type = p.object_type and e.tier = 1
    and e.updated_at = p.updated_at and e.object_id = p.object_id`;
  return sql`select 1 from search_postings e where e.tenant = p.tenant and ${title} and (p.object_type, p.object_id) not in (select * from pd)
    union all select 1 from pp e where ${title}`;
}

/**
 * Statement 1 when a prefix covers several words: a document can hold more than one of them, so every head
 * match in the range is read and grouped per document (its best tier) before counting and ranking.
 *
 * Grouped by hashing: the planner estimates a range of the postings' terms at a row or two (a few words' share of
 * the term histogram's bucket), for which sorting looks as cheap, and sorted the range's ~26,000 postings (a 6-letter
 * prefix covering 37 words at 1M rows) to group them: 28.7 ms against 14.9 hashed, the whole search ~60 → ~51 ms.
 * So sorting is switched off for this statement only (the page's top-N sort of `h` still runs: it has no other plan).
 */
async function groupedHead(db: Executor, r: EngineRequest, word: WordQuery, cap: number, pending?: string): Promise<HeadResult> {
  const { access, types, asOf, limit, corrected } = r;
  const range = termRange(word);
  const head = r.sort === 'recent'
    ? NO_HEAD
    : sql`select h.object_type, h.object_id, h.updated_at, ${tierScore(sql`h.tier`, corrected)} as score from h where ${headAfter(r, 'h')}
        order by h.tier, h.updated_at desc, h.object_type, h.object_id limit ${limit + 1}`;
  const { rows: [setting] } = await sql<{ was: string }>`select current_setting('enable_sort') as was, set_config('enable_sort', 'off', true)`.execute(db);
  const result = await sql<HeadResult>`
    with q as (${queryRelation(r.query)}),
    ${pendingPostings(access.tenant, sql<boolean>`${range.from} and ${range.below}`, pending)},
    h as materialized (
      select p.object_type, p.object_id, min(p.tier) as tier, max(p.updated_at) as updated_at
      from ${visiblePostings(access, sql<boolean>`${range.from} and ${range.below}`, anyType(types), asOf)}
      group by p.object_type, p.object_id
    ),
    hc as (select h.object_type, count(*)::int as n from h group by h.object_type),
    ${typeCounts(r, cap)}
    ${headResult(head)}
  `.execute(db);
  await sql`select set_config('enable_sort', ${setting!.was}, true)`.execute(db);
  return result.rows[0]!;
}

/** The most words a prefix may cover for its head to be read in ranking order (rankedHead). */
const RANKED_TERMS = 4;

/**
 * Every head word is posted again under its first three and first four characters (when it has that many) after
 * PREFIX_MARK (migrations 0033 and 0035): one posting per document and prefix, at the best tier of the words it begins.
 */
const PREFIX_LENGTHS = [3, 4];
const PREFIX_MARK = '\u0001';

/**
 * The terms of the postings the query's word reads. A prefix of three or four characters: its prefix term, read in
 * ranking order like one word however many words it begins. Any other prefix: the words it covers, up to
 * RANKED_TERMS + 1: one index probe each in the merged postings (a word there may be only a pending document's old
 * one: reading it finds nothing), with the pending documents' words, whose postings in the prefix's range it
 * returns too (`pending`, for the head statement). A prefix with no head match at all is read as its own stem: the
 * head is then empty and the counts come from the full-text indexes.
 */
async function termsOf(db: Executor, r: EngineRequest, word: WordQuery): Promise<{ terms: string[]; pending?: string }> {
  if (word.whole) return { terms: [word.stem] };
  if (PREFIX_LENGTHS.includes([...word.stem].length)) return { terms: [PREFIX_MARK + word.stem] };
  const tenant = r.access.tenant;
  const { from, below } = termRange(word);
  const { rows } = await sql<{ terms: string[] | null; pending: string }>`
    with recursive q as (${queryRelation(r.query)}),
    ${pendingPostings(tenant, sql<boolean>`${from} and ${below}`)},
    w (term, i) as (
      (select p.term, 1 from search_postings p where p.tenant = ${tenant}::uuid and ${from} and ${below} order by p.term limit 1)
      union all
      select (select p.term from search_postings p where p.tenant = ${tenant}::uuid and p.term > w.term and ${below} order by p.term limit 1), w.i + 1
      from w where w.term is not null and w.i <= ${RANKED_TERMS}
    )
    select (select array_agg(term order by term) from (
        select term from (select w.term from w where w.term is not null union select p.term from pp p) x order by term limit ${RANKED_TERMS + 1}
      ) x) as terms,
      (select coalesce(json_agg(p), '[]')::text from pp p) as pending
  `.execute(db);
  const { terms, pending } = rows[0]!;
  // Beside a backlog of a bulk load (a million writes unmerged), shipping them back would cost more than computing them.
  return { terms: terms ?? [word.stem], pending: pending.length <= PASSED_PENDING_CHARS ? pending : undefined };
}

/** The most JSON text of pending postings termsOf passes on to the head statement (about 3,000 postings). */
const PASSED_PENDING_CHARS = 1_000_000;

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
    ${bodyOnly ? sql`and not ${TITLE} @@ q.pq and not ${SUBTITLE} @@ q.pq` : sql``} and ${after}`;
  const score = bodyOnly
    ? tierScore(sql`3`, corrected)
    : tierScore(sql`case when ${TITLE} @@ q.pq then 1 when ${SUBTITLE} @@ q.pq then 2 else 3 end`, corrected);
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

/**
 * Statement 3: the page's documents with their headlines, in page order. `page` may hold more than the page (the
 * identifier tier merged with the text matches): the first limit + 1 in the request's order are read.
 */
async function documentsOf(db: Executor, r: EngineRequest, page: readonly PageKey[]): Promise<EngineRow[]> {
  if (page.length === 0) return [];
  const order = r.sort === 'recent' ? sql`updated_at desc, object_type, object_id` : sql`score desc, updated_at desc, object_type, object_id`;
  const rows = await sql<EngineRow>`
    with q as (${queryRelation(r.query)}),
    p as (select * from unnest(${page.map((k) => k.object_type)}::text[], ${page.map((k) => k.object_id)}::uuid[],
      ${page.map((k) => k.updated_at)}::timestamptz[], ${page.map((k) => k.score)}::int[]) as p (object_type, object_id, updated_at, score)
      order by ${order} limit ${r.limit + 1}),
    g as (select 1 as page)
    ${pageWithDocuments(r.access.tenant, r.sort)}${prepareIf(true)}
  `.execute(db);
  return rows.rows;
}

/** The text matches' counts (cap + 1 for past the cap) and page (limit + 1 keys after the cursor). */
async function textMatches(db: Executor, r: EngineRequest, word: WordQuery, cap: number): Promise<{ counts: Record<string, number>; page: PageKey[]; asOf: Date }> {
  const { terms, pending } = await termsOf(db, r, word);
  const ranked = terms.length <= RANKED_TERMS;
  const first = ranked ? await rankedHead(db, r, terms, cap, pending) : await groupedHead(db, r, word, cap, pending);
  const counts = first.counts ?? {};
  let page = first.page ?? [];
  if (r.sort === 'recent') page = await recentMatches(db, r, counts, cap, false);
  else if (page.length <= r.limit) page = [...page, ...(await recentMatches(db, r, counts, cap, true))].slice(0, r.limit + 1);
  return { counts, page, asOf: r.asOf ?? new Date(first.as_of) };
}

const keyOf = (k: { object_type: string; object_id: string }) => `${k.object_type}/${k.object_id}`;

/**
 * One page (limit + 1 rows) and per-type counts exact up to `cap`; null (the general engine takes it then) for a
 * client-portal caller, whose rows are one client's: the general engine reads them through the client index
 * intersected with the full-text one (migration 0037) and counts them exactly, where the postings and counts here
 * would read the whole tenant's matches to keep that client's (0.25–0.57 s for a frequent word at 1M rows); and
 * null when the query is shaped like an identifier and names more identifiers than the tier holds.
 *
 * With an identifier tier: its documents count once per type (those that also match as text are counted there);
 * for relevance they lead the page and are left out of the text matches, which are read that many rows further;
 * for `sort=recent` they join the text matches by recency, with their identifier score.
 */
export async function runWordSearch(db: Executor, r: EngineRequest, word: WordQuery, cap: number): Promise<EngineResult | null> {
  if (r.access.clientId !== null) return null;
  const tier = r.query.identifiers.length > 0 ? await identifierMatches(db, r) : [];
  if (tier === null) return null;
  const textual = new Map(tier.filter((m) => m.text).map((m) => [keyOf(m), m.score]));
  const relevance = r.sort !== 'recent';
  const text = await textMatches(db, relevance ? { ...r, limit: r.limit + textual.size } : r, word, cap);
  const counts = { ...text.counts };
  for (const m of tier) if (!m.text && (counts[m.object_type] ?? 0) <= cap) counts[m.object_type] = (counts[m.object_type] ?? 0) + 1;
  const page = relevance
    ? [...tier.filter((m) => m.after), ...text.page.filter((k) => !textual.has(keyOf(k)))]
    : [...tier.filter((m) => m.after && !m.text), ...text.page.map((k) => ({ ...k, score: textual.get(keyOf(k)) ?? k.score }))];
  const groups = Object.fromEntries(Object.entries(counts).map(([t, n]) => [t, Math.min(n, cap)]));
  return {
    rows: await documentsOf(db, r, page),
    groups,
    countsExact: Object.values(counts).every((n) => n <= cap),
    asOf: text.asOf,
  };
}
