import { Type, type Static } from 'typebox';
import { Id, Nullable, Timestamp, dataOf, listOf, listQuery } from '../../../platform/http/schemas.ts';

export const AUTH_STATUSES = ['verified', 'internal'] as const;
export const DISPATCH_STATUSES = ['processing', 'processed', 'queued', 'duplicate', 'failed', 'error', 'rejected', 'rate_limited'] as const;

const AuthStatus = Type.Enum([...AUTH_STATUSES], { description: 'verified: the receiver authenticated it; internal: a test or replay started through this API' });
const DispatchStatus = Type.Enum([...DISPATCH_STATUSES], {
  description: 'processed: the direct action ran; queued: handed to the workflow queue; duplicate: a repeated idempotency key (no-op); failed: refused as unprocessable (422); error: a fault (500); rejected: unreadable body or inactive webhook; rate_limited: over the webhook\'s rate; processing: still running',
});

const deliveryFields = {
  delivery_id: Id,
  inbound_webhook_id: Id,
  received_at: Timestamp,
  completed_at: Nullable(Timestamp),
  request_method: Type.String(),
  request_path: Type.String({ description: 'Path and query string, credentials redacted' }),
  request_headers: Type.Record(Type.String(), Type.String(), { description: 'Lower-cased; credentials and the signature header are never kept' }),
  request_body_bytes: Type.Integer(),
  has_request_body: Type.Boolean({ description: 'Whether the body is kept (not for duplicates, rate-limited or unreadable requests): replayable' }),
  source_ip: Nullable(Type.String()),
  user_agent: Nullable(Type.String()),
  idempotency_key: Nullable(Type.String()),
  auth_status: AuthStatus,
  dispatch_status: DispatchStatus,
  handler_type: Type.String(),
  handler_outcome: Type.Unknown({ description: 'The action\'s result, the queued workflow hand-off, or the error' }),
  response_status: Nullable(Type.Integer({ description: 'The status the receiver answered' })),
  response_body: Type.Unknown({ description: 'The body the receiver answered' }),
  duration_ms: Nullable(Type.Integer()),
  is_test: Type.Boolean(),
  is_replay: Type.Boolean(),
  replayed_from_delivery_id: Nullable(Id),
  duplicate_of_delivery_id: Nullable(Id),
  triggered_by_user_id: Nullable(Type.String({ format: 'uuid', description: 'Who started a test or replay' })),
};

export const DeliverySummary = Type.Object(deliveryFields);
export type DeliverySummary = Static<typeof DeliverySummary>;

export const Delivery = Type.Object({ ...deliveryFields, request_body: Type.Unknown({ description: 'The body as received (any JSON); null when not kept' }) });
export type Delivery = Static<typeof Delivery>;

export const DeliveryResponse = dataOf(Delivery);
export const DeliveryListResponse = listOf(DeliverySummary);

export const ListDeliveriesQuery = listQuery(['received_at', 'duration_ms'] as const, {
  auth_status: Type.Optional(AuthStatus),
  dispatch_status: Type.Optional(DispatchStatus),
  from: Type.Optional(Type.String({ format: 'date-time', description: 'Received at or after' })),
  to: Type.Optional(Type.String({ format: 'date-time', description: 'Received before' })),
  is_test: Type.Optional(Type.Boolean()),
  is_replay: Type.Optional(Type.Boolean()),
});
export type ListDeliveriesQuery = Static<typeof ListDeliveriesQuery>;

export const DeliveryParams = Type.Object({ id: Id, deliveryId: Id }, { additionalProperties: false });

const TestHeaders = Type.Unsafe<Record<string, string>>({
  type: 'object',
  patternProperties: { "^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,100}$": { type: 'string', maxLength: 2048 } },
  additionalProperties: false,
  maxProperties: 50,
  description: 'Request headers of the synthetic request (idempotency header, $headers in mappings); credentials are dropped',
});

export const TestBody = Type.Object(
  {
    body: Type.Optional(Type.Unknown({ description: 'The JSON body to send; default: the captured sample' })),
    headers: Type.Optional(TestHeaders),
    dry_run: Type.Optional(Type.Boolean({ description: 'Map the fields and report them without running the action (default false)' })),
  },
  { additionalProperties: false },
);
export type TestBody = Static<typeof TestBody>;
