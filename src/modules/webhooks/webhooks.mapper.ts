import type { WebhookRow } from './webhooks.repo.ts';
import { MASK, type EventFilter, type PayloadFields, type Webhook } from './webhooks.schemas.ts';
import { iso } from '../../platform/time.ts';

export function toWebhook(row: WebhookRow): Webhook {
  return {
    webhook_id: row.webhook_id,
    name: row.name,
    description: row.description,
    url: row.url,
    event_types: row.event_types,
    custom_headers: Object.fromEntries(row.custom_header_names.map((name) => [name, MASK])),
    rate_limit_per_minute: row.rate_limit_per_minute,
    payload_fields: (row.payload_fields as PayloadFields | null) ?? null,
    event_filter: (row.event_filter as EventFilter | null) ?? null,
    is_active: row.is_active,
    auto_disabled_at: iso(row.auto_disabled_at),
    failing_since: iso(row.failing_since),
    last_success_at: iso(row.last_success_at),
    last_failure_at: iso(row.last_failure_at),
    created_by_user_id: row.created_by_user_id,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}
