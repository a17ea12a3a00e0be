import type { InboundDispatchStatus } from '../../../platform/db/schema.ts';
import { parseStored } from '../inbound-webhooks.mapper.ts';
import type { DeliveryListRow, DeliveryRow } from './deliveries.repo.ts';
import type { Delivery, DeliverySummary } from './deliveries.schemas.ts';
import { iso } from '../../../platform/time.ts';

export function toDeliverySummary(row: DeliveryListRow): DeliverySummary {
  return {
    delivery_id: row.delivery_id,
    inbound_webhook_id: row.inbound_webhook_id,
    received_at: iso(row.received_at),
    completed_at: row.completed_at ? iso(row.completed_at) : null,
    request_method: row.request_method,
    request_path: row.request_path,
    request_headers: parseStored(row.request_headers) as Record<string, string>,
    request_body_bytes: row.request_body_bytes,
    has_request_body: row.has_request_body,
    source_ip: row.source_ip,
    user_agent: row.user_agent,
    idempotency_key: row.idempotency_key,
    auth_status: row.auth_status,
    dispatch_status: row.dispatch_status as InboundDispatchStatus,
    handler_type: row.handler_type,
    handler_outcome: parseStored(row.handler_outcome),
    response_status: row.response_status,
    response_body: parseStored(row.response_body),
    duration_ms: row.duration_ms,
    is_test: row.is_test,
    is_replay: row.is_replay,
    replayed_from_delivery_id: row.replayed_from_delivery_id,
    duplicate_of_delivery_id: row.duplicate_of_delivery_id,
    triggered_by_user_id: row.triggered_by_user_id,
  };
}

export function toDelivery(row: DeliveryRow): Delivery {
  const { request_body, ...rest } = row;
  return { ...toDeliverySummary({ ...rest, has_request_body: request_body !== null }), request_body: parseStored(request_body) };
}
