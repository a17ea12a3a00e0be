import type { AuthSettings } from './auth.ts';
import type { InboundWebhookRow, InboundWebhookSummaryRow } from './inbound-webhooks.repo.ts';
import type { ActionInfo, InboundWebhook, InboundWebhookSummary } from './inbound-webhooks.schemas.ts';
import type { ActionDefinition } from '../../platform/actions/action.ts';
import { iso } from '../../platform/time.ts';

/** JSON text kept by the service → its value (null text → null). */
export const parseStored = (text: string | null): unknown => (text === null ? null : (JSON.parse(text) as unknown));

export const receiverPath = (tenantSlug: string, slug: string): string => `/api/inbound/${tenantSlug}/${slug}`;

export function toInboundWebhookSummary(row: InboundWebhookSummaryRow, publicUrl: string, tenantSlug: string): InboundWebhookSummary {
  const handler = row.handler_config as { action?: string; field_mapping?: Record<string, string>; workflow_id?: string | null };
  return {
    inbound_webhook_id: row.inbound_webhook_id,
    name: row.name,
    description: row.description,
    slug: row.slug,
    receiver_url: `${publicUrl}${receiverPath(tenantSlug, row.slug)}`,
    auth_type: row.auth_type,
    auth_config: row.auth_config as AuthSettings,
    has_secret: row.secret_enc !== null,
    secret_rotated_at: iso(row.secret_rotated_at),
    idempotency_source: row.idempotency_source,
    idempotency_window_seconds: row.idempotency_window_seconds,
    handler_type: row.handler_type,
    handler_config: handler,
    rate_limit_per_minute: row.rate_limit_per_minute,
    is_active: row.is_active,
    sample_captured_at: iso(row.sample_captured_at),
    sample_capture_pending: row.sample_capture_requested_at !== null,
    created_by_user_id: row.created_by_user_id,
    created_at: iso(row.created_at)!,
    updated_at: iso(row.updated_at)!,
  };
}

export function toInboundWebhook(row: InboundWebhookRow, publicUrl: string, tenantSlug: string): InboundWebhook {
  return { ...toInboundWebhookSummary(row, publicUrl, tenantSlug), sample_payload: parseStored(row.sample_payload) };
}

export function toActionInfo(a: ActionDefinition): ActionInfo {
  return {
    name: a.name,
    entity_type: a.entity_type,
    display_name: a.display_name,
    description: a.description,
    permissions: [...a.permissions],
    target_fields: a.target_fields.map((f) => ({
      name: f.name,
      type: f.type,
      required: f.required,
      description: f.description,
      enum_values: f.enum_values ? [...f.enum_values] : null,
      ref_entity: f.ref_entity ?? null,
      max_length: f.max_length ?? null,
      nullable: f.nullable ?? false,
    })),
  };
}
