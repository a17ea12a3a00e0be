import { Type, type TObject, type TProperties } from 'typebox';
import { Id } from '../../../platform/http/schemas.ts';
import { UpdateAssetBody } from '../../assets/index.ts';
import { CreateTaskBody } from '../../projects/index.ts';
import { PutRecordBody, RecordParams } from '../../storage/index.ts';
import { CreateCommentBody, CreateTicketBody, UpdateTicketBody } from '../../tickets/index.ts';
import type { ActionDefinition } from '../automation.types.ts';

/**
 * The action types a rule may run. Each `config` is the REST body of the endpoint the action stands in
 * for (same field names, bounds and formats), plus the id of the record the endpoint names in its path;
 * the runners (actions.runners.ts) write through the same in-transaction functions the endpoints use, so
 * the same validation, visibility checks, events and search sync apply.
 *
 * Transactional actions run in the engine's step transaction (exactly-once effect); send_email and
 * call_url cannot be rolled back: they run at least once and carry the step's idempotency key.
 */

/** A closed object of the REST body's fields plus the path's id fields (ids first). */
function withIds(ids: TProperties, body: TObject, opts: { description: string; minProperties?: number; required?: string[] }) {
  return Type.Object(
    { ...ids, ...body.properties },
    {
      additionalProperties: false,
      description: opts.description,
      ...(opts.minProperties === undefined ? {} : { minProperties: opts.minProperties }),
      ...(opts.required === undefined ? {} : { required: opts.required }),
    },
  );
}

// ---------------------------------------------------------------- send_email

export const MAX_EMAIL_RECIPIENTS = 20;
export const MAX_EMAIL_SUBJECT = 300;
export const MAX_EMAIL_BODY = 50_000;

const Email = Type.String({ format: 'email', minLength: 3, maxLength: 254 });

export const SendEmailConfig = Type.Object(
  {
    to: Type.Array(Email, { minItems: 1, maxItems: MAX_EMAIL_RECIPIENTS, description: `1–${MAX_EMAIL_RECIPIENTS} addresses` }),
    cc: Type.Optional(Type.Array(Email, { maxItems: MAX_EMAIL_RECIPIENTS, description: `At most ${MAX_EMAIL_RECIPIENTS} addresses` })),
    subject: Type.String({ minLength: 1, maxLength: MAX_EMAIL_SUBJECT, description: 'Line breaks become spaces' }),
    body: Type.String({ minLength: 1, maxLength: MAX_EMAIL_BODY, description: 'Plain text' }),
  },
  { additionalProperties: false, description: 'An e-mail through the platform mailer (PSA_MAIL_FROM is the sender)' },
);

// ---------------------------------------------------------------- call_url

export const CALL_URL_METHODS = ['POST', 'PUT', 'PATCH', 'GET'] as const;
export const MAX_CALL_URL_HEADERS = 20;
export const MAX_CALL_URL_HEADER_NAME = 256;
export const MAX_CALL_URL_HEADER_VALUE = 1024;
/** The request body's limit, serialized. */
export const MAX_CALL_URL_BODY_BYTES = 64 * 1024;

/** Header names the service sets (or that only the HTTP layer may set); a config may not send them. */
export const RESERVED_CALL_URL_HEADERS = [
  'host', 'content-length', 'content-type', 'user-agent', 'connection', 'transfer-encoding', 'keep-alive', 'upgrade', 'te', 'trailer', 'expect',
  'proxy-connection', 'idempotency-key',
] as const;
/** Header-name prefixes the service reserves (its own headers). */
export const RESERVED_CALL_URL_PREFIXES = ['x-service-', 'x-psa-'] as const;

/** `word` matched in any letter case, without relying on a regex flag (JSON Schema patterns have none). */
const anyCase = (word: string) => word.replace(/[a-z]/g, (c) => `[${c}${c.toUpperCase()}]`);
/** An RFC 9110 token that is not a reserved name nor starts with a reserved prefix. */
export const CALL_URL_HEADER_NAME_PATTERN =
  `^(?!(?:${RESERVED_CALL_URL_HEADERS.map(anyCase).join('|')})$)(?!(?:${RESERVED_CALL_URL_PREFIXES.map(anyCase).join('|')}))[!#$%&'*+.^_\`|~0-9A-Za-z-]+$`;
/** Tab, printable ASCII and Latin-1: no CR, LF or other control characters. */
export const CALL_URL_HEADER_VALUE_PATTERN = '^[\\t\\x20-\\x7e\\x80-\\xff]*$';

export const CallUrlConfig = Type.Object(
  {
    url: Type.String({ format: 'uri', minLength: 1, maxLength: 2048, description: 'http or https; a private or loopback address is refused (PSA_WEBHOOK_ALLOW_PRIVATE exempts CIDRs)' }),
    method: Type.Optional(Type.Enum([...CALL_URL_METHODS], { default: 'POST', description: 'POST (default), PUT, PATCH or GET' })),
    headers: Type.Optional(
      Type.Record(Type.String(), Type.String({ maxLength: MAX_CALL_URL_HEADER_VALUE, pattern: CALL_URL_HEADER_VALUE_PATTERN }), {
        maxProperties: MAX_CALL_URL_HEADERS,
        propertyNames: { minLength: 1, maxLength: MAX_CALL_URL_HEADER_NAME, pattern: CALL_URL_HEADER_NAME_PATTERN },
        description:
          `Extra request headers (at most ${MAX_CALL_URL_HEADERS}): names are HTTP tokens, values at most ${MAX_CALL_URL_HEADER_VALUE} characters without ` +
          'control characters. Host, Content-Length, Content-Type, User-Agent, Idempotency-Key, the hop-by-hop headers, X-Service-* and X-Psa-* are reserved.',
      }),
    ),
    body: Type.Optional(Type.Unknown({ description: `Any JSON value, sent as application/json (at most ${MAX_CALL_URL_BODY_BYTES / 1024} KiB serialized); not with GET` })),
  },
  {
    additionalProperties: false,
    description:
      'An HTTP request through the SSRF-guarded client, signed like outbound webhooks: X-Service-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(rule signing secret, ' +
      '"<t>.<raw body>")>, with Idempotency-Key (stable across retries of the step), X-Service-Automation-Rule-Id and X-Service-Automation-Execution-Id. ' +
      'Redirects are not followed; an answer other than 2xx fails the step.',
  },
);

// ---------------------------------------------------------------- records

export const CreateTicketConfig = withIds({}, CreateTicketBody, { description: 'The body of POST /api/v1/tickets' });
export const UpdateTicketConfig = withIds({ ticket_id: Id }, UpdateTicketBody, {
  description: 'ticket_id and the body of PUT /api/v1/tickets/{id} (at least one field to change)',
  minProperties: 2,
});
export const AddTicketCommentConfig = withIds({ ticket_id: Id }, CreateCommentBody, { description: 'ticket_id and the body of POST /api/v1/tickets/{ticketId}/comments' });
export const CreateProjectTaskConfig = withIds({ project_id: Id, phase_id: Id }, CreateTaskBody, {
  description: 'project_id, phase_id and the body of POST /api/v1/projects/{id}/phases/{phaseId}/tasks',
});
export const UpdateAssetConfig = withIds({ asset_id: Id }, UpdateAssetBody, {
  description: 'asset_id and the body of PUT /api/v1/assets/{id} (at least one field to change)',
  minProperties: 2,
});
export const SetStorageRecordConfig = withIds(RecordParams.properties, PutRecordBody, {
  description: 'namespace, key and the body of PUT /api/v1/storage/namespaces/{namespace}/records/{key} (value, metadata, ttlSeconds, ifRevision)',
  required: ['namespace', 'key', 'value'],
});

export const ACTION_DEFINITIONS: readonly ActionDefinition[] = [
  {
    type: 'create_ticket',
    description: 'Creates a ticket like POST /api/v1/tickets (defaults, checks and ticket.created included). Records ticket_id and ticket_number.',
    config: CreateTicketConfig,
    permissions: ['ticket:create'],
    transactional: true,
  },
  {
    type: 'update_ticket',
    description:
      'Changes a ticket like PUT /api/v1/tickets/{id}: status, priority, assignee, team, board or any other field. Emits ticket.updated and, as they apply, ' +
      'ticket.status_changed, ticket.closed and ticket.assigned; nothing when the values already match. Records ticket_id.',
    config: UpdateTicketConfig,
    permissions: ['ticket:update'],
    transactional: true,
  },
  {
    type: 'add_ticket_comment',
    description: 'Adds a comment or internal note like POST /api/v1/tickets/{ticketId}/comments (ticket.comment.added). Records ticket_id and comment_id.',
    config: AddTicketCommentConfig,
    permissions: ['ticket:update'],
    transactional: true,
  },
  {
    type: 'create_project_task',
    description: 'Creates a task in a phase of a project like POST /api/v1/projects/{id}/phases/{phaseId}/tasks (project.task.created). Records task_id.',
    config: CreateProjectTaskConfig,
    permissions: ['project_task:create'],
    transactional: true,
  },
  {
    type: 'update_asset',
    description: 'Changes an asset like PUT /api/v1/assets/{id} (asset.updated when something changed). Records asset_id.',
    config: UpdateAssetConfig,
    permissions: ['asset:update'],
    transactional: true,
  },
  {
    type: 'set_storage_record',
    description:
      'Creates or replaces a record of the tenant\'s key-value storage like PUT /api/v1/storage/namespaces/{namespace}/records/{key} (quotas, ifRevision and ' +
      'ttlSeconds as there). Records namespace, key, revision and whether it was created.',
    config: SetStorageRecordConfig,
    permissions: ['storage:write'],
    transactional: true,
  },
  {
    type: 'send_email',
    description:
      'Sends a plain-text e-mail through the platform mailer. Runs at least once: a retried step sends again with the same Message-ID ' +
      '(<execution_id.action_index@sender domain>) and X-Service-Idempotency-Key, so receivers can recognise the repeat. Records the Message-ID and recipients.',
    config: SendEmailConfig,
    permissions: ['automation:update'],
    transactional: false,
  },
  {
    type: 'call_url',
    description:
      'Calls an HTTP endpoint through the SSRF-guarded client, signed with the rule\'s signing secret like outbound webhooks. Runs at least once: a retried ' +
      'step sends the same Idempotency-Key. Fails on an answer other than 2xx, a timeout or a refused address. Records the status and the start of the answer.',
    config: CallUrlConfig,
    permissions: ['automation:update'],
    transactional: false,
  },
];

export const ACTION_TYPES = ACTION_DEFINITIONS.map((d) => d.type);

const byType = new Map(ACTION_DEFINITIONS.map((d) => [d.type, d]));

/** The definition of an action type, or undefined for an unknown one. */
export const actionDefinition = (type: string): ActionDefinition | undefined => byType.get(type);
