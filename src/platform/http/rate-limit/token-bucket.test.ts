import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { MemoryBucketStore, RedisBucketStore, type BucketStore } from './token-bucket.ts';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const limit = { burst: 5, perMinute: 60 }; // one token per second

async function drain(store: BucketStore, key: string, n: number) {
  const results = [];
  for (let i = 0; i < n; i++) results.push(await store.take(key, limit));
  return results;
}

describe('MemoryBucketStore', () => {
  it('allows the burst, then refuses with the time to the next token', async () => {
    const store = new MemoryBucketStore();
    const results = await drain(store, 'k', 6);
    expect(results.map((r) => r.allowed)).toEqual([true, true, true, true, true, false]);
    expect(results.map((r) => r.remaining)).toEqual([4, 3, 2, 1, 0, 0]);
    expect(results[5]!.retryAfterMs).toBeGreaterThan(900);
    expect(results[5]!.retryAfterMs).toBeLessThanOrEqual(1000);
  });

  it('refills continuously at the sustained rate', async () => {
    vi.useFakeTimers();
    try {
      const store = new MemoryBucketStore();
      await drain(store, 'k', 5);
      expect((await store.take('k', limit)).allowed).toBe(false);
      vi.advanceTimersByTime(2000);
      expect((await drain(store, 'k', 3)).map((r) => r.allowed)).toEqual([true, true, false]);
      vi.advanceTimersByTime(60_000);
      const full = await store.take('k', limit);
      expect(full.remaining).toBe(4); // capped at the burst
    } finally {
      vi.useRealTimers();
    }
  });

  it('keeps buckets apart per key', async () => {
    const store = new MemoryBucketStore();
    await drain(store, 'a', 5);
    expect((await store.take('a', limit)).allowed).toBe(false);
    expect((await store.take('b', limit)).allowed).toBe(true);
  });
});

describe('RedisBucketStore (against the Redis server)', () => {
  let one: Redis;
  let two: Redis;
  const prefix = `psa:test:${process.pid}:${Date.now()}:`;
  beforeAll(() => {
    one = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
    two = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  });
  afterAll(async () => {
    const keys = await one.keys(`${prefix}*`);
    if (keys.length) await one.del(...keys);
    one.disconnect();
    two.disconnect();
  });

  it('shares one bucket between processes (two connections), atomically', async () => {
    const a = new RedisBucketStore(one, prefix);
    const b = new RedisBucketStore(two, prefix);
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => (i % 2 ? a : b).take('shared', limit)));
    expect(results.filter((r) => r.allowed)).toHaveLength(5);
    const refused = results.find((r) => !r.allowed)!;
    expect(refused.retryAfterMs).toBeGreaterThan(0);
  });

  it('refills at the sustained rate and expires idle buckets', async () => {
    const store = new RedisBucketStore(one, prefix);
    const fast = { burst: 2, perMinute: 600 }; // one token per 100 ms
    await store.take('refill', fast);
    await store.take('refill', fast);
    expect((await store.take('refill', fast)).allowed).toBe(false);
    await new Promise((r) => setTimeout(r, 250));
    expect((await store.take('refill', fast)).allowed).toBe(true);
    const ttl = await one.pttl(`${prefix}refill`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(1000 + 200);
  });
});
