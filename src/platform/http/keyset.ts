import { sql, type Expression, type RawBuilder } from 'kysely';
import { validation } from './errors.ts';
import type { PageQuery } from './pagination.ts';

/**
 * Keyset walking of a list, for sync: `sort=updated_at` pages ascending by updated_at, then the list's
 * tie-breaker. Every page that has rows after it carries `pagination.nextCursor`; a request with
 * `cursor` starts right after that position (a range condition, no offset, no count), so every page costs
 * the same however deep the walk is. A row updated during a walk moves to the end (its new updated_at is
 * after the position) and shows up again there; no other row is skipped or repeated.
 */
export const KEYSET_SORT = 'updated_at';

/** The helper columns carrying the exact key of each row (stripped before the area maps the rows). */
export const KEY_U = '__keyset_u';
export const KEY_ID = '__keyset_id';

export interface Keyset {
  /** The query pages in keyset order (sort=updated_at, ascending): its pages carry nextCursor. */
  walk: boolean;
  /** The cursor to continue after, already checked against the other parameters (not yet verified). */
  cursor?: string;
}

/**
 * The keyset mode of a list query, with the combinations that make no sense rejected as 400s: a cursor
 * continues an ascending `sort=updated_at` walk and is its own position, so it excludes another sort,
 * `order=desc` and a `page` beyond the first.
 */
export function keysetOf(query: PageQuery & { sort?: string; cursor?: string }): Keyset {
  const walk = query.sort === KEYSET_SORT && (query.order ?? 'asc') === 'asc';
  if (query.cursor === undefined) return { walk };
  if (query.sort !== KEYSET_SORT) throw validation('querystring.cursor', `a cursor continues a sort=${KEYSET_SORT} walk: pass sort=${KEYSET_SORT} with it`);
  if (!walk) throw validation('querystring.order', 'a cursor walks ascending: leave order out or pass order=asc');
  if ((query.page ?? 1) !== 1) throw validation('querystring.page', 'cursor and page exclude each other: the cursor is the position');
  return { walk, cursor: query.cursor };
}

/**
 * The exact key of a row as text: updated_at in UTC with its microseconds (a JS Date would round them
 * to milliseconds, and a cursor off by a microsecond would repeat or skip rows), the same text on
 * PostgreSQL and PGlite whatever the session's time zone or DateStyle.
 */
export function keyText(updatedAt: Expression<unknown>): RawBuilder<string> {
  return sql<string>`to_char(${updatedAt} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
}

/**
 * Rows after a position in (updated_at, tie-breaker) order. One row comparison, so an index on
 * (tenant, updated_at, id) serves it as a range scan; the id parameter takes the tie-breaker's type.
 */
export function afterPosition(updatedAt: Expression<unknown>, tieBreaker: Expression<unknown>, at: { u: string; id: string }): RawBuilder<boolean> {
  return sql<boolean>`(${updatedAt}, ${tieBreaker}) > (${at.u}::timestamptz, ${at.id})`;
}
