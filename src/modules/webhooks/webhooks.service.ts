import type { Kysely, Updateable } from 'kysely';
import type { Actor } from '../../platform/auth/context.ts';
import type { SecretBox } from '../../platform/crypto/secret-box.ts';
import { withTransaction, type Executor } from '../../platform/db/executor.ts';
import type { DB, WebhooksTable } from '../../platform/db/schema.ts';
import { eventVocabulary } from '../../platform/events/vocabulary.ts';
import { assertIfMatch } from '../../platform/http/etag.ts';
import { notFound, unprocessable } from '../../platform/http/errors.ts';
import { listPage } from '../../platform/http/list.ts';
import { optionalText, requiredText } from '../../platform/http/text.ts';
import { newId } from '../../platform/ids.ts';
import { UnsafeTargetError, type OutboundClient } from '../../platform/net/outbound-http.ts';
import { sendAttempt } from './attempt.ts';
import { insertDelivery } from './deliveries/deliveries.repo.ts';
import { envelopeText } from './envelope.ts';
import { WEBHOOK_EVENTS, emitWebhookEvent } from './webhooks.events.ts';
import { toWebhook } from './webhooks.mapper.ts';
import {
  deleteWebhook,
  findWebhookRow,
  insertWebhook,
  notifyDispatchers,
  setDeliveriesPaused,
  updateWebhook,
  webhookList,
  type WebhookRow,
} from './webhooks.repo.ts';
import { checkCustomHeaders, checkEventTypes, checkPayloadFields, checkUrl } from './webhooks.rules.ts';
import type { CreateWebhookBody, ListWebhooksQuery, TestOutcome, UpdateWebhookBody, Webhook, WebhookWithSecret } from './webhooks.schemas.ts';
import { newSigningSecret, openHeaders, sealHeaders } from './webhooks.secrets.ts';

export const TEST_EVENT_TYPE = 'webhook.test';

export interface WebhooksDeps {
  db: Kysely<DB>;
  secretBox: SecretBox;
  /** The SSRF-guarded client: vets URLs at save time and sends test deliveries. */
  client: OutboundClient;
}

async function requireWebhook(db: Executor, tenant: string, id: string, lock = false): Promise<WebhookRow> {
  const row = await findWebhookRow(db, tenant, id, lock);
  if (!row) throw notFound('Webhook', id);
  return row;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

export function createWebhooksService(deps: WebhooksDeps) {
  const { db, secretBox, client } = deps;

  /** 422 unless the URL may be contacted (scheme, credentials, every resolved address). No transaction is open. */
  async function vetUrl(url: string): Promise<void> {
    try {
      await client.vet(url);
    } catch (err) {
      if (err instanceof UnsafeTargetError) throw unprocessable(`The webhook URL may not be used: ${err.message}`, { reason: 'unsafe_target' });
      throw err;
    }
  }

  return {
    events() {
      return eventVocabulary().map((e) => ({ event_type: e.event_type, entity: e.entity, description: e.description, delivered: e.delivered }));
    },

    async list(actor: Actor, query: ListWebhooksQuery) {
      return listPage(query, webhookList(db, actor.tenant, { isActive: query.is_active, eventType: query.event_type }), (rows) => rows.map(toWebhook));
    },

    async get(actor: Actor, id: string): Promise<Webhook> {
      return toWebhook(await requireWebhook(db, actor.tenant, id));
    },

    /** Creates the webhook with a new signing secret, returned here once. */
    async create(actor: Actor, body: CreateWebhookBody): Promise<WebhookWithSecret> {
      const name = requiredText(body.name, 'body.name');
      const url = checkUrl(body.url);
      checkEventTypes(body.event_types);
      const headers = checkCustomHeaders(body.custom_headers ?? {});
      if (body.payload_fields) checkPayloadFields(body.payload_fields);
      await vetUrl(url);
      const secret = newSigningSecret();
      const rate = body.rate_limit_per_minute ?? 100;
      return withTransaction(db, async (trx) => {
        const now = new Date();
        const webhookId = newId();
        await insertWebhook(trx, {
          tenant: actor.tenant,
          webhook_id: webhookId,
          name,
          description: optionalText(body.description) ?? null,
          url,
          event_types: body.event_types,
          ...sealHeaders(secretBox, headers),
          rate_limit_per_minute: rate,
          payload_fields: body.payload_fields ? JSON.stringify(body.payload_fields) : null,
          event_filter: body.event_filter ? JSON.stringify(body.event_filter) : null,
          secret_enc: secretBox.encrypt(secret),
          is_active: body.is_active ?? true,
          rate_tokens: rate,
          rate_refilled_at: now,
          created_by_user_id: actor.userId,
          created_at: now,
          updated_at: now,
        });
        await emitWebhookEvent(trx, actor.tenant, WEBHOOK_EVENTS.created, webhookId, { name, event_types: body.event_types, is_active: body.is_active ?? true });
        return { ...toWebhook(await requireWebhook(trx, actor.tenant, webhookId)), secret };
      });
    },

    /**
     * Partial update. is_active: true re-enables (also after an auto-disable) and clears the failure
     * window; its waiting attempts are released at once. is_active: false parks them.
     */
    async update(actor: Actor, id: string, body: UpdateWebhookBody, ifMatch?: string): Promise<Webhook> {
      const name = body.name === undefined ? undefined : requiredText(body.name, 'body.name');
      const url = body.url === undefined ? undefined : checkUrl(body.url);
      if (body.event_types) checkEventTypes(body.event_types);
      if (body.payload_fields) checkPayloadFields(body.payload_fields);
      if (url !== undefined) await vetUrl(url);
      return withTransaction(db, async (trx) => {
        const row = await requireWebhook(trx, actor.tenant, id, true);
        assertIfMatch(ifMatch, toWebhook(row));
        const set: Updateable<WebhooksTable> = {};
        const changed: string[] = [];
        const change = <K extends keyof Updateable<WebhooksTable>>(field: string, column: K, value: Updateable<WebhooksTable>[K], differs: boolean) => {
          if (!differs) return;
          set[column] = value;
          if (!changed.includes(field)) changed.push(field);
        };
        if (name !== undefined) change('name', 'name', name, name !== row.name);
        if (body.description !== undefined) {
          const description = optionalText(body.description) ?? null;
          change('description', 'description', description, description !== row.description);
        }
        if (url !== undefined) change('url', 'url', url, url !== row.url);
        if (body.event_types) change('event_types', 'event_types', body.event_types, !same(body.event_types, row.event_types));
        if (body.custom_headers !== undefined) {
          const current = openHeaders(secretBox, row.custom_headers_enc);
          const headers = checkCustomHeaders(body.custom_headers ?? {}, current);
          if (!same(headers, current)) {
            const sealed = sealHeaders(secretBox, headers);
            change('custom_headers', 'custom_headers_enc', sealed.custom_headers_enc, true);
            change('custom_headers', 'custom_header_names', sealed.custom_header_names, true);
          }
        }
        if (body.rate_limit_per_minute !== undefined) {
          change('rate_limit_per_minute', 'rate_limit_per_minute', body.rate_limit_per_minute, body.rate_limit_per_minute !== row.rate_limit_per_minute);
        }
        if (body.payload_fields !== undefined) {
          change('payload_fields', 'payload_fields', body.payload_fields === null ? null : JSON.stringify(body.payload_fields), !same(body.payload_fields, row.payload_fields));
        }
        if (body.event_filter !== undefined) {
          change('event_filter', 'event_filter', body.event_filter === null ? null : JSON.stringify(body.event_filter), !same(body.event_filter, row.event_filter));
        }
        if (body.is_active === true) {
          change('is_active', 'is_active', true, !row.is_active);
          change('is_active', 'auto_disabled_at', null, row.auto_disabled_at !== null);
          change('is_active', 'failing_since', null, row.failing_since !== null);
        } else if (body.is_active === false) {
          change('is_active', 'is_active', false, row.is_active);
        }
        if (changed.length === 0) return toWebhook(row);
        await updateWebhook(trx, actor.tenant, id, { ...set, updated_at: new Date() });
        if (set.is_active === true && (await setDeliveriesPaused(trx, actor.tenant, id, false)) > 0) await notifyDispatchers(trx);
        if (set.is_active === false) await setDeliveriesPaused(trx, actor.tenant, id, true);
        await emitWebhookEvent(trx, actor.tenant, WEBHOOK_EVENTS.updated, id, { changed_fields: changed });
        return toWebhook(await requireWebhook(trx, actor.tenant, id));
      });
    },

    /** Deletes the webhook with its delivery history; attempts in flight are dropped when they finish. */
    async remove(actor: Actor, id: string, ifMatch?: string): Promise<void> {
      await withTransaction(db, async (trx) => {
        const row = await requireWebhook(trx, actor.tenant, id, true);
        assertIfMatch(ifMatch, toWebhook(row));
        await deleteWebhook(trx, actor.tenant, id);
        await emitWebhookEvent(trx, actor.tenant, WEBHOOK_EVENTS.deleted, id, { name: row.name });
      });
    },

    /** A new signing secret, returned once; the old one stops at once (every later attempt signs with the new). */
    async rotateSecret(actor: Actor, id: string): Promise<WebhookWithSecret> {
      const secret = newSigningSecret();
      return withTransaction(db, async (trx) => {
        await requireWebhook(trx, actor.tenant, id, true);
        await updateWebhook(trx, actor.tenant, id, { secret_enc: secretBox.encrypt(secret), updated_at: new Date() });
        await emitWebhookEvent(trx, actor.tenant, WEBHOOK_EVENTS.secretRotated, id);
        return { ...toWebhook(await requireWebhook(trx, actor.tenant, id)), secret };
      });
    },

    /**
     * Sends a signed `webhook.test` envelope now with the live secret: no rate limit, no retry, no effect
     * on auto-disable. The attempt is recorded (is_test). An unsafe target is a 422, recorded as failed.
     */
    async test(actor: Actor, id: string): Promise<TestOutcome> {
      const row = await requireWebhook(db, actor.tenant, id);
      const eventId = newId();
      const deliveryId = newId();
      const now = new Date();
      const body = envelopeText({
        event_id: eventId,
        event_type: TEST_EVENT_TYPE,
        occurred_at: now,
        tenant_id: actor.tenant,
        data: { webhook_id: row.webhook_id, webhook_name: row.name, is_test: true },
      });
      const result = await sendAttempt(
        client,
        { url: row.url, secret: secretBox.decrypt(row.secret_enc), customHeaders: openHeaders(secretBox, row.custom_headers_enc) },
        { webhookId: row.webhook_id, deliveryId, eventId, eventType: TEST_EVENT_TYPE, attempt: 1, body },
      );
      await insertDelivery(db, {
        tenant: actor.tenant,
        delivery_id: deliveryId,
        webhook_id: row.webhook_id,
        event_id: eventId,
        event_type: TEST_EVENT_TYPE,
        attempt: 1,
        status: result.ok ? 'delivered' : 'failed',
        request_body: body,
        response_status: result.response_status,
        response_body: result.response_body,
        duration_ms: result.duration_ms,
        error: result.error,
        is_test: true,
        attempted_at: now,
        next_attempt_at: null,
        created_at: now,
      });
      if (result.unsafe) {
        throw unprocessable(`The webhook URL may not be used (${result.error ?? 'unsafe target'})`, { reason: 'unsafe_target', delivery_id: deliveryId, event_id: eventId });
      }
      return {
        delivery_id: deliveryId,
        event_id: eventId,
        success: result.ok,
        response_status: result.response_status,
        response_body: result.response_body,
        duration_ms: result.duration_ms,
        error: result.error,
      };
    },
  };
}

export type WebhooksService = ReturnType<typeof createWebhooksService>;
