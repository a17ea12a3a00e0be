import { sql, type Expression, type OrderByExpression, type RawBuilder, type SelectQueryBuilder, type StringReference } from 'kysely';
import { maintainedCount, type ListCounter } from '../db/list-counts.ts';
import type { Executor } from '../db/executor.ts';
import { PREPARE_MARK } from '../db/prepared.ts';
import { validation } from './errors.ts';
import { afterPosition, KEY_ID, KEY_U, KEYSET_SORT, keysetOf, keyText } from './keyset.ts';
import { KEY_VERSION, keepRow, keptStoreOf, keyOfRow, type KeptStatements } from './list-cache.ts';
import { decodeListCursor, encodeListCursor, listBinding, type KeysetPosition } from './list-cursor.ts';
import { pageOf, paginated, type Page, type PageQuery, type Pagination } from './pagination.ts';

/**
 * The list parameters every list route shares (its schema validates them). `sort` is the area's enum: a
 * value the spec does not declare fails to compile at the call.
 */
export interface ListQuery<S extends string = string> extends PageQuery {
  sort?: S;
  updated_since?: string;
  /** Continues a `sort=updated_at` walk after the page that issued it (keyset.ts). */
  cursor?: string;
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
   * When a row last changed (a timestamptz, never null: `created_at` for rows that never change), named
   * as both `from` and `page` see it: `updated_since` compares with it (`>=`), and it is the key of the
   * `updated_at` sort every list has (keyset.ts) — the area's own `updated_at` terms when it declares
   * them, this column otherwise. With a late join it must also name the column in the joined query.
   */
  updatedAt: NoInfer<(StringReference<FDB, FTB> & StringReference<DB, TB>) | Expression<Date>>;
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
  /**
   * For a kept list (keptListPage): each row's version (rowVersion in list-cache.ts), naming every table
   * whose columns the row shows; with a late join, an expression of the page query alone (a late-joined
   * row's `xmin` as a subquery).
   */
  version?: RawBuilder<string>;
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
  pagination: Pagination;
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
 * An ascending `sort=updated_at` pages by keyset instead (keysetPage).
 */
export async function listPage<FDB, FTB extends keyof FDB, FO, DB, TB extends keyof DB, Row, S extends string, JDB, JTB extends keyof JDB, Out, T>(
  query: ListQuery<NoInfer<S> | typeof KEYSET_SORT>,
  spec: ListSpec<FDB, FTB, FO, DB, TB, Row, S, JDB, JTB, Out>,
  map: (rows: Out[]) => T[] | Promise<T[]>,
): Promise<ListPage<T>> {
  const keyset = keysetOf(query);
  if (keyset.walk) return keysetPage(query, keyset.cursor, spec, map);
  const page = pageOf(query);
  const { from, rows: ordered, order } = prepared(query, spec);
  const picked = atOffset(ordered.limit(sql.lit(page.limit)), page.offset);
  // The late join keeps the page's alias, so every sort term still names the column it orders by; only the
  // types differ (without a late join, Out is Row).
  const rows = spec.lateJoin ? order(spec.lateJoin(picked) as unknown as SelectQueryBuilder<DB, TB, Row>) : picked;
  const list = (await withTotal(rows, totalOf(query, spec, from))) as WithTotal<Out>[];
  return paginated(await map(list), await totalIn(list, page, from), page);
}

/**
 * listPage for a list integrators poll (list-cache.ts): its statements are compiled once per input and
 * page shape, and its mapped rows are kept by version, so an unchanged page costs one narrow statement
 * and no query building, mapping or serialising of its rows. `build` builds the spec (which declares
 * `version`) from `input` alone — the tenant, the filters, the caller's scope: everything the statements
 * depend on, compared as JSON; `name` names the list and anything else `map` depends on. A keyset walk
 * (each page new rows) and any read inside a transaction run as listPage.
 */
export async function keptListPage<I, FDB, FTB extends keyof FDB, FO, DB, TB extends keyof DB, Row, S extends string, JDB, JTB extends keyof JDB, Out, T>(
  db: Executor,
  query: ListQuery<NoInfer<S> | typeof KEYSET_SORT>,
  name: string,
  input: I,
  build: (input: I) => ListSpec<FDB, FTB, FO, DB, TB, Row, S, JDB, JTB, Out>,
  map: (rows: Out[]) => T[],
): Promise<ListPage<T>> {
  const store = keptStoreOf(db);
  if (!store || keysetOf(query).walk) return listPage(query, build(input), map);
  const page = pageOf(query);
  const shape = JSON.stringify([name, input, query.sort ?? null, query.order ?? null, query.updated_since ?? null, page.limit, page.offset]);
  let statements = store.statements.get(shape);
  if (!statements) store.statements.set(shape, (statements = keptStatements(query, build(input), page)));

  type Keyed = WithTotal<Record<typeof KEY_ID | typeof KEY_VERSION, string>>;
  const { count } = statements;
  const total = (rows: readonly Keyed[]) => totalIn(rows, page, async () => Number((await db.executeQuery(count)).rows[0]!.n));
  // The narrow statement is worth running only where the page may be kept: not on a shape's first page
  // (a page read once, such as one of an offset walk, costs what it did before), nor right after it missed
  // (a page whose rows keep changing pays for it on every other request only).
  const tried = statements.tryKeys;
  if (tried) {
    const keys = (await db.executeQuery(statements.keys)).rows as Keyed[];
    const kept = keys.map((k) => store.rows.get(keyOfRow(name, k[KEY_ID], k[KEY_VERSION])));
    if (kept.every((row) => row !== undefined)) return paginated(kept as T[], await total(keys), page);
  }
  statements.tryKeys = !tried;

  const rows = (await db.executeQuery(statements.page)).rows as (Keyed & Out)[];
  const data = map(rows.map(({ [KEY_ID]: _id, [KEY_VERSION]: _v, ...row }) => row as unknown as Out));
  rows.forEach((r, i) => store.rows.set(keyOfRow(name, r[KEY_ID], r[KEY_VERSION]), keepRow(data[i] as object)));
  return paginated(data, await total(rows), page);
}

/** A kept list's two statements for one page shape: the same rows, in the same order, with the same total. */
function keptStatements<FDB, FTB extends keyof FDB, FO, DB, TB extends keyof DB, Row, S extends string, JDB, JTB extends keyof JDB, Out>(
  query: ListQuery<string>,
  spec: ListSpec<FDB, FTB, FO, DB, TB, Row, S, JDB, JTB, Out>,
  page: Page,
): KeptStatements {
  if (!spec.version) throw new Error('a kept list declares its rows\' version');
  const { from, rows: ordered, order } = prepared(query, spec);
  const picked = atOffset(ordered.limit(sql.lit(page.limit)), page.offset);
  const keys = [sql<string>`${refOf(spec.tieBreaker)}::text`.as(KEY_ID), spec.version.as(KEY_VERSION)];
  const total = totalOf(query, spec, from).as(TOTAL);
  const mark = sql.raw(PREPARE_MARK);
  const through = (alias: string) => [sql.ref(`${alias}.${KEY_ID}`), sql.ref(`${alias}.${KEY_VERSION}`), total];
  const whole = spec.lateJoin
    ? order(spec.lateJoin(picked.select(keys as never)) as unknown as SelectQueryBuilder<DB, TB, Row>).select(through(tieBreakerTable(spec.tieBreaker)) as never)
    : picked.select([...keys, total] as never);
  return {
    tryKeys: false,
    keys: picked.clearSelect().select([...keys, total] as never).modifyEnd(mark).compile(),
    page: whole.modifyEnd(mark).compile(),
    count: countQuery(from).compile(),
  };
}

/** The table of a late-joined list's tie-breaker (`alias.column`): the page is aliased under its name, and the keys pass through it. */
function tieBreakerTable(tieBreaker: unknown): string {
  if (typeof tieBreaker !== 'string' || !tieBreaker.includes('.')) throw new Error('a kept list with a late join names its tie-breaker as alias.column');
  return tieBreaker.split('.')[0]!;
}

/**
 * The page's place in the statement's text so that PostgreSQL settles on one generic plan for the common
 * case. A prepared statement is planned for its values five times, then runs its generic plan unless that
 * looks costlier; a parameter as LIMIT or OFFSET makes it look so (the planner guesses a tenth of the
 * table), and the ticket list's eleven-table join was then planned afresh for every request (~10 ms; it
 * runs in under 1). The limit (1–100, validated) is a literal; the first page has no OFFSET at all, later
 * ones take it as a parameter (one shape for all of them, planned per call).
 */
function atOffset<Q extends { offset(n: number): Q }>(q: Q, offset: number): Q {
  return offset === 0 ? q : q.offset(offset);
}

/** The filtered total as a scalar subquery: the maintained count when the spec has one, else a count. */
function totalOf<FDB, FTB extends keyof FDB, FO, DB, TB extends keyof DB, Row, S extends string, JDB, JTB extends keyof JDB, Out>(
  query: ListQuery<string>,
  spec: ListSpec<FDB, FTB, FO, DB, TB, Row, S, JDB, JTB, Out>,
  from: SelectQueryBuilder<FDB, FTB, FO>,
) {
  return spec.counter && query.updated_since === undefined ? maintainedCount(spec.counter) : sql<number | string>`(${countQuery(from)})`;
}

/** Runs a page's statement, prepared per shape, with the total (when given) on every row. */
async function withTotal<DB, TB extends keyof DB, O>(rows: SelectQueryBuilder<DB, TB, O>, total: RawBuilder<number | string> | undefined): Promise<unknown[]> {
  const q: SelectQueryBuilder<DB, TB, unknown> = total ? rows.select(total.as(TOTAL)) : rows;
  return q.modifyEnd(sql.raw(PREPARE_MARK)).execute();
}

type WithTotal<R> = R & { [TOTAL]: number | string };

/** The total a page's rows carry; a page past the end has no row to carry it and counts again. */
async function totalIn<FDB, FTB extends keyof FDB, FO>(rows: readonly WithTotal<unknown>[], page: Page, from: SelectQueryBuilder<FDB, FTB, FO> | (() => Promise<number>)): Promise<number> {
  if (rows[0]) return Number(rows[0][TOTAL]);
  if (page.offset === 0) return 0;
  return typeof from === 'function' ? from() : countOf(from);
}

/**
 * A page of the keyset walk: `limit + 1` rows after the cursor's position (or at the page's offset
 * without one), the extra row only telling that more follow. Each row also carries its exact key as
 * text (keyset.ts), selected on the final query (after the late join, whose ordering names the same
 * columns) and stripped before the area maps the rows. The first page counts the total as usual; a page
 * after a cursor does not (that would cost the whole walk on every page).
 */
async function keysetPage<FDB, FTB extends keyof FDB, FO, DB, TB extends keyof DB, Row, S extends string, JDB, JTB extends keyof JDB, Out, T>(
  query: ListQuery<string>,
  cursor: string | undefined,
  spec: ListSpec<FDB, FTB, FO, DB, TB, Row, S, JDB, JTB, Out>,
  map: (rows: Out[]) => T[] | Promise<T[]>,
): Promise<ListPage<T>> {
  const page = pageOf(query);
  const { from, rows: ordered, order } = prepared(query, spec);
  const binding = bindingOf(from, query);
  const after = cursor === undefined ? undefined : decodeListCursor(binding, cursor);
  const u = refOf(spec.updatedAt);
  const id = refOf(spec.tieBreaker);
  // As in listPage: one prepared statement per shape, the limit literal so its generic plan reads limit + 1
  // rows — the same plan at the start and the end of a walk.
  const picked = (after ? ordered.where(afterPosition(u, id, after)) : atOffset(ordered, page.offset)).limit(sql.lit(page.limit + 1));
  const joined = spec.lateJoin ? order(spec.lateJoin(picked) as unknown as SelectQueryBuilder<DB, TB, Row>) : picked;
  const keyed = joined.select([keyText(u).as(KEY_U), sql<string>`${id}::text`.as(KEY_ID)]);
  const rows = (await withTotal(keyed, after ? undefined : totalOf(query, spec, from))) as WithTotal<Out & Record<typeof KEY_U | typeof KEY_ID, string>>[];
  const total = after ? undefined : await totalIn(rows, page, from);
  const more = rows.length > page.limit;
  const shown = rows.slice(0, page.limit);
  const last = shown.at(-1);
  const next: KeysetPosition | undefined = more && last ? { u: last[KEY_U], id: last[KEY_ID] } : undefined;
  const data = await map(shown.map(({ [KEY_U]: _u, [KEY_ID]: _id, [TOTAL]: _t, ...row }) => row as unknown as Out));
  const nextCursor = next && encodeListCursor(binding, next);
  if (total === undefined) return { data, pagination: { limit: page.limit, hasNext: more, hasPrev: true, ...(nextCursor ? { nextCursor } : {}) } };
  const first = paginated(data, total, page);
  return { data, pagination: { ...first.pagination, hasNext: more, ...(nextCursor ? { nextCursor } : {}) } };
}

/**
 * What a cursor of this list is bound to: the filtered query's SQL (which list, which filters are on) and
 * its parameters (the tenant, the caller's scope, the filters' values), plus the request's own parameters
 * but the paging ones. Instants are left out of the parameters: a filter relative to the request's time
 * (pending as of now, stalled since) moves with every page, and any instant a caller gave is in the query.
 */
function bindingOf<DB, TB extends keyof DB, O>(from: SelectQueryBuilder<DB, TB, O>, query: ListQuery<string>): string {
  const compiled = from.compile();
  const given = Object.entries(query).filter(([k, v]) => v !== undefined && !PAGING.has(k)).sort(([a], [b]) => (a < b ? -1 : 1));
  return listBinding([compiled.sql, compiled.parameters.filter((p) => !(p instanceof Date)), given]);
}

/** The parameters that move along a walk (or do not change its rows) rather than choose the list. */
const PAGING = new Set(['cursor', 'page', 'limit', 'order']);

function refOf(e: unknown): Expression<unknown> {
  return typeof e === 'string' ? sql.ref(e) : (e as Expression<unknown>);
}

/**
 * Every row of a list in the order its pages show (the sort validated, `updated_since` applied, the
 * tie-breaker last), neither paged nor late-joined: for walking the whole list a batch at a time (an
 * export sorted like the list).
 */
export function orderedRows<FDB, FTB extends keyof FDB, FO, DB, TB extends keyof DB, Row, S extends string, JDB, JTB extends keyof JDB, Out>(
  query: Omit<ListQuery<NoInfer<S> | typeof KEYSET_SORT>, 'page' | 'limit' | 'cursor'>,
  spec: ListSpec<FDB, FTB, FO, DB, TB, Row, S, JDB, JTB, Out>,
): SelectQueryBuilder<DB, TB, Row> {
  return prepared(query, spec).rows;
}

/**
 * The filtered total's query, the ordered rows, and the ordering (to apply again after a late join).
 * `updated_at` is a sort of every list: ascending unless `order` says otherwise, and in the keyset walk
 * ordered by the spec's `updatedAt` (the cursor's key) whatever the area declares for it.
 */
function prepared<FDB, FTB extends keyof FDB, FO, DB, TB extends keyof DB, Row, S extends string, JDB, JTB extends keyof JDB, Out>(
  query: Omit<ListQuery<string>, 'page' | 'limit' | 'cursor'>,
  spec: ListSpec<FDB, FTB, FO, DB, TB, Row, S, JDB, JTB, Out>,
) {
  const sort: string = query.sort ?? spec.defaultSort;
  const sorts = spec.sorts as Record<string, readonly SortTerm<OrderByExpression<DB, TB, Row>>[]>;
  if (!Object.hasOwn(sorts, sort) && sort !== KEYSET_SORT) throw validation('querystring.sort', `must be one of ${[...new Set([...Object.keys(sorts), KEYSET_SORT])].join(', ')}`);
  const dir = query.order ?? (sort === KEYSET_SORT ? 'asc' : spec.defaultOrder);
  const byKey = sort === KEYSET_SORT && (dir === 'asc' || !Object.hasOwn(sorts, sort));
  const terms = byKey ? [spec.updatedAt as unknown as OrderByExpression<DB, TB, Row>] : sorts[sort]!;
  let { from, page: rows } = spec;
  if (query.updated_since !== undefined) {
    const column = refOf(spec.updatedAt);
    const since = sql<boolean>`${column} >= ${new Date(query.updated_since)}`;
    from = from.where(since);
    rows = rows.where(since);
  }
  const order = (q: SelectQueryBuilder<DB, TB, Row>) => orderBy(q, terms, spec.tieBreaker, dir);
  return { from, rows: order(rows), order };
}

/**
 * The envelope of a list that is empty without asking the database (a filter that can match nothing).
 * A cursor's parameters are checked as for any list; the cursor itself has no rows to continue after.
 */
export function emptyPage(query: ListQuery<string>): ListPage<never> {
  const { cursor } = keysetOf(query);
  const page = pageOf(query);
  if (cursor !== undefined) return { data: [], pagination: { limit: page.limit, hasNext: false, hasPrev: true } };
  return paginated([], 0, page);
}

/** How an in-memory list walks by keyset: what its cursors are bound to, and each row's key. */
export interface ArrayKeyset<T> {
  /** The list and its filters (tenant, route, parameters): a cursor issued for other ones is a 400. */
  scope: unknown;
  /** The row's updated_at (ISO 8601 UTC) and its unique id. */
  key: (row: T) => { updatedAt: string; id: string };
}

/**
 * Pages rows already in memory (lists read from a provider, not a table), with the same envelope. With
 * `keyset`, an ascending `sort=updated_at` walks like a table's list: the rows sorted by (updated_at, id)
 * here, the cursor's position compared in memory.
 */
export function pageOfArray<T>(query: ListQuery<string>, rows: readonly T[], keyset?: ArrayKeyset<T>): ListPage<T> {
  const page: Page = pageOf(query);
  const mode = keysetOf(query);
  if (!mode.walk || !keyset) {
    if (mode.cursor !== undefined) throw validation('querystring.cursor', 'this list has no keyset walk');
    return paginated(rows.slice(page.offset, page.offset + page.limit), rows.length, page);
  }
  const keyed = rows.map((row) => ({ row, at: positionOf(keyset.key(row)) }));
  keyed.sort((a, b) => compare(a.at, b.at));
  const binding = listBinding(['memory', keyset.scope]);
  const after = mode.cursor === undefined ? undefined : decodeListCursor(binding, mode.cursor);
  const rest = after ? keyed.filter((k) => compare(k.at, after) > 0) : keyed.slice(page.offset);
  const shown = rest.slice(0, page.limit);
  const more = rest.length > page.limit;
  const last = shown.at(-1);
  const nextCursor = more && last ? encodeListCursor(binding, last.at) : undefined;
  const data = shown.map((k) => k.row);
  const extra = nextCursor ? { nextCursor } : {};
  if (after) return { data, pagination: { limit: page.limit, hasNext: more, hasPrev: true, ...extra } };
  return { data, pagination: { ...paginated(data, rows.length, page).pagination, hasNext: more, ...extra } };
}

/** An ISO timestamp with milliseconds as the cursor's microsecond form (in-memory rows have no more). */
function positionOf(key: { updatedAt: string; id: string }): KeysetPosition {
  return { u: new Date(key.updatedAt).toISOString().replace(/Z$/, '000Z'), id: key.id };
}

/** Both parts have one fixed-width format, so comparing the text is comparing the values. */
function compare(a: KeysetPosition, b: KeysetPosition): number {
  if (a.u !== b.u) return a.u < b.u ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
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
