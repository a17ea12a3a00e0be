import { Type, type Static } from 'typebox';
import { Id, Nullable, Timestamp, dataOf, listOf, listQuery } from '../../../platform/http/schemas.ts';
import type { WebhookDeliveryStatus } from '../../../platform/db/schema.ts';

export const DELIVERY_STATUSES: readonly WebhookDeliveryStatus[] = ['pending', 'delivered', 'retrying', 'abandoned', 'failed'];
const Status = Type.Enum([...DELIVERY_STATUSES], {
  description: 'pending: waiting to be sent; delivered: 2xx; retrying: failed, the next attempt is queued; abandoned: the sixth attempt failed; failed: final without retry (unsafe target, or a test)',
});

export const Delivery = Type.Object({
  delivery_id: Id,
  webhook_id: Id,
  event_id: Id,
  event_type: Type.String(),
  attempt: Type.Integer({ minimum: 1, description: '1-based; a retry cycle has up to 6 attempts' }),
  status: Status,
  request_body: Type.String({ description: 'The envelope exactly as sent (JSON text); signature and custom-header values are never stored' }),
  response_status: Nullable(Type.Integer()),
  response_body: Nullable(Type.String({ description: 'The first 8 KiB' })),
  duration_ms: Nullable(Type.Integer()),
  error: Nullable(Type.String()),
  is_test: Type.Boolean(),
  attempted_at: Nullable(Timestamp),
  next_attempt_at: Nullable(Type.String({ format: 'date-time', description: 'pending: when it is due; retrying: when the next attempt is due' })),
  created_at: Timestamp,
});
export type Delivery = Static<typeof Delivery>;

export const DeliveryParams = Type.Object({ id: Id, deliveryId: Id }, { additionalProperties: false });

export const ListDeliveriesQuery = listQuery(['created_at'] as const, {
  status: Type.Optional(Status),
  event_type: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  is_test: Type.Optional(Type.Boolean()),
  from: Type.Optional(Type.String({ format: 'date-time', description: 'Created at or after' })),
  to: Type.Optional(Type.String({ format: 'date-time', description: 'Created before' })),
});
export type ListDeliveriesQuery = Static<typeof ListDeliveriesQuery>;

export const DeliveryResponse = dataOf(Delivery);
export const DeliveryListResponse = listOf(Delivery);
