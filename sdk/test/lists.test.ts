import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { paginate, walk, type ListItem } from '../src/index.ts';
import { spyFetch, startServer, uniqueWord, type LiveServer } from './server-kit.ts';

let server: LiveServer;
let prefix: string;
let ids: string[];

beforeAll(async () => {
  server = await startServer();
  prefix = uniqueWord('Page');
  ids = [];
  // One at a time, so that updated_at (the keyset) follows creation order.
  for (let i = 0; i < 30; i++) {
    const { data } = await server.client().POST('/api/v1/clients', { body: { client_name: `${prefix} ${String(i).padStart(2, '0')}`, billing_cycle: 'monthly' } });
    ids.push(data.data.client_id);
  }
});
afterAll(async () => server?.close());

const collect = async <T>(items: AsyncIterable<T>): Promise<T[]> => {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
};

describe('paginate (page numbers)', () => {
  it('yields every item of every page while hasNext, with the filters on each page', async () => {
    const { fetch, calls } = spyFetch();
    const items = await collect(paginate(server.client({ fetch }), '/api/v1/clients', { params: { query: { search: prefix, limit: 10, sort: 'client_name' } } }));
    expect(items.map((c) => c.client_id)).toEqual(ids);
    expectTypeOf(items).toEqualTypeOf<ListItem<'/api/v1/clients'>[]>();
    expectTypeOf(items[0]!.client_name).toEqualTypeOf<string>();
    expect(calls.map((c) => new URL(c.url).searchParams.get('page'))).toEqual(['1', '2', '3']);
    expect(calls.every((c) => new URL(c.url).searchParams.get('search') === prefix)).toBe(true);
  });

  it('starts at the given page and asks for 100 rows a page by default', async () => {
    const { fetch, calls } = spyFetch();
    const fromSecond = await collect(paginate(server.client({ fetch }), '/api/v1/clients', { params: { query: { search: prefix, limit: 10, page: 2, sort: 'client_name' } } }));
    expect(fromSecond.map((c) => c.client_id)).toEqual(ids.slice(10));
    const whole = await collect(paginate(server.client({ fetch }), '/api/v1/clients', { params: { query: { search: prefix } } }));
    expect(whole).toHaveLength(30);
    expect(new URL(calls.at(-1)!.url).searchParams.get('limit')).toBe('100');
    expect(calls).toHaveLength(3);
  });

  it('yields nothing for an empty list', async () => {
    expect(await collect(paginate(server.client(), '/api/v1/clients', { params: { query: { search: uniqueWord('none') } } }))).toEqual([]);
  });
});

describe('walk (keyset)', () => {
  it('follows nextCursor with sort=updated_at, each row once, in updated_at order', async () => {
    const { fetch, calls } = spyFetch();
    const items = await collect(walk(server.client({ fetch }), '/api/v1/clients', { params: { query: { search: prefix, limit: 10 } } }));
    expect(items.map((c) => c.client_id)).toEqual(ids);
    expect(new Set(items.map((c) => c.client_id)).size).toBe(30);
    const queries = calls.map((c) => new URL(c.url).searchParams);
    expect(queries).toHaveLength(3);
    expect(queries.every((q) => q.get('sort') === 'updated_at' && q.get('limit') === '10' && q.get('search') === prefix && !q.has('page'))).toBe(true);
    expect(queries.map((q) => q.has('cursor'))).toEqual([false, true, true]);
  });

  it('ignores page, order and cursor in the given query', async () => {
    const items = await collect(walk(server.client(), '/api/v1/clients', { params: { query: { search: prefix, limit: 7, page: 3, order: 'desc', cursor: 'stale', sort: 'client_name' } } }));
    expect(items.map((c) => c.client_id)).toEqual(ids);
  });

  it('sees a row changed during the walk again, later, and skips none', async () => {
    const psa = server.client();
    const seen: string[] = [];
    for await (const client of walk(psa, '/api/v1/clients', { params: { query: { search: prefix, limit: 10 } } })) {
      seen.push(client.client_id);
      if (seen.length === 1) {
        await psa.PUT('/api/v1/clients/{id}', { params: { path: { id: client.client_id } }, body: { payment_terms: 'net 30' } });
      }
    }
    expect(seen).toEqual([...ids, ids[0]]);
  });
});
