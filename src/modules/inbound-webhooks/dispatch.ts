import { performance } from 'node:perf_hooks';
import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { DB, InboundDispatchStatus } from '../../platform/db/schema.ts';
import { withTransaction } from '../../platform/db/executor.ts';
import { translatePgError } from '../../platform/db/pg-errors.ts';
import { AppError } from '../../platform/http/errors.ts';
import { newId } from '../../platform/ids.ts';
import { createExternalIds } from './actions/external-ids.ts';
import type { ActionRegistry } from './actions/registry.ts';
import { claimIdempotencyKey, finishDelivery, insertDelivery, insertProcessingDelivery, releaseIdempotencyKey } from './deliveries/deliveries.repo.ts';
import { ExpressionError, evaluateExpression } from './expressions.ts';
import type { InboundWebhookSummaryRow } from './inbound-webhooks.repo.ts';
import { mapFields } from './mapping.ts';
import type { KeyCache } from '../../platform/auth/key-cache.ts';
import { loadOwnerActor } from '../../platform/auth/owner-actor.ts';
import { boundedKey } from './request-meta.ts';
import type { InboundWorkflows } from './workflows.ts';

/**
 * One request through a configuration: idempotency, the handler, and the delivery record. Shared by the
 * receiver (live), the test endpoint and replays; only live requests take part in idempotency.
 */

export interface InboundCall {
  webhook: InboundWebhookSummaryRow;
  body: unknown;
  /** The body as JSON text (what the delivery keeps). */
  rawBody: string;
  headers: Record<string, string>;
  method: string;
  path: string;
  sourceIp: string | null;
  userAgent: string | null;
  receivedAt: Date;
  /** performance.now() when the request arrived. */
  startedAt: number;
  mode: 'live' | 'test' | 'replay';
  replayOf?: string;
  /** Replays keep the original's key (recorded, not claimed). */
  idempotencyKey?: string | null;
  triggeredBy?: string | null;
  /** Test only: map the fields but do not run the action. */
  dryRun?: boolean;
  log: FastifyBaseLogger;
}

export interface DispatchResult {
  deliveryId: string;
  statusCode: number;
  /** The receiver's response body (success) ... */
  body?: Record<string, unknown>;
  /** ... or its error (422, 409, 500). */
  error?: AppError;
}

/** Reasons a delivery is refused as unprocessable, by the error code a service raised. */
const REASONS: Record<string, string> = {
  VALIDATION_ERROR: 'invalid_fields',
  BAD_REQUEST: 'invalid_fields',
  NOT_FOUND: 'not_found',
  CONFLICT: 'conflict',
  REVISION_MISMATCH: 'conflict',
  FORBIDDEN: 'forbidden',
  UNPROCESSABLE: 'rejected',
};

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** A handler failure as the sender sees it: 422 (do not retry) for anything the request caused, 500 for faults. */
function failureOf(err: unknown, deliveryId: string, log: FastifyBaseLogger): AppError {
  const known = err instanceof AppError ? err : translatePgError(err);
  if (known && known.statusCode < 500 && known.code !== 'RATE_LIMITED') {
    const details = isRecord(known.details) && typeof known.details.reason === 'string'
      ? { delivery_id: deliveryId, ...known.details }
      : {
          delivery_id: deliveryId,
          reason: REASONS[known.code] ?? 'rejected',
          code: known.code,
          ...(Array.isArray(known.details) ? { problems: known.details } : known.details !== undefined ? { details: known.details } : {}),
        };
    return new AppError('UNPROCESSABLE', known.message, details);
  }
  log.error({ err, delivery_id: deliveryId }, 'inbound webhook handler failed');
  return new AppError('INTERNAL_ERROR', 'An unexpected error occurred while handling the delivery', { delivery_id: deliveryId });
}

const errorBody = (e: AppError) => ({ error: { code: e.code, message: e.message, ...(e.details !== undefined ? { details: e.details } : {}) } });

export function createDispatcher(deps: { db: Kysely<DB>; registry: ActionRegistry; workflows?: InboundWorkflows; keyCache: KeyCache }) {
  const { db, registry, keyCache } = deps;

  async function idempotencyKeyOf(call: InboundCall): Promise<string | null> {
    const source = call.webhook.idempotency_source;
    if (!source) return null;
    if (source.type === 'header') {
      const v = call.headers[source.value]?.trim();
      return v ? boundedKey(v) : null;
    }
    let v: unknown;
    try {
      v = await evaluateExpression(source.value, call.body, { headers: call.headers });
    } catch (err) {
      if (!(err instanceof ExpressionError)) throw err;
      throw new AppError('UNPROCESSABLE', `The idempotency expression failed: ${err.message}`, {
        reason: err.reason === 'timeout' ? 'mapping_timeout' : 'idempotency_failed',
        message: err.message,
        ...(err.position !== null ? { position: err.position } : {}),
      });
    }
    if (v === undefined || v === null) return null;
    const text = (typeof v === 'object' ? JSON.stringify(v) : String(v)).trim();
    return text ? boundedKey(text) : null;
  }

  async function runHandler(call: InboundCall, deliveryId: string, key: string | null): Promise<{ status: InboundDispatchStatus; statusCode: number; outcome: Record<string, unknown>; body: Record<string, unknown> }> {
    const { webhook } = call;
    const config = webhook.handler_config as { action?: string; field_mapping?: Record<string, string>; workflow_id?: string | null };
    if (webhook.handler_type === 'workflow') {
      // The automation engine (its registered handler) starts the matching rules' executions; they run in the worker.
      const handler = deps.workflows?.get();
      const started = handler
        ? await handler({
            tenant: webhook.tenant, inboundWebhookId: webhook.inbound_webhook_id, workflowId: config.workflow_id ?? null, deliveryId,
            body: call.body, headers: call.headers, receivedAt: call.receivedAt, mode: call.mode, idempotencyKey: key, dryRun: call.dryRun === true,
          })
        : {};
      const outcome = { handler: 'workflow', workflow_id: config.workflow_id ?? null, queued: true, ...started };
      return { status: 'queued', statusCode: 202, outcome, body: { delivery_id: deliveryId, status: 'accepted' } };
    }
    const registered = registry.get(config.action ?? '');
    if (!registered) {
      throw new AppError('UNPROCESSABLE', `The action '${config.action}' of this webhook is not registered`, { reason: 'unknown_action', action: config.action ?? null });
    }
    const { definition } = registered;
    const actor = await loadOwnerActor(db, webhook.tenant, webhook.created_by_user_id, webhook.inbound_webhook_id, keyCache);
    if (!actor) {
      throw new AppError('UNPROCESSABLE', 'The webhook\'s creator is deactivated or deleted; its actions cannot run', { reason: 'owner_inactive', user_id: webhook.created_by_user_id });
    }
    const missing = definition.permissions.filter((p) => !actor.permissions.has(p));
    if (missing.length > 0) {
      throw new AppError('UNPROCESSABLE', `The webhook's creator lacks the permission ${missing.join(', ')} that ${definition.name} needs`, { reason: 'permission_denied', required: missing });
    }
    const input = await mapFields(definition, config.field_mapping ?? {}, { body: call.body, headers: call.headers });
    if (call.dryRun) {
      const result = { action: definition.name, entity_type: definition.entity_type, dry_run: true, fields: input };
      return { status: 'processed', statusCode: 200, outcome: result, body: { delivery_id: deliveryId, status: 'processed', result } };
    }
    const externalIds = createExternalIds(db, webhook.tenant, webhook.inbound_webhook_id);
    const result = await registered.run({ actor, inboundWebhookId: webhook.inbound_webhook_id, deliveryId, externalIds }, input);
    return { status: 'processed', statusCode: 200, outcome: result, body: { delivery_id: deliveryId, status: 'processed', result } };
  }

  return async function dispatch(call: InboundCall): Promise<DispatchResult> {
    const { webhook } = call;
    const deliveryId = newId();
    const elapsed = () => Math.max(0, Math.round(performance.now() - call.startedAt));
    const row = {
      tenant: webhook.tenant,
      delivery_id: deliveryId,
      inbound_webhook_id: webhook.inbound_webhook_id,
      received_at: call.receivedAt,
      request_method: call.method,
      request_path: call.path,
      request_headers: JSON.stringify(call.headers),
      request_body: call.rawBody,
      request_body_bytes: Buffer.byteLength(call.rawBody, 'utf8'),
      source_ip: call.sourceIp,
      user_agent: call.userAgent,
      auth_status: call.mode === 'live' ? ('verified' as const) : ('internal' as const),
      handler_type: webhook.handler_type,
      is_test: call.mode === 'test',
      is_replay: call.mode === 'replay',
      replayed_from_delivery_id: call.replayOf ?? null,
      triggered_by_user_id: call.triggeredBy ?? null,
    };
    const finish = async (status: InboundDispatchStatus, statusCode: number, outcome: unknown, response: unknown) => {
      await finishDelivery(db, webhook.tenant, deliveryId, {
        dispatch_status: status,
        response_status: statusCode,
        handler_outcome: outcome === undefined ? null : JSON.stringify(outcome),
        response_body: JSON.stringify(response),
        duration_ms: elapsed(),
        completed_at: new Date(),
      });
    };

    let key: string | null;
    try {
      key = call.mode === 'replay' ? (call.idempotencyKey ?? null) : await idempotencyKeyOf(call);
    } catch (err) {
      const error = failureOf(err, deliveryId, call.log);
      await insertDelivery(db, { ...row, idempotency_key: null, dispatch_status: 'processing' });
      await finish(error.statusCode === 422 ? 'failed' : 'error', error.statusCode, errorBody(error).error, errorBody(error));
      return { deliveryId, statusCode: error.statusCode, error };
    }

    let claimed = false;
    if (call.mode === 'live' && key !== null) {
      const liveKey = key;
      for (let attempt = 0; attempt < 3 && !claimed; attempt++) {
        const now = new Date();
        const outcome = await withTransaction(db, async (trx) => {
          const claim = await claimIdempotencyKey(trx, {
            tenant: webhook.tenant,
            inboundWebhookId: webhook.inbound_webhook_id,
            key: liveKey,
            deliveryId,
            now,
            expiresAt: new Date(call.receivedAt.getTime() + webhook.idempotency_window_seconds * 1000),
          });
          if (claim.claimed) {
            await insertProcessingDelivery(trx, { ...row, idempotency_key: liveKey, dispatch_status: 'processing' });
            return claim;
          }
          if (claim.originalDeliveryId) {
            const body = { delivery_id: deliveryId, status: 'duplicate', duplicate: true, original_delivery_id: claim.originalDeliveryId };
            await insertDelivery(trx, {
              ...row,
              request_body: null,
              idempotency_key: liveKey,
              dispatch_status: 'duplicate',
              duplicate_of_delivery_id: claim.originalDeliveryId,
              handler_outcome: JSON.stringify({ duplicate_of: claim.originalDeliveryId }),
              response_status: 200,
              response_body: JSON.stringify(body),
              duration_ms: elapsed(),
              completed_at: new Date(),
            });
          }
          return claim;
        });
        if (outcome.claimed) claimed = true;
        else if (outcome.originalDeliveryId) {
          return {
            deliveryId,
            statusCode: 200,
            body: { delivery_id: deliveryId, status: 'duplicate', duplicate: true, original_delivery_id: outcome.originalDeliveryId },
          };
        }
      }
      if (!claimed) {
        const error = new AppError('CONFLICT', 'A delivery with this idempotency key is being processed and released concurrently; retry it', { delivery_id: deliveryId });
        return { deliveryId, statusCode: 409, error };
      }
    } else {
      await insertProcessingDelivery(db, { ...row, idempotency_key: key, dispatch_status: 'processing' });
    }

    try {
      const done = await runHandler(call, deliveryId, key);
      await finish(done.status, done.statusCode, done.outcome, done.body);
      return { deliveryId, statusCode: done.statusCode, body: done.body };
    } catch (err) {
      const error = failureOf(err, deliveryId, call.log);
      // A failed delivery does not hold its key: the sender may retry once the cause is fixed.
      if (claimed && key !== null) await releaseIdempotencyKey(db, webhook.tenant, webhook.inbound_webhook_id, key, deliveryId);
      await finish(error.statusCode === 422 ? 'failed' : 'error', error.statusCode, errorBody(error).error, errorBody(error));
      return { deliveryId, statusCode: error.statusCode, error };
    }
  };
}

export type Dispatcher = ReturnType<typeof createDispatcher>;
