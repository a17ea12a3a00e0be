import type { Redis } from 'ioredis';

/**
 * Token buckets: `burst` tokens at most, refilled continuously at `perMinute` per minute, one token per
 * request. rate-limiter-flexible (the library ARCHITECTURE.md names) offers fixed windows, which cannot
 * express "burst 120, then 60 per minute" exactly, so the bucket is implemented here: a few lines in
 * memory, and one Lua script in Redis so that take() is atomic across api processes.
 */
export interface Limit {
  burst: number;
  perMinute: number;
}

export interface TakeResult {
  allowed: boolean;
  /** Whole tokens left after this request. */
  remaining: number;
  /** Milliseconds until the next token (0 when one is available). */
  retryAfterMs: number;
  /** Milliseconds until the bucket is full again. */
  resetMs: number;
}

export interface BucketStore {
  take(key: string, limit: Limit): Promise<TakeResult>;
  close(): Promise<void>;
}

function outcome(tokens: number, allowed: boolean, limit: Limit): TakeResult {
  const perMs = limit.perMinute / 60_000;
  return {
    allowed,
    remaining: Math.max(0, Math.floor(tokens)),
    retryAfterMs: allowed ? 0 : Math.ceil((1 - tokens) / perMs),
    resetMs: Math.ceil((limit.burst - tokens) / perMs),
  };
}

export class MemoryBucketStore implements BucketStore {
  private buckets = new Map<string, { tokens: number; at: number }>();

  async take(key: string, limit: Limit): Promise<TakeResult> {
    const now = Date.now();
    const perMs = limit.perMinute / 60_000;
    const b = this.buckets.get(key);
    let tokens = b ? Math.min(limit.burst, b.tokens + (now - b.at) * perMs) : limit.burst;
    const allowed = tokens >= 1;
    if (allowed) tokens -= 1;
    if (!b && this.buckets.size > 100_000) this.sweep(now, perMs, limit.burst);
    this.buckets.set(key, { tokens, at: now });
    return outcome(tokens, allowed, limit);
  }

  /** Forgets buckets that have refilled completely; they are equivalent to absent ones. */
  private sweep(now: number, perMs: number, burst: number): void {
    for (const [k, v] of this.buckets) if (v.tokens + (now - v.at) * perMs >= burst) this.buckets.delete(k);
  }

  async close(): Promise<void> {
    this.buckets.clear();
  }
}

// Redis TIME keeps every api process on one clock. Tokens travel as strings: Lua numbers returned
// as integer replies would be truncated.
const TAKE_SCRIPT = `
local burst = tonumber(ARGV[1])
local per_ms = tonumber(ARGV[2]) / 60000
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local state = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(state[1])
local at = tonumber(state[2])
if tokens == nil or at == nil then tokens = burst at = now end
tokens = math.min(burst, tokens + math.max(0, now - at) * per_ms)
local allowed = 0
if tokens >= 1 then tokens = tokens - 1 allowed = 1 end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.ceil((burst - tokens) / per_ms) + 1000)
return { allowed, tostring(tokens) }
`;

type RedisWithTake = Redis & {
  psaTakeToken(key: string, burst: number, perMinute: number): Promise<[number, string]>;
};

export class RedisBucketStore implements BucketStore {
  private readonly redis: RedisWithTake;

  constructor(redis: Redis, private readonly prefix = 'psa:rl:') {
    redis.defineCommand('psaTakeToken', { numberOfKeys: 1, lua: TAKE_SCRIPT });
    this.redis = redis as RedisWithTake;
  }

  async take(key: string, limit: Limit): Promise<TakeResult> {
    const [allowed, tokens] = await this.redis.psaTakeToken(this.prefix + key, limit.burst, limit.perMinute);
    return outcome(Number(tokens), allowed === 1, limit);
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => undefined);
  }
}
