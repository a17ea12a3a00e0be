import { performance } from 'node:perf_hooks';
import type { FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { SecretBox } from '../../platform/crypto/secret-box.ts';
import type { DB, InboundDispatchStatus } from '../../platform/db/schema.ts';
import { AppError } from '../../platform/http/errors.ts';
import type { BucketStore, Limit, TakeResult } from '../../platform/http/rate-limit/token-bucket.ts';
import { newId } from '../../platform/ids.ts';
import { clientIp, generateSecret, verifyAgainstNothing, verifyCredentials, type AuthFailure, type AuthSettings, type RequestCredentials } from './auth.ts';
import { insertDelivery } from './deliveries/deliveries.repo.ts';
import type { Dispatcher } from './dispatch.ts';
import { nestsDeeper } from './expressions.ts';
import { captureSample } from './inbound-webhooks.repo.ts';
import type { ReceiverConfigs } from './receiver-configs.ts';
import { filterHeaders, redactedPath } from './request-meta.ts';

/** Deepest nesting of a body the receiver accepts (mappings and records stay safe to walk). */
const MAX_BODY_DEPTH = 64;
const utf8 = new TextDecoder('utf-8', { fatal: true });

export interface ReceiverDeps {
  db: Kysely<DB>;
  /** The configurations by slug, cached (the lookup every delivery starts with). */
  configs: ReceiverConfigs;
  secretBox: SecretBox;
  buckets: BucketStore;
  dispatch: Dispatcher;
  trustProxy: boolean;
  /** Refused requests allowed per client IP (the API-key hook's budget for failed keys). */
  authFailureLimit: Limit;
}

export interface ReceiverReply {
  statusCode: number;
  body: Record<string, unknown>;
}

function rateLimited(r: TakeResult, message: string, details: Record<string, unknown> = {}): AppError {
  const seconds = Math.max(1, Math.ceil(r.retryAfterMs / 1000));
  return new AppError('RATE_LIMITED', `${message}; retry in ${seconds} s`, { ...details, retry_after_ms: r.retryAfterMs }, { 'Retry-After': String(seconds) });
}

/**
 * The public receiver: POST /api/inbound/{tenantSlug}/{webhookSlug}.
 *
 * Order: authenticate (unknown slugs do the same work and answer 404; failures are only counted per
 * client IP and logged — no delivery row) → the webhook's rate limit → parse the JSON → capture a
 * sample if one is pending → refuse if inactive → idempotency and the handler (dispatch.ts).
 */
export function createReceiver(deps: ReceiverDeps) {
  const { db, secretBox, buckets, dispatch } = deps;
  // Decrypted on the unknown-webhook path too, so a known slug costs no more than an unknown one.
  const sealedDummy = secretBox.encrypt(generateSecret());

  const take = async (request: FastifyRequest, key: string, limit: Limit): Promise<TakeResult | undefined> => {
    try {
      return await buckets.take(key, limit);
    } catch (err) {
      request.log.error({ err }, 'rate-limit store unavailable; request not limited');
      return undefined;
    }
  };

  async function refuse(request: FastifyRequest, ip: string | null, reason: AuthFailure | 'unknown_webhook', code: 'UNAUTHORIZED' | 'NOT_FOUND'): Promise<never> {
    const r = await take(request, `authfail:${ip ?? 'unknown'}`, deps.authFailureLimit);
    // Over the budget an address is only counted: a flood cannot flood the logs either.
    if (r && !r.allowed) throw rateLimited(r, 'Too many refused requests from this address');
    const { tenantSlug, webhookSlug } = request.params as { tenantSlug: string; webhookSlug: string };
    request.log.warn({ inbound: { tenant_slug: tenantSlug, webhook_slug: webhookSlug, reason, source_ip: ip } }, 'inbound webhook request refused');
    throw code === 'NOT_FOUND' ? new AppError('NOT_FOUND', 'No such inbound webhook') : new AppError('UNAUTHORIZED', 'Unauthorized');
  }

  /** A delivery that ends before its handler runs (rate limited, unreadable, inactive). */
  async function refused(
    base: Omit<Parameters<typeof insertDelivery>[1], 'dispatch_status'>,
    status: InboundDispatchStatus,
    error: AppError,
    startedAt: number,
  ): Promise<never> {
    const body = { error: { code: error.code, message: error.message, details: error.details } };
    await insertDelivery(db, {
      ...base,
      dispatch_status: status,
      handler_outcome: JSON.stringify({ error: error.code, message: error.message }),
      response_status: error.statusCode,
      response_body: JSON.stringify(body),
      duration_ms: Math.max(0, Math.round(performance.now() - startedAt)),
      completed_at: new Date(),
    });
    throw error;
  }

  return async function receive(request: FastifyRequest): Promise<ReceiverReply> {
    const startedAt = performance.now();
    const receivedAt = new Date();
    const { tenantSlug, webhookSlug } = request.params as { tenantSlug: string; webhookSlug: string };
    const ip = clientIp(request, deps.trustProxy);
    const rawBody = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
    const credentials: RequestCredentials = { headers: request.headers, query: request.query as Record<string, unknown>, rawBody, sourceIp: ip };

    const webhook = await deps.configs.find(tenantSlug, webhookSlug);
    if (!webhook) {
      secretBox.decrypt(sealedDummy);
      verifyAgainstNothing(credentials);
      return refuse(request, ip, 'unknown_webhook', 'NOT_FOUND');
    }
    const secret = webhook.secret_enc === null ? null : secretBox.decrypt(webhook.secret_enc);
    const settings = webhook.auth_config as AuthSettings;
    const failure = verifyCredentials({ auth_type: webhook.auth_type, auth_config: settings, secret }, credentials);
    if (failure) return refuse(request, ip, failure, 'UNAUTHORIZED');

    // Authenticated from here on: the request is recorded.
    const headers = filterHeaders(request.headers, webhook.auth_type === 'hmac_sha256' ? [settings.signature_header ?? ''] : []);
    const deliveryId = newId();
    const base = {
      tenant: webhook.tenant,
      delivery_id: deliveryId,
      inbound_webhook_id: webhook.inbound_webhook_id,
      received_at: receivedAt,
      request_method: request.method,
      request_path: redactedPath(request.url, webhook.auth_type === 'path_token' ? settings.query_param : undefined),
      request_headers: JSON.stringify(headers),
      request_body: null,
      request_body_bytes: rawBody.length,
      source_ip: ip,
      user_agent: headers['user-agent'] ?? null,
      idempotency_key: null,
      auth_status: 'verified' as const,
      handler_type: webhook.handler_type,
    };

    const limit = { burst: webhook.rate_limit_per_minute, perMinute: webhook.rate_limit_per_minute };
    const r = await take(request, `inbound:${webhook.tenant}:${webhook.inbound_webhook_id}`, limit);
    if (r && !r.allowed) {
      return refused(base, 'rate_limited', rateLimited(r, `This webhook accepts ${webhook.rate_limit_per_minute} requests per minute`, { delivery_id: deliveryId }), startedAt);
    }

    let text: string;
    let body: unknown;
    try {
      text = utf8.decode(rawBody);
      body = JSON.parse(text);
    } catch {
      return refused(base, 'rejected', new AppError('BAD_REQUEST', 'The request body is not valid UTF-8 JSON', { delivery_id: deliveryId }), startedAt);
    }
    if (nestsDeeper(body, MAX_BODY_DEPTH)) {
      return refused(base, 'rejected', new AppError('BAD_REQUEST', `The request body nests deeper than ${MAX_BODY_DEPTH} levels`, { delivery_id: deliveryId }), startedAt);
    }

    if (webhook.sample_capture_requested_at !== null) {
      // Through the cache's write: the capture ends, so no process keeps offering the next body as the sample.
      await deps.configs.write(webhook.tenant, (trx) => captureSample(trx, webhook.tenant, webhook.inbound_webhook_id, text, receivedAt));
    }

    if (!webhook.is_active) {
      const error = new AppError('NOT_FOUND', 'This inbound webhook is inactive', { delivery_id: deliveryId });
      return refused({ ...base, request_body: text }, 'rejected', error, startedAt);
    }

    const result = await dispatch({
      webhook,
      body,
      rawBody: text,
      headers,
      method: request.method,
      path: base.request_path,
      sourceIp: ip,
      userAgent: base.user_agent,
      receivedAt,
      startedAt,
      mode: 'live',
      log: request.log,
    });
    if (result.error) throw result.error;
    return { statusCode: result.statusCode, body: result.body! };
  };
}

export type Receiver = ReturnType<typeof createReceiver>;
