import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { AppError } from '../http/errors.ts';
import type { BucketStore, Limit, TakeResult } from '../http/rate-limit/token-bucket.ts';
import { hashApiKey, KEY_RE } from './api-key-secret.ts';
import { requirePermission, type Actor } from './context.ts';
import type { KeyCache, KeyRecord } from './key-cache.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Permission(s) the route needs, all of them; null = any valid API key. */
    permission?: string | readonly string[] | null;
    /** Route needs no API key (health, docs, public receivers). */
    public?: boolean;
  }
  interface FastifyRequest {
    actor: Actor;
  }
}

export interface AuthHookDeps {
  db: Kysely<DB>;
  keyCache: KeyCache;
  buckets: BucketStore;
  defaultLimit: Limit;
  authFailureLimit: Limit;
}

const LAST_USED_EVERY_MS = 60_000;

function rateLimited(r: TakeResult): AppError {
  const seconds = Math.max(1, Math.ceil(r.retryAfterMs / 1000));
  return new AppError('RATE_LIMITED', `Rate limit exceeded; retry in ${seconds} s`, { retry_after_ms: r.retryAfterMs }, { 'Retry-After': String(seconds) });
}

function setRateHeaders(reply: FastifyReply, limit: Limit, r: TakeResult): void {
  reply.headers({
    'RateLimit-Limit': String(limit.burst),
    'RateLimit-Remaining': String(r.remaining),
    'RateLimit-Reset': String(Math.ceil(r.resetMs / 1000)),
    'X-RateLimit-Limit': String(limit.burst),
    'X-RateLimit-Remaining': String(r.remaining),
  });
}

/**
 * The request pipeline for every non-public route, before the body is even parsed:
 * API key → actor (cached) → rate limit → the route's declared permission.
 */
export function registerAuthHook(app: FastifyInstance, deps: AuthHookDeps): void {
  app.decorateRequest('actor', null as unknown as Actor);

  const touchLastUsed = (request: FastifyRequest, record: KeyRecord) => {
    const now = Date.now();
    if (record.lastUsedAt !== null && now - record.lastUsedAt < LAST_USED_EVERY_MS) return;
    record.lastUsedAt = now;
    const { tenant, apiKeyId } = record.actor;
    // Off the request path; the WHERE clause keeps the once-a-minute rule across processes too.
    deps.db
      .updateTable('api_keys')
      .set({ last_used_at: new Date(now) })
      .where('tenant', '=', tenant)
      .where('api_key_id', '=', apiKeyId)
      .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', new Date(now - LAST_USED_EVERY_MS))]))
      .execute()
      .catch((err) => request.log.warn({ err }, 'could not record api key use'));
  };

  // A rate-limit store outage (Redis down) must not take the API down with it: fail open, loudly.
  const take = async (request: FastifyRequest, key: string, limit: Limit): Promise<TakeResult | undefined> => {
    try {
      return await deps.buckets.take(key, limit);
    } catch (err) {
      request.log.error({ err }, 'rate-limit store unavailable; request not limited');
      return undefined;
    }
  };

  app.addHook('onRequest', async (request, reply) => {
    if (!request.routeOptions.url) return; // unknown route: the not-found handler answers
    const config = request.routeOptions.config;
    if (config.public) return;

    const header = request.headers['x-api-key'];
    const key = typeof header === 'string' ? header.trim() : undefined;
    let record = key && KEY_RE.test(key) ? await deps.keyCache.resolve(hashApiKey(key)) : undefined;
    if (record && record.expiresAt !== null && record.expiresAt <= Date.now()) record = undefined;
    if (!record) {
      const r = await take(request, `authfail:${request.ip}`, deps.authFailureLimit);
      if (r && !r.allowed) throw rateLimited(r);
      throw new AppError('UNAUTHORIZED', key ? 'The API key is invalid, expired or revoked' : 'Send an API key in the X-API-Key header');
    }

    request.actor = record.actor;
    // Adds to the request's own child logger (cheaper than another child per request).
    (request.log as { setBindings?: (b: object) => void }).setBindings?.({ tenant: record.actor.tenant, user_id: record.actor.userId });
    const limit = record.rateLimit ?? deps.defaultLimit;
    const r = await take(request, `key:${record.actor.apiKeyId}`, limit);
    if (r) {
      setRateHeaders(reply, limit, r);
      if (!r.allowed) throw rateLimited(r);
    }
    touchLastUsed(request, record);

    const needed = config.permission;
    if (needed) requirePermission(record.actor, ...(typeof needed === 'string' ? [needed] : needed));
  });
}
