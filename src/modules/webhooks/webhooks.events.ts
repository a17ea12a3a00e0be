import type { Transaction } from 'kysely';
import type { DB } from '../../platform/db/schema.ts';
import { emit } from '../../platform/events/outbox.ts';

/**
 * Internal events this module emits (not part of the public vocabulary, so never delivered to
 * webhooks). Payloads carry ids and names of what changed; never secrets, header values or the URL.
 */
export const WEBHOOK_EVENTS = {
  created: 'webhook.created',
  updated: 'webhook.updated',
  deleted: 'webhook.deleted',
  secretRotated: 'webhook.secret_rotated',
  /** Sent by the dispatcher when 24 hours of failures disable a webhook; its consumer e-mails the creator. */
  autoDisabled: 'webhook.auto_disabled',
} as const;

export type WebhookEventType = (typeof WEBHOOK_EVENTS)[keyof typeof WEBHOOK_EVENTS];

export const emitWebhookEvent = (trx: Transaction<DB>, tenant: string, type: WebhookEventType, webhookId: string, extra: Record<string, unknown> = {}) =>
  emit(trx, { tenant, event_type: type, aggregate_type: 'webhook', aggregate_id: webhookId, payload: { webhook_id: webhookId, ...extra } });
