import type { DeliveryRow } from '../webhooks.repo.ts';
import type { Delivery } from './deliveries.schemas.ts';
import { iso } from '../../../platform/time.ts';

export const toDelivery = (row: DeliveryRow): Delivery => ({
  delivery_id: row.delivery_id,
  webhook_id: row.webhook_id,
  event_id: row.event_id,
  event_type: row.event_type,
  attempt: row.attempt,
  status: row.status,
  request_body: row.request_body,
  response_status: row.response_status,
  response_body: row.response_body,
  duration_ms: row.duration_ms,
  error: row.error,
  is_test: row.is_test,
  attempted_at: iso(row.attempted_at),
  next_attempt_at: iso(row.next_attempt_at),
  created_at: row.created_at.toISOString(),
});
