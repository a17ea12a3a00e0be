import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { Type, type Static } from 'typebox';
import { AppError } from '../../platform/http/errors.ts';
import { ErrorEnvelope, Id } from '../../platform/http/schemas.ts';
import type { Receiver } from './receiver.ts';

const { $id: _id, ...errorBody } = ErrorEnvelope as typeof ErrorEnvelope & { $id?: string };
const error = (description: string) => ({ ...errorBody, description });

const ReceiverParams = Type.Object(
  {
    tenantSlug: Type.String({ minLength: 1, maxLength: 100, description: 'The tenant\'s slug' }),
    webhookSlug: Type.String({ minLength: 1, maxLength: 100, description: 'The inbound webhook\'s slug' }),
  },
  { additionalProperties: false },
);

const ActionResult = Type.Object(
  {
    action: Type.String(),
    entity_type: Type.String(),
    entity_id: Type.Optional(Id),
    external_id: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    operation: Type.Optional(Type.String({ description: 'created, updated, comment_added or status_changed' })),
  },
  { additionalProperties: true, description: 'What the direct action did' },
);

const Processed = Type.Object({
  delivery_id: Id,
  status: Type.Enum(['processed', 'duplicate']),
  result: Type.Optional(ActionResult),
  duplicate: Type.Optional(Type.Boolean({ description: 'true: the idempotency key was seen inside the window; nothing was done again' })),
  original_delivery_id: Type.Optional(Id),
}, { description: 'processed: the direct action ran (result); duplicate: a no-op that names the original delivery' });

const Accepted = Type.Object({ delivery_id: Id, status: Type.Enum(['accepted']) }, { description: 'Queued for the workflow handler' });

const JSON_TYPE = /^application\/(?:[a-z0-9.!#$&^_-]+\+)?json\s*(?:;\s*charset\s*=\s*"?utf-8"?\s*)?$/i;

/** JSON only (any +json type), UTF-8: everything else is a 415 before the body is read. */
async function requireJson(req: FastifyRequest) {
  const type = req.headers['content-type'];
  if (typeof type !== 'string' || !JSON_TYPE.test(type.trim())) {
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'Send the body as application/json (UTF-8)');
  }
}

/**
 * The public receiver, in its own plugin scope: the body arrives as raw bytes (the HMAC is computed
 * over exactly what was sent) and is parsed only once the request is authenticated. The query string,
 * which may carry a path token, never reaches the logs.
 */
export const receiverRoutes = (receive: Receiver, bodyLimit: number): FastifyPluginAsyncTypebox => async (app) => {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit }, (_req, body, done) => done(null, body));

  app.post('/:tenantSlug/:webhookSlug', {
    bodyLimit,
    onRequest: requireJson,
    schema: {
      operationId: 'receiveInboundWebhook',
      tags: ['Inbound webhooks'],
      summary: 'Public receiver: an external system posts JSON, authenticated per the webhook\'s auth_type (no API key)',
      description: [
        'Authentication per configuration: hmac_sha256 (the configured header holds `sha256=<hex>` or the bare hex HMAC-SHA256 of the raw body,',
        'or of `<timestamp>.<raw body>` when a timestamp header is configured; stale timestamps are refused), bearer (Authorization: Bearer <token>),',
        'ip_allowlist (the client address; X-Forwarded-For counts only behind a configured trusted proxy), path_token (the token in the configured query parameter, default `token`).',
        'Then the webhook\'s rate limit, then idempotency (a repeated key inside the window answers 200 with duplicate: true), then the handler.',
        'Body: JSON (application/json or any +json type, UTF-8), 1 MiB at most unless configured otherwise.',
      ].join(' '),
      params: ReceiverParams,
      body: Type.Unknown({ description: 'Any JSON document the sender defines' }),
      response: {
        200: Processed,
        202: Accepted,
        400: error('The body is not valid UTF-8 JSON (details.delivery_id names the record)'),
        401: error('Authentication failed (no detail is given)'),
        404: error('No such webhook for this tenant, or the webhook is inactive'),
        409: error('A concurrent delivery with the same idempotency key was released while this one waited; retry'),
        413: error('The body is larger than the limit'),
        415: error('The body is not JSON'),
        422: error('The mapping, a lookup or the action refused the delivery; the sender should not retry it unchanged. details: delivery_id, reason, and the field or problems'),
        429: error('Too many requests: the webhook\'s rate limit, or too many refused requests from this address; see Retry-After'),
        500: error('An unexpected fault (details.delivery_id when a delivery was recorded); retrying is safe'),
      },
    },
    config: { public: true, redactQuery: true },
  }, async (req, reply) => {
    const result = await receive(req);
    reply.code(result.statusCode as 200 | 202);
    return result.body as Static<typeof Processed> | Static<typeof Accepted>;
  });
};
