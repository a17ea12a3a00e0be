import { Type, type Static } from 'typebox';
import { Id, Name, Nullable, Timestamp, dataOf, listOf, listQuery } from '../../platform/http/schemas.ts';
import { EXPRESSION_MAX_LENGTH } from './expressions.ts';

export const AUTH_TYPES = ['hmac_sha256', 'bearer', 'ip_allowlist', 'path_token'] as const;
export const HANDLER_TYPES = ['direct_action', 'workflow'] as const;
export const SLUG_PATTERN = '^[a-z0-9]([a-z0-9-]{0,62}[a-z0-9])?$';
const HEADER_NAME_PATTERN = "^[A-Za-z0-9!#$%&'*+.^_`|~-]+$";
const FIELD_NAME_PATTERN = '^[a-z][a-z0-9_]{0,63}$';

const Slug = Type.String({ minLength: 1, maxLength: 64, pattern: SLUG_PATTERN, description: 'Lowercase letters, digits and inner dashes (1–64); unique per tenant; the last path segment of the receiver URL' });
const AuthType = Type.Enum([...AUTH_TYPES], { description: 'How the receiver authenticates requests' });
const HandlerType = Type.Enum([...HANDLER_TYPES], { description: 'direct_action runs a registered action synchronously; workflow hands the request to the automation engine' });
const headerName = (description: string) => Type.String({ minLength: 1, maxLength: 100, pattern: HEADER_NAME_PATTERN, description });
const Expression = Type.String({ minLength: 1, maxLength: EXPRESSION_MAX_LENGTH, description: 'A JSONata expression over the request body (the root); $headers holds the filtered request headers' });

const authSettings = {
  signature_header: Type.Optional(headerName('hmac_sha256: the header carrying `sha256=<hex>` or the bare hex digest (default X-Webhook-Signature)')),
  timestamp_header: Type.Optional(headerName('hmac_sha256, optional replay protection: the header carrying the Unix time in seconds; the signed string is then `<timestamp>.<raw body>` and stale timestamps are refused')),
  tolerance_seconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 86_400, description: 'With timestamp_header: how far the timestamp may be from the server clock (default 300)' })),
  query_param: Type.Optional(Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_.~-]+$', description: 'path_token: the query parameter carrying the token (default token)' })),
  allowed_ips: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { minItems: 1, maxItems: 100, description: 'ip_allowlist: exact IPv4/IPv6 addresses or CIDR ranges (stored in canonical form)' })),
};

export const AuthConfigInput = Type.Object(
  {
    ...authSettings,
    secret: Type.Optional(Type.String({ minLength: 16, maxLength: 512, pattern: '^[\\x21-\\x7e]+$', description: 'hmac_sha256 secret, bearer token or path token (printable ASCII, 16–512). Omit it and the service generates one, returned once' })),
  },
  { additionalProperties: false, description: 'Settings of auth_type; settings of other types are refused' },
);
export type AuthConfigInput = Static<typeof AuthConfigInput>;

const AuthConfig = Type.Object(authSettings, { description: 'Settings of auth_type; the secret is never shown' });

const IdempotencySourceInput = Type.Object(
  {
    type: Type.Enum(['header', 'jsonata']),
    value: Type.String({ minLength: 1, maxLength: EXPRESSION_MAX_LENGTH, description: 'header: a header name; jsonata: an expression over the body' }),
  },
  { additionalProperties: false },
);
export type IdempotencySource = Static<typeof IdempotencySourceInput>;

const FieldMappingInput = Type.Unsafe<Record<string, string>>({
  type: 'object',
  patternProperties: { [FIELD_NAME_PATTERN]: Expression },
  additionalProperties: false,
  maxProperties: 50,
  description: 'Target field name → JSONata expression. Field names are those of GET /api/v1/inbound-webhooks/actions',
});

export const HandlerConfigInput = Type.Object(
  {
    action: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'direct_action: a registered action name' })),
    field_mapping: Type.Optional(FieldMappingInput),
    workflow_id: Type.Optional(Nullable(Type.String({ format: 'uuid', description: 'workflow: the automation workflow to start (kept for the automation engine)' }))),
  },
  { additionalProperties: false },
);
export type HandlerConfigInput = Static<typeof HandlerConfigInput>;

const HandlerConfig = Type.Object({
  action: Type.Optional(Type.String()),
  field_mapping: Type.Optional(Type.Record(Type.String(), Type.String())),
  workflow_id: Type.Optional(Nullable(Id)),
});

const writable = {
  name: Name,
  description: Nullable(Type.String({ maxLength: 2000 })),
  slug: Slug,
  auth_type: AuthType,
  auth_config: AuthConfigInput,
  idempotency_source: Nullable(IdempotencySourceInput),
  idempotency_window_seconds: Type.Integer({ minimum: 1, maximum: 2_592_000, description: 'Duplicates inside this many seconds of the first delivery are no-ops (default 86400)' }),
  handler_type: HandlerType,
  handler_config: HandlerConfigInput,
  rate_limit_per_minute: Type.Integer({ minimum: 1, maximum: 60_000, description: 'Requests per minute the receiver accepts for this webhook (default 600)' }),
  is_active: Type.Boolean(),
};

export const CreateInboundWebhookBody = Type.Object(
  {
    name: writable.name,
    description: Type.Optional(writable.description),
    slug: writable.slug,
    auth_type: writable.auth_type,
    auth_config: Type.Optional(writable.auth_config),
    idempotency_source: Type.Optional(writable.idempotency_source),
    idempotency_window_seconds: Type.Optional(writable.idempotency_window_seconds),
    handler_type: writable.handler_type,
    handler_config: writable.handler_config,
    rate_limit_per_minute: Type.Optional(writable.rate_limit_per_minute),
    is_active: Type.Optional(writable.is_active),
  },
  { additionalProperties: false },
);
export type CreateInboundWebhookBody = Static<typeof CreateInboundWebhookBody>;

export const UpdateInboundWebhookBody = Type.Object(
  Object.fromEntries(Object.entries(writable).map(([k, v]) => [k, Type.Optional(v)])) as { [K in keyof typeof writable]: ReturnType<typeof Type.Optional<(typeof writable)[K]>> },
  {
    additionalProperties: false,
    minProperties: 1,
    description: 'Partial update. A changed auth_type needs its auth_config; a changed handler_type its handler_config. auth_config.secret replaces the secret',
  },
);
export type UpdateInboundWebhookBody = Static<typeof UpdateInboundWebhookBody>;

const summaryFields = {
  inbound_webhook_id: Id,
  name: Type.String(),
  description: Nullable(Type.String()),
  slug: Type.String(),
  receiver_url: Type.String({ description: 'Where senders POST (a path_token sender appends ?<query_param>=<token>)' }),
  auth_type: AuthType,
  auth_config: AuthConfig,
  has_secret: Type.Boolean({ description: 'Whether a secret is stored (never shown after create or rotate)' }),
  secret_rotated_at: Nullable(Timestamp),
  idempotency_source: Nullable(Type.Object({ type: Type.Enum(['header', 'jsonata']), value: Type.String() })),
  idempotency_window_seconds: Type.Integer(),
  handler_type: HandlerType,
  handler_config: HandlerConfig,
  rate_limit_per_minute: Type.Integer(),
  is_active: Type.Boolean(),
  sample_captured_at: Nullable(Timestamp),
  sample_capture_pending: Type.Boolean({ description: 'Whether the next verified request\'s body will become the sample' }),
  created_by_user_id: Nullable(Type.String({ format: 'uuid', description: 'The creator; direct actions run with their permissions (null once that user is deleted)' })),
  created_at: Timestamp,
  updated_at: Timestamp,
};

/** In lists: everything but the sample body. */
export const InboundWebhookSummary = Type.Object(summaryFields);
export type InboundWebhookSummary = Static<typeof InboundWebhookSummary>;

export const InboundWebhook = Type.Object({
  ...summaryFields,
  sample_payload: Type.Unknown({ description: 'The captured sample body (any JSON); null when none (see sample_captured_at)' }),
});
export type InboundWebhook = Static<typeof InboundWebhook>;

const InboundWebhookWithSecret = Type.Object({
  ...summaryFields,
  sample_payload: Type.Unknown(),
  secret: Type.Optional(Type.String({ description: 'The generated secret; present only when the service generated it, and shown only in this response' })),
});

export const InboundWebhookResponse = dataOf(InboundWebhook);
export const InboundWebhookSecretResponse = dataOf(InboundWebhookWithSecret);
export const InboundWebhookListResponse = listOf(InboundWebhookSummary);

export const ListInboundWebhooksQuery = listQuery(['name', 'slug', 'created_at', 'updated_at'] as const, {
  is_active: Type.Optional(Type.Boolean()),
  handler_type: Type.Optional(HandlerType),
});
export type ListInboundWebhooksQuery = Static<typeof ListInboundWebhooksQuery>;

const TargetFieldSchema = Type.Object({
  name: Type.String(),
  type: Type.Enum(['string', 'integer', 'number', 'boolean', 'enum', 'json', 'ref']),
  required: Type.Boolean(),
  description: Type.String(),
  enum_values: Nullable(Type.Array(Type.String())),
  ref_entity: Nullable(Type.String({ description: 'For ref: the kind of record the UUID names' })),
  max_length: Nullable(Type.Integer()),
  nullable: Type.Boolean({ description: 'Whether a null value is passed on (clears the field); otherwise null means "not given"' }),
});

export const ActionInfo = Type.Object({
  name: Type.String(),
  entity_type: Type.String(),
  display_name: Type.String(),
  description: Type.String(),
  permissions: Type.Array(Type.String(), { description: 'What the configuration\'s creator must hold' }),
  target_fields: Type.Array(TargetFieldSchema),
});
export type ActionInfo = Static<typeof ActionInfo>;
export const ActionListResponse = Type.Object({ data: Type.Array(ActionInfo) });

export const NoQuery = Type.Object({}, { additionalProperties: false });
export const NoBody = Type.Object({}, { additionalProperties: false, description: 'No body' });
