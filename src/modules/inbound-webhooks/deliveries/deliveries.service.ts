import { performance } from 'node:perf_hooks';
import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import { requirePermission, type Actor } from '../../../platform/auth/context.ts';
import type { DB } from '../../../platform/db/schema.ts';
import { AppError, notFound } from '../../../platform/http/errors.ts';
import { listPage } from '../../../platform/http/list.ts';
import type { ActionRegistry } from '../actions/registry.ts';
import type { Dispatcher, InboundCall } from '../dispatch.ts';
import { nestsDeeper } from '../expressions.ts';
import { receiverPath } from '../inbound-webhooks.mapper.ts';
import { findWebhook, type InboundWebhookRow } from '../inbound-webhooks.repo.ts';
import { filterHeaders } from '../request-meta.ts';
import { toDelivery, toDeliverySummary } from './deliveries.mapper.ts';
import { deliveryList, findDelivery } from './deliveries.repo.ts';
import type { Delivery, ListDeliveriesQuery, TestBody } from './deliveries.schemas.ts';

export interface CallerMeta {
  ip: string | null;
  userAgent: string | null;
  log: FastifyBaseLogger;
}

export function createDeliveriesService(deps: { db: Kysely<DB>; dispatch: Dispatcher; registry: ActionRegistry }) {
  const { db, dispatch, registry } = deps;

  const webhookOf = async (actor: Actor, id: string): Promise<InboundWebhookRow> => {
    const row = await findWebhook(db, actor.tenant, id);
    if (!row) throw notFound('Inbound webhook', id);
    return row;
  };

  /** Tests and replays run the action as the creator; the caller must hold its permissions too. */
  const assertCallerMayRun = (actor: Actor, webhook: InboundWebhookRow) => {
    if (webhook.handler_type !== 'direct_action') return;
    const action = registry.get((webhook.handler_config as { action?: string }).action ?? '');
    if (action) requirePermission(actor, ...action.definition.permissions);
  };

  const recorded = async (actor: Actor, webhookId: string, deliveryId: string): Promise<Delivery> => {
    const row = await findDelivery(db, actor.tenant, webhookId, deliveryId);
    if (!row) throw notFound('Delivery', deliveryId);
    return toDelivery(row);
  };

  return {
    async list(actor: Actor, webhookId: string, query: ListDeliveriesQuery) {
      await webhookOf(actor, webhookId);
      const filter = {
        authStatus: query.auth_status,
        dispatchStatus: query.dispatch_status,
        from: query.from ? new Date(query.from) : undefined,
        to: query.to ? new Date(query.to) : undefined,
        isTest: query.is_test,
        isReplay: query.is_replay,
      };
      return listPage(query, deliveryList(db, actor.tenant, webhookId, filter), (rows) => rows.map(toDeliverySummary));
    },

    async get(actor: Actor, webhookId: string, deliveryId: string): Promise<Delivery> {
      await webhookOf(actor, webhookId);
      return recorded(actor, webhookId, deliveryId);
    },

    /**
     * A synthetic request through the saved configuration (active or not): its idempotency key is
     * computed and recorded but never claimed, and the rate limit does not apply. Flagged is_test.
     */
    async test(actor: Actor, webhookId: string, body: TestBody, meta: CallerMeta): Promise<Delivery> {
      const startedAt = performance.now();
      const webhook = await webhookOf(actor, webhookId);
      assertCallerMayRun(actor, webhook);
      let rawBody: string;
      if (body.body !== undefined) rawBody = JSON.stringify(body.body);
      else if (webhook.sample_payload !== null) rawBody = webhook.sample_payload;
      else throw new AppError('UNPROCESSABLE', 'Send a body, or capture a sample first (POST …/capture-sample)', { reason: 'no_body' });
      const payload = JSON.parse(rawBody) as unknown;
      if (nestsDeeper(payload, 64)) throw new AppError('BAD_REQUEST', 'The test body nests deeper than 64 levels');
      const call: InboundCall = {
        webhook,
        body: payload,
        rawBody,
        headers: filterHeaders(body.headers ?? {}),
        method: 'POST',
        path: receiverPath(actor.tenantSlug, webhook.slug),
        sourceIp: meta.ip,
        userAgent: meta.userAgent,
        receivedAt: new Date(),
        startedAt,
        mode: 'test',
        triggeredBy: actor.userId,
        dryRun: body.dry_run === true,
        log: meta.log,
      };
      const result = await dispatch(call);
      return recorded(actor, webhookId, result.deliveryId);
    },

    /**
     * Runs a kept delivery's body again against the current configuration, as a new delivery recorded
     * as a replay of the original. Authentication, rate limit and duplicate check are not repeated.
     */
    async replay(actor: Actor, webhookId: string, deliveryId: string, meta: CallerMeta): Promise<Delivery> {
      const startedAt = performance.now();
      const webhook = await webhookOf(actor, webhookId);
      const original = await findDelivery(db, actor.tenant, webhookId, deliveryId);
      if (!original) throw notFound('Delivery', deliveryId);
      if (original.request_body === null) {
        throw new AppError('UNPROCESSABLE', `Delivery '${deliveryId}' kept no body (duplicates, rate-limited and unreadable requests keep none), so it cannot be replayed`, {
          reason: 'no_body',
          dispatch_status: original.dispatch_status,
        });
      }
      assertCallerMayRun(actor, webhook);
      const result = await dispatch({
        webhook,
        body: JSON.parse(original.request_body) as unknown,
        rawBody: original.request_body,
        headers: JSON.parse(original.request_headers) as Record<string, string>,
        method: original.request_method,
        path: original.request_path,
        sourceIp: original.source_ip,
        userAgent: original.user_agent,
        receivedAt: new Date(),
        startedAt,
        mode: 'replay',
        replayOf: original.delivery_id,
        idempotencyKey: original.idempotency_key,
        triggeredBy: actor.userId,
        log: meta.log,
      });
      return recorded(actor, webhookId, result.deliveryId);
    },
  };
}

export type DeliveriesService = ReturnType<typeof createDeliveriesService>;
