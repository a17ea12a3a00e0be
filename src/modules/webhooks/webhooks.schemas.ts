import { Type, type Static } from 'typebox';
import { Id, Nullable, Timestamp, dataOf, listOf, listQuery } from '../../platform/http/schemas.ts';

export const MASK = '***';
export const MAX_CUSTOM_HEADERS = 20;
export const MAX_HEADER_NAME_LENGTH = 256;
export const MAX_HEADER_VALUE_LENGTH = 1024;

const EventTypes = Type.Array(Type.String({ minLength: 1, maxLength: 100 }), {
  minItems: 1,
  maxItems: 50,
  uniqueItems: true,
  description: 'Delivered event types to receive (GET /api/v1/webhooks/events lists them with `delivered: true`)',
});

const CustomHeaders = Type.Record(Type.String(), Type.String({ maxLength: MAX_HEADER_VALUE_LENGTH }), {
  maxProperties: MAX_CUSTOM_HEADERS,
  additionalProperties: false,
  description:
    `Extra request headers (at most ${MAX_CUSTOM_HEADERS}): names are HTTP tokens; values at most ${MAX_HEADER_VALUE_LENGTH} characters, ` +
    'without CR, LF or other control characters. Content-Type, Content-Length, Host, User-Agent, Connection, Transfer-Encoding, ' +
    'the other hop-by-hop headers and X-Service-* are reserved. Stored encrypted; responses show the names with values masked as "***". ' +
    'On update, a value of "***" keeps the stored value of that header.',
});

const fieldList = (fields: readonly string[]) =>
  Nullable(Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
    maxItems: 64,
    uniqueItems: true,
    description: `null: every field. Otherwise only these \`data\` fields (plus the ids, always kept): ${fields.join(', ')}`,
  }));

/** One optional allowlist per payload entity of the event vocabulary (ticket, project). */
const payloadFieldsOf = (entities: Readonly<Record<string, readonly string[]>>) =>
  Type.Object(Object.fromEntries(Object.entries(entities).map(([entity, fields]) => [entity, Type.Optional(fieldList(fields))])), {
    additionalProperties: false,
    description: 'Per-entity allowlist of `data` fields (project applies to project and project-task events); null: full payloads',
  });
/** Per payload entity, the `data` fields a webhook receives (absent or null: every field). */
export type PayloadFields = Static<ReturnType<typeof payloadFieldsOf>>;

const EventFilter = Type.Object(
  {
    entity_ids: Type.Array(Id, {
      minItems: 1,
      maxItems: 100,
      uniqueItems: true,
      description: 'An event matches when its ticket_id, project_id or task_id is listed',
    }),
  },
  { additionalProperties: false, description: 'null: every event of the subscribed types' },
);
export type EventFilter = Static<typeof EventFilter>;

const name = Type.String({ minLength: 1, maxLength: 255, description: 'Trimmed' });
const description = Nullable(Type.String({ maxLength: 2000 }));
const url = Type.String({ minLength: 1, maxLength: 2048, description: 'http:// or https://; private and local addresses are refused (422)' });
const rateLimit = Type.Integer({ minimum: 1, maximum: 10_000, description: 'Deliveries per minute (token bucket); excess waits, never dropped' });

/**
 * The schemas that carry `payload_fields`, whose keys are the payload entities of the installed event
 * vocabulary: built when the webhooks module is built (after the manifests are installed).
 */
export function createWebhookSchemas(payloadEntities: Readonly<Record<string, readonly string[]>>) {
  const PayloadFields = payloadFieldsOf(payloadEntities);
  const Webhook = Type.Object({
    webhook_id: Id,
    name: Type.String(),
    description: Nullable(Type.String()),
    url: Type.String(),
    event_types: Type.Array(Type.String()),
    custom_headers: Type.Record(Type.String(), Type.String(), { description: 'Header names; values are never shown ("***")' }),
    rate_limit_per_minute: Type.Integer(),
    payload_fields: Nullable(PayloadFields),
    event_filter: Nullable(EventFilter),
    is_active: Type.Boolean(),
    auto_disabled_at: Nullable(Timestamp),
    failing_since: Nullable(Type.String({ format: 'date-time', description: 'First failed attempt after the last success; null while healthy' })),
    last_success_at: Nullable(Timestamp),
    last_failure_at: Nullable(Timestamp),
    created_by_user_id: Nullable(Id),
    created_at: Timestamp,
    updated_at: Timestamp,
  });

  const WebhookWithSecret = Type.Object({
    ...Webhook.properties,
    secret: Type.String({ description: 'The signing secret (32 random bytes, base64url). Shown only in this response.' }),
  });

  const CreateWebhookBody = Type.Object(
    {
      name,
      description: Type.Optional(description),
      url,
      event_types: EventTypes,
      custom_headers: Type.Optional(Nullable(CustomHeaders)),
      rate_limit_per_minute: Type.Optional(rateLimit),
      payload_fields: Type.Optional(Nullable(PayloadFields)),
      event_filter: Type.Optional(Nullable(EventFilter)),
      is_active: Type.Optional(Type.Boolean()),
    },
    { additionalProperties: false },
  );

  const UpdateWebhookBody = Type.Object(
    {
      name: Type.Optional(name),
      description: Type.Optional(description),
      url: Type.Optional(url),
      event_types: Type.Optional(EventTypes),
      custom_headers: Type.Optional(Nullable(CustomHeaders)),
      rate_limit_per_minute: Type.Optional(rateLimit),
      payload_fields: Type.Optional(Nullable(PayloadFields)),
      event_filter: Type.Optional(Nullable(EventFilter)),
      is_active: Type.Optional(Type.Boolean({ description: 'true re-enables (also after an auto-disable) and clears the failure window' })),
    },
    { additionalProperties: false, minProperties: 1, description: 'Partial update; custom_headers replaces the whole set' },
  );
  return {
    Webhook,
    WebhookWithSecret,
    CreateWebhookBody,
    UpdateWebhookBody,
    WebhookResponse: dataOf(Webhook),
    WebhookWithSecretResponse: dataOf(WebhookWithSecret),
    WebhookListResponse: listOf(Webhook),
  };
}
type WebhookSchemas = ReturnType<typeof createWebhookSchemas>;
export type Webhook = Static<WebhookSchemas['Webhook']>;
export type WebhookWithSecret = Static<WebhookSchemas['WebhookWithSecret']>;
export type CreateWebhookBody = Static<WebhookSchemas['CreateWebhookBody']>;
export type UpdateWebhookBody = Static<WebhookSchemas['UpdateWebhookBody']>;


export const WEBHOOK_SORT_FIELDS = ['created_at', 'updated_at', 'name'] as const;
export type WebhookSortField = (typeof WEBHOOK_SORT_FIELDS)[number];

export const ListWebhooksQuery = listQuery(WEBHOOK_SORT_FIELDS, {
  is_active: Type.Optional(Type.Boolean()),
  event_type: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Only webhooks subscribed to this event type' })),
});
export type ListWebhooksQuery = Static<typeof ListWebhooksQuery>;

export const EventTypeInfo = Type.Object({
  event_type: Type.String(),
  entity: Type.String(),
  description: Type.String(),
  delivered: Type.Boolean({ description: 'Whether webhooks receive it (ticket and project events)' }),
});

export const TestOutcome = Type.Object({
  delivery_id: Id,
  event_id: Id,
  success: Type.Boolean({ description: 'A 2xx answer within 10 seconds' }),
  response_status: Nullable(Type.Integer()),
  response_body: Nullable(Type.String({ description: 'The first 8 KiB' })),
  duration_ms: Nullable(Type.Integer()),
  error: Nullable(Type.String()),
});
export type TestOutcome = Static<typeof TestOutcome>;

export const NoQuery = Type.Object({}, { additionalProperties: false });

export const EventTypesResponse = dataOf(Type.Array(EventTypeInfo));
export const TestOutcomeResponse = dataOf(TestOutcome);
