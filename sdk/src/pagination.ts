/**
 * Iterating the API's lists. Every list answers `{ data: [...], pagination: {...} }` and can be read two ways:
 * by page number (`paginate`: page/limit, follows `hasNext`) or by keyset (`walk`: `sort=updated_at` plus
 * the opaque `cursor`, follows `nextCursor`). A keyset walk costs the same per page however deep it goes
 * and skips no row when rows change during it (a changed row shows up again later), so it is the one to
 * sync with; page numbers suit a bounded listing.
 */
import type { MaybeOptionalInit } from 'openapi-fetch';
import type { PathsWith, PsaClient, ResponseBody } from './client.ts';
import type { paths } from './schema.d.ts';

/** The `pagination` object of every list, as the document describes it. */
export type Pagination = ResponseBody<'/api/v1/tickets'>['pagination'];

/** The GET paths that answer with the list envelope. */
export type ListPath = {
  [P in PathsWith<'get'>]: ResponseBody<P> extends { data: unknown[]; pagination: unknown } ? P : never;
}[PathsWith<'get'>];

/** The item type of a list path (e.g. `ListItem<'/api/v1/tickets'>`). */
export type ListItem<P extends ListPath> = ResponseBody<P> extends { data: (infer I)[] } ? I : never;

type ListInit<P extends ListPath> = MaybeOptionalInit<paths[P], 'get'>;
type ListInitParam<P extends ListPath> = undefined extends ListInit<P> ? [ListInit<P>?] : [ListInit<P>];

interface LooseInit {
  params?: { query?: Record<string, unknown>; path?: Record<string, unknown> };
  [key: string]: unknown;
}

/** One page, called without the generics (the public signatures carry the types). */
async function fetchPage(client: PsaClient, path: string, init: LooseInit, query: Record<string, unknown>) {
  const get = client.GET as unknown as (path: string, init: LooseInit) => Promise<{ data: { data: unknown[]; pagination: Pagination } }>;
  const { data } = await get(path, { ...init, params: { ...init.params, query: { ...init.params?.query, ...query } } });
  return data;
}

/**
 * Every item of an offset-paged list, page after page while `hasNext` is true. Starts at the given
 * `page` (default 1); `limit` defaults to 100, the largest page, to make the fewest requests.
 */
export async function* paginate<P extends ListPath>(client: PsaClient, path: P, ...[init]: ListInitParam<P>): AsyncGenerator<ListItem<P>, void, undefined> {
  const loose = (init ?? {}) as LooseInit;
  let page = Number(loose.params?.query?.page ?? 1);
  const limit = loose.params?.query?.limit ?? 100;
  for (;;) {
    const body = await fetchPage(client, path, loose, { page, limit });
    yield* body.data as ListItem<P>[];
    if (!body.pagination.hasNext) return;
    page += 1;
  }
}

/**
 * Every item of a list by keyset: asks for `sort=updated_at` (ascending) and follows
 * `pagination.nextCursor` until a page has none. `page`, `order` and `cursor` in the given query are
 * ignored (a keyset walk takes none of them); filters and `limit` (default 100) apply to every page.
 */
export async function* walk<P extends ListPath>(client: PsaClient, path: P, ...[init]: ListInitParam<P>): AsyncGenerator<ListItem<P>, void, undefined> {
  const loose = (init ?? {}) as LooseInit;
  const { page: _page, order: _order, cursor: _cursor, ...filters } = loose.params?.query ?? {};
  const base: LooseInit = { ...loose, params: { ...loose.params, query: filters } };
  let cursor: string | undefined;
  for (;;) {
    const body = await fetchPage(client, path, base, { sort: 'updated_at', limit: filters.limit ?? 100, cursor });
    yield* body.data as ListItem<P>[];
    const next = body.pagination.nextCursor;
    if (typeof next !== 'string' || next === '') return;
    cursor = next;
  }
}
