import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../harness.ts';
import { apiFor, makeTenant, makeUser } from '../factories.ts';
import { RedisBucketStore } from '../../src/platform/http/rate-limit/token-bucket.ts';
import { bucketStoreFor } from '../../src/server.ts';
import { loadConfig } from '../../src/config.ts';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

describe('rate limiting per API key (memory store)', () => {
  let t: TestApp;
  beforeAll(async () => { t = await buildTestApp({ env: { PSA_RATE_LIMIT_BURST: '3', PSA_RATE_LIMIT_PER_MINUTE: '60' } }); });
  afterAll(async () => t.close());

  it('sends RateLimit headers and answers 429 with Retry-After once the burst is spent', async () => {
    const { admin } = await makeTenant(t);
    const first = await admin.get('/api/v1/countries');
    expect(first.headers['ratelimit-limit']).toBe('3');
    expect(first.headers['ratelimit-remaining']).toBe('2');
    expect(first.headers['x-ratelimit-limit']).toBe('3');
    expect(first.headers['x-ratelimit-remaining']).toBe('2');
    expect(Number(first.headers['ratelimit-reset'])).toBeGreaterThanOrEqual(1);
    await admin.get('/api/v1/countries');
    await admin.get('/api/v1/countries');
    const limited = await admin.get('/api/v1/countries');
    expect(limited.statusCode, limited.body).toBe(429);
    expect(limited.json().error.code).toBe('RATE_LIMITED');
    expect(limited.json().error.details.retry_after_ms).toBeGreaterThan(0);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(limited.headers['ratelimit-remaining']).toBe('0');
  });

  it('keys have separate buckets', async () => {
    const { tenant, admin } = await makeTenant(t);
    for (let i = 0; i < 3; i++) await admin.get('/api/v1/countries');
    expect((await admin.get('/api/v1/countries')).statusCode).toBe(429);
    const other = await makeUser(t, tenant, { role: 'Viewer' });
    expect((await other.api.get('/api/v1/countries')).statusCode).toBe(200);
  });

  it('a key with its own rate_limit uses it instead of the default', async () => {
    const { tenant } = await makeTenant(t);
    const generous = await makeUser(t, tenant, { role: 'Viewer', rateLimit: { burst: 10, per_minute: 60 } });
    const statuses = [];
    for (let i = 0; i < 11; i++) statuses.push((await generous.api.get('/api/v1/countries')).statusCode);
    expect(statuses.filter((s) => s === 200)).toHaveLength(10);
    expect(statuses[10]).toBe(429);
  });

  it('an admin sets a per-key limit through the API and it applies at once', async () => {
    const { admin, adminUserId } = await makeTenant(t);
    const res = await admin.post('/api/v1/api-keys', { name: 'tight', user_id: adminUserId, rate_limit: { burst: 1, per_minute: 1 } });
    expect(res.statusCode, res.body).toBe(201);
    const tight = apiFor(t, res.json().data.api_key);
    expect((await tight.get('/api/v1/countries')).statusCode).toBe(200);
    const second = await tight.get('/api/v1/countries');
    expect(second.statusCode).toBe(429);
    expect(Number(second.headers['retry-after'])).toBeGreaterThan(50);
  });
});

describe('rate limiting shared through Redis', () => {
  let one: TestApp;
  let two: TestApp;
  beforeAll(async () => {
    const env = { PSA_RATE_LIMIT_BURST: '4', PSA_RATE_LIMIT_PER_MINUTE: '60' };
    const prefix = `psa:test:${process.pid}:${Date.now()}:`;
    one = await buildTestApp({ env, buckets: new RedisBucketStore(new Redis(REDIS_URL), prefix) });
    // A second api "process" on the same database and the same Redis.
    two = await buildTestApp({ env, buckets: new RedisBucketStore(new Redis(REDIS_URL), prefix), database: one.database });
  });
  afterAll(async () => {
    await two.close();
    await one.close();
  });

  it('two api instances draw from one bucket per key', async () => {
    const { admin } = await makeTenant(one);
    const viaOne = apiFor(one, admin.key);
    const viaTwo = apiFor(two, admin.key);
    const statuses = [];
    for (let i = 0; i < 6; i++) statuses.push((await (i % 2 ? viaTwo : viaOne).get('/api/v1/countries')).statusCode);
    expect(statuses).toEqual([200, 200, 200, 200, 429, 429]);
  });

  it('REDIS_URL selects the Redis store', async () => {
    const store = bucketStoreFor(loadConfig({ REDIS_URL }));
    expect(store).toBeInstanceOf(RedisBucketStore);
    const r = await store.take(`psa:test:select:${process.pid}:${Date.now()}`, { burst: 1, perMinute: 1 });
    expect(r.allowed).toBe(true);
    await store.close();
  });

  it('a Redis outage fails open: requests are served, not rejected', async () => {
    const dead = new Redis('redis://127.0.0.1:1', { maxRetriesPerRequest: 0, commandTimeout: 200, retryStrategy: () => null, lazyConnect: true });
    dead.on('error', () => undefined);
    const t = await buildTestApp({ buckets: new RedisBucketStore(dead), database: one.database });
    try {
      const { admin } = await makeTenant(t);
      const res = await admin.get('/api/v1/countries');
      expect(res.statusCode, res.body).toBe(200);
      expect(res.headers['ratelimit-limit']).toBeUndefined();
    } finally {
      await t.close();
    }
  });
});
