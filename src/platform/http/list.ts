import { sql, type Expression, type OrderByExpression, type SelectQueryBuilder, type StringReference } from 'kysely';
import { maintainedCount, type ListCounter } from '../db/list-counts.ts';
import { PREPARE_MARK } from '../db/prepared.ts';
import { validation } from './errors.ts';
import { pageOf, paginated, type Page, type PageQuery } from './pagination.ts';

/**
 * The list parameters every list route shares (its schema validates them). `sort` is the area's enum: a
 * value the spec does not declare fails to compile at the call.
 */
export interface ListQuery<S extends string = string> extends PageQuery {
  sort?: S;
  updated_since?: string;
}

/**
 * One ordering term of a sort: an expression of the page query, or one with options. `nullsLast` keeps
 * rows without a value at the end in both directions; `reverse` runs against the requested order (a
 * relevance rank that must stay best-first whichever way the rest sorts).
 */
export type SortTerm<E> = E | { by: E; nullsLast?: true; reverse?: true };

/**
 * What an area declares for one list; the repo builds it, the use case runs it.
 * `from` is every row the caller may see, filtered (tenant, visibility scope, the area's filters) with
 * nothing selected: the total counts it as is. `page` is the same rows with the page's columns (and joins
 * only the page needs), not yet ordered or limited.
 */
export interface ListSpec<FDB, FTB extends keyof FDB, FO, DB, TB extends keyof DB, Row, S extends string, JDB = DB, JTB extends keyof JDB = keyof JDB, Out = Row> {
  from: SelectQueryBuilder<FDB, FTB, FO>;
  page: SelectQueryBuilder<DB, TB, Row>;
  /** Sort field → its ordering terms; the keys are the whitelist. */
  sorts: Record<S, readonly SortTerm<NoInfer<OrderByExpression<DB, TB, Row>>>[]>;
  defaultSort: NoInfer<S>;
  /** When no `order` is given (the direction of every term, the tie-breaker's too). */
  defaultOrder: 'asc' | 'desc';
  /** A unique column, last in every ordering, so pages never overlap or skip rows. */
  tieBreaker: NoInfer<OrderByExpression<DB, TB, Row>>;
  /**
   * The column (or expression) `updated_since` is compared with (`>=`), named as both `from` and `page`
   * see it; a list without the parameter leaves it out.
   */
  updatedAt?: NoInfer<(StringReference<FDB, FTB> & StringReference<DB, TB>) | Expression<Date | null>>;
  /**
   * Joins the picked page to columns the ordering does not need (so the join sees `limit` rows, never the
   * whole filter). The result must alias the page under its own name: the ordering is applied again to it.
   */
  lateJoin?: (page: SelectQueryBuilder<DB, TB, Row>) => SelectQueryBuilder<JDB, JTB, Out>;
  /**
   * The tenant's maintained total that `from` counts exactly: set only when no filter narrows the list
   * (the repo checks). The total is then read, not counted; `updated_since` still counts.
   */
  counter?: ListCounter;
}

/** The maintained total for a list's spec when no filter narrows the list (every filter value is absent). */
export function whenUnfiltered(filter: object, counter: ListCounter): ListCounter | undefined {
  return Object.values(filter).every((v) => v === undefined) ? counter : undefined;
}

/** Types a spec where the repo declares it (sort terms are checked against the page query). */
export function defineList<FDB, FTB extends keyof FDB, FO, DB, TB extends keyof DB, Row, S extends string, JDB = DB, JTB extends keyof JDB = keyof JDB, Out = Row>(
  spec: ListSpec<FDB, FTB, FO, DB, TB, Row, S, JDB, JTB, Out>,
): ListSpec<FDB, FTB, FO, DB, TB, Row, S, JDB, JTB, Out> {
  return spec;
}

export interface ListPage<T> {
  data: T[];
  pagination: { page: number; limit: number; total: number; totalPages: number; hasNext: boolean; hasPrev: boolean };
}

/** The column that carries the filtered total on every row of a page. */
const TOTAL = '__list_total';

/**
 * The list use case: validate the sort, filter by `updated_since`, fetch the page (ordered, then the
 * tie-breaker, then limit/offset) with the total, map the rows, wrap them in the envelope.
 *
 * The page and its total are one statement, prepared per shape: the total is an uncorrelated scalar
 * subquery (PostgreSQL runs it once) — the maintained count when the spec has one, else a count — so a
 * page costs one round trip and no parse or plan. Only a page past the end, which has no row to carry
 * the total, counts again.
 */
export async function listPage<FDB, FTB extends keyof FDB, FO, DB, TB extends keyof DB, Row, S extends string, JDB, JTB extends keyof JDB, Out, T>(
  query: ListQuery<NoInfer<S>>,
  spec: ListSpec<FDB, FTB, FO, DB, TB, Row, S, JDB, JTB, Out>,
  map: (rows: Out[]) => T[] | Promise<T[]>,
): Promise<ListPage<T>> {
  const page = pageOf(query);
  const { from, rows: ordered, order } = prepared(query, spec);
  // The limit is part of the statement's text (1–100, validated): with it as a parameter the generic plan
  // guesses 1,000 rows and hash-joins the whole table under the page; the offset stays a parameter.
  const picked = ordered.limit(sql.lit(page.limit)).offset(page.offset);
  // The late join keeps the page's alias, so every sort term still names the column it orders by; only the
  // types differ (without a late join, Out is Row).
  const rows = spec.lateJoin ? order(spec.lateJoin(picked) as unknown as SelectQueryBuilder<DB, TB, Row>) : picked;
  const total = spec.counter && query.updated_since === undefined ? maintainedCount(spec.counter) : sql<number | string>`(${countQuery(from)})`;
  const list = (await rows
    .select(total.as(TOTAL))
    .modifyEnd(sql.raw(PREPARE_MARK))
    .execute()) as unknown as (Out & { [TOTAL]: number | string })[];
  return paginated(await map(list), list[0] ? Number(list[0][TOTAL]) : page.offset === 0 ? 0 : await countOf(from), page);
}

/**
 * Every row of a list in the order its pages show (the sort validated, `updated_since` applied, the
 * tie-breaker last), neither paged nor late-joined: for walking the whole list a batch at a time (an
 * export sorted like the list).
 */
export function orderedRows<FDB, FTB extends keyof FDB, FO, DB, TB extends keyof DB, Row, S extends string, JDB, JTB extends keyof JDB, Out>(
  query: Omit<ListQuery<NoInfer<S>>, 'page' | 'limit'>,
  spec: ListSpec<FDB, FTB, FO, DB, TB, Row, S, JDB, JTB, Out>,
): SelectQueryBuilder<DB, TB, Row> {
  return prepared(query, spec).rows;
}

/** The filtered total's query, the ordered rows, and the ordering (to apply again after a late join). */
function prepared<FDB, FTB extends keyof FDB, FO, DB, TB extends keyof DB, Row, S extends string, JDB, JTB extends keyof JDB, Out>(
  query: Omit<ListQuery<S>, 'page' | 'limit'>,
  spec: ListSpec<FDB, FTB, FO, DB, TB, Row, S, JDB, JTB, Out>,
) {
  const sort = query.sort ?? spec.defaultSort;
  if (!Object.hasOwn(spec.sorts, sort)) throw validation('querystring.sort', `must be one of ${Object.keys(spec.sorts).join(', ')}`);
  const terms = spec.sorts[sort];
  const dir = query.order ?? spec.defaultOrder;
  let { from, page: rows } = spec;
  if (spec.updatedAt !== undefined && query.updated_since !== undefined) {
    const column = typeof spec.updatedAt === 'string' ? sql.ref(spec.updatedAt) : spec.updatedAt;
    const since = sql<boolean>`${column} >= ${new Date(query.updated_since)}`;
    from = from.where(since);
    rows = rows.where(since);
  }
  const order = (q: SelectQueryBuilder<DB, TB, Row>) => orderBy(q, terms, spec.tieBreaker, dir);
  return { from, rows: order(rows), order };
}

/** The envelope of a list that is empty without asking the database (a filter that can match nothing). */
export function emptyPage(query: PageQuery): ListPage<never> {
  return paginated([], 0, pageOf(query));
}

/** Pages rows already in memory (lists read from a provider, not a table), with the same envelope. */
export function pageOfArray<T>(query: PageQuery, rows: readonly T[]): ListPage<T> {
  const page: Page = pageOf(query);
  return paginated(rows.slice(page.offset, page.offset + page.limit), rows.length, page);
}

function orderBy<DB, TB extends keyof DB, Row>(
  q: SelectQueryBuilder<DB, TB, Row>,
  terms: readonly SortTerm<OrderByExpression<DB, TB, Row>>[],
  tieBreaker: OrderByExpression<DB, TB, Row>,
  dir: 'asc' | 'desc',
): SelectQueryBuilder<DB, TB, Row> {
  for (const term of terms) {
    if (typeof term !== 'object' || term === null || !('by' in term)) {
      q = q.orderBy(term, dir);
      continue;
    }
    const d = term.reverse ? (dir === 'asc' ? 'desc' : 'asc') : dir;
    q = term.nullsLast ? q.orderBy(term.by, (ob) => (d === 'asc' ? ob.asc() : ob.desc()).nullsLast()) : q.orderBy(term.by, d);
  }
  return q.orderBy(tieBreaker, dir);
}

const countQuery = <DB, TB extends keyof DB, O>(from: SelectQueryBuilder<DB, TB, O>) =>
  from.select((eb) => eb.fn.countAll().as('n')).$castTo<{ n: number | string }>();

async function countOf<DB, TB extends keyof DB, O>(from: SelectQueryBuilder<DB, TB, O>): Promise<number> {
  // pg returns count(*) (a bigint) as a string, PGlite as a number.
  return Number((await countQuery(from).executeTakeFirstOrThrow()).n);
}
