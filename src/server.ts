import { createRequire } from 'node:module';
import type { Redis } from 'ioredis';
import { buildApp, type App } from './app.ts';
import type { Config } from './config.ts';
import type { Database } from './platform/db/database.ts';
import { MemoryBucketStore, RedisBucketStore, type BucketStore } from './platform/http/rate-limit/token-bucket.ts';

/** Memory buckets for one process; Redis buckets (shared, atomic) when REDIS_URL is set. */
export function bucketStoreFor(config: Readonly<Config>): BucketStore {
  if (!config.redisUrl) return new MemoryBucketStore();
  // Commands wait briefly for a (re)connection, then fail; the auth hook then lets the request through
  // and logs the outage rather than taking the API down with Redis.
  // ioredis is loaded only when REDIS_URL is set (~15 MB resident otherwise unused).
  const { Redis: RedisClient } = createRequire(import.meta.url)('ioredis') as { Redis: typeof Redis };
  const redis = new RedisClient(config.redisUrl, { maxRetriesPerRequest: 1, commandTimeout: 1000 });
  redis.on('error', () => undefined);
  return new RedisBucketStore(redis);
}

export async function startServer(config: Readonly<Config>, database: Database): Promise<App> {
  const app = await buildApp({ config, database, buckets: bucketStoreFor(config) });
  await app.listen({ host: config.host, port: config.port });
  return app;
}
