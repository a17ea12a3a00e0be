import { afterEach, describe, expect, it, vi } from 'vitest';
import { TenantCache } from './tenant-cache.ts';

interface Value { tenant: string; v: number }

/** A loader that counts its calls and answers from `source` (what the database holds). */
function loader(source: Map<string, Value>) {
  const calls: string[] = [];
  return { calls, load: (key: string) => async () => { calls.push(key); return source.get(key); } };
}

afterEach(() => { vi.useRealTimers(); });

describe('TenantCache', () => {
  it('loads a key once and answers later calls from memory until the tenant is invalidated', async () => {
    const source = new Map([['a', { tenant: 't1', v: 1 }], ['b', { tenant: 't2', v: 1 }]]);
    const { calls, load } = loader(source);
    const cache = new TenantCache<Value>((x) => x.tenant);
    expect(await cache.get('a', load('a'))).toEqual({ tenant: 't1', v: 1 });
    expect(await cache.get('b', load('b'))).toEqual({ tenant: 't2', v: 1 });
    source.set('a', { tenant: 't1', v: 2 });
    source.set('b', { tenant: 't2', v: 2 });
    expect((await cache.get('a', load('a')))!.v).toBe(1);
    expect(calls).toEqual(['a', 'b']);

    cache.invalidateTenant('t1');
    expect((await cache.get('a', load('a')))!.v).toBe(2);
    // Another tenant's entries stay.
    expect((await cache.get('b', load('b')))!.v).toBe(1);
    expect(calls).toEqual(['a', 'b', 'a']);

    cache.clear();
    expect((await cache.get('b', load('b')))!.v).toBe(2);
    expect(calls).toEqual(['a', 'b', 'a', 'b']);
  });

  it('does not cache a miss: a key that appears later is found at once', async () => {
    const source = new Map<string, Value>();
    const { calls, load } = loader(source);
    const cache = new TenantCache<Value>((x) => x.tenant);
    expect(await cache.get('a', load('a'))).toBeUndefined();
    source.set('a', { tenant: 't1', v: 1 });
    expect(await cache.get('a', load('a'))).toEqual({ tenant: 't1', v: 1 });
    expect(calls).toEqual(['a', 'a']);
  });

  it('a load overtaken by an invalidation answers its caller but is not kept', async () => {
    const cache = new TenantCache<Value>((x) => x.tenant);
    let release!: () => void;
    const slow = cache.get('a', async () => {
      await new Promise<void>((r) => { release = r; });
      return { tenant: 't1', v: 1 }; // read before the change committed
    });
    await Promise.resolve();
    cache.invalidateTenant('t1'); // the change commits while the load is in flight
    release();
    expect(await slow).toEqual({ tenant: 't1', v: 1 });
    expect(await cache.get('a', async () => ({ tenant: 't1', v: 2 }))).toEqual({ tenant: 't1', v: 2 });
  });

  it('reloads an entry older than the TTL, and drops the oldest entry when full', async () => {
    vi.useFakeTimers();
    const source = new Map([['a', { tenant: 't', v: 1 }], ['b', { tenant: 't', v: 1 }], ['c', { tenant: 't', v: 1 }]]);
    const { calls, load } = loader(source);
    const cache = new TenantCache<Value>((x) => x.tenant, 1_000, 2);
    await cache.get('a', load('a'));
    vi.advanceTimersByTime(999);
    await cache.get('a', load('a'));
    expect(calls).toEqual(['a']);
    vi.advanceTimersByTime(1);
    await cache.get('a', load('a'));
    expect(calls).toEqual(['a', 'a']);

    await cache.get('b', load('b'));
    await cache.get('c', load('c')); // full at two: 'a' goes
    await cache.get('b', load('b'));
    await cache.get('a', load('a'));
    expect(calls).toEqual(['a', 'a', 'b', 'c', 'a']);
  });
});
