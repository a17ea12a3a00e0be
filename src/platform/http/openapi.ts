import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance, RouteOptions } from 'fastify';
import { ErrorEnvelope } from './schemas.ts';
import { registerTools, REQUIRES_APPROVAL, type DeclaredPermission } from './tools.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * A person must approve the call when an AI agent makes it (destructive or hard-to-undo operations).
     * Documented as `x-requires-approval: true` on the operation and `requires_approval` in /api/v1/tools;
     * the API itself does not enforce it — the agent's framework does.
     */
    requiresApproval?: boolean;
  }
}

const { $id: _id, ...errorBody } = ErrorEnvelope as typeof ErrorEnvelope & { $id?: string };

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'Invalid request (VALIDATION_ERROR or BAD_REQUEST)',
  401: 'Missing or invalid API key',
  403: 'The key lacks a required permission (details.required)',
  404: 'Not found in the caller’s tenant',
  409: 'Conflict with the current state',
  412: 'If-Match did not match the current ETag',
  413: 'Body larger than the limit',
  415: 'Body is not JSON',
  422: 'Breaks a business rule',
  429: 'Rate limited; see Retry-After',
  500: 'Unexpected error (masked)',
};

type Schema = NonNullable<RouteOptions['schema']> & Record<string, unknown>;

/**
 * Completes every route's documented contract from what it declares: the standard error responses,
 * the security requirement (none for public routes), the permission it needs and whether an agent's
 * call needs approval (`x-requires-approval: true`, copied onto the operation; absent otherwise).
 */
export function documentRoute(route: RouteOptions): void {
  const schema = (route.schema ?? {}) as Schema;
  if (schema.hide) return;
  const isPublic = route.config?.public === true;
  const response = (schema.response ?? {}) as Record<string, unknown>;
  const codes = [400, 404, 500, ...(isPublic ? [] : [401, 403, 429])];
  if (['POST', 'PUT', 'PATCH'].includes(String(route.method))) codes.push(409, 413, 415, 422);
  if (['PUT', 'DELETE'].includes(String(route.method))) codes.push(412);
  for (const code of codes) {
    if (!(code in response)) response[code] = { description: ERROR_DESCRIPTIONS[code], ...errorBody };
  }
  schema.response = response;
  if (isPublic) schema.security = [];
  const permission = route.config?.permission;
  if (permission) {
    const list = typeof permission === 'string' ? [permission] : permission;
    const note = `Requires permission: ${list.map((p) => `\`${p}\``).join(', ')}.`;
    // Fastify's automatic HEAD route hands the GET route's schema object through here a second time.
    if (!schema.description?.endsWith(note)) schema.description = `${schema.description ? `${schema.description}\n\n` : ''}${note}`;
  }
  if (route.config?.requiresApproval === true) schema[REQUIRES_APPROVAL] = true;
  route.schema = schema;
}

export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  // The permission each operation declares, which the document carries only as prose (for the tool list).
  const permissions = new Map<string, DeclaredPermission>();
  app.addHook('onRoute', (route) => {
    // Routes added by plugins (the docs UI, CORS preflight) serve no tenant data.
    if (route.url.startsWith('/docs') || route.url === '*') route.config = { ...route.config, public: true };
    documentRoute(route);
    const operationId = (route.schema as Schema | undefined)?.operationId;
    if (typeof operationId === 'string') permissions.set(operationId, route.config?.public === true ? null : route.config?.permission ?? null);
  });
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'PSA API',
        version: '0.1.0',
        description: 'Professional-services-automation API. Send X-API-Key on every /api/v1 request.',
      },
      components: { securitySchemes: { ApiKeyAuth: { type: 'apiKey', in: 'header', name: 'X-API-Key' } } },
      security: [{ ApiKeyAuth: [] }],
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs', staticCSP: true });
  app.get(
    '/api/v1/openapi.json',
    {
      schema: { operationId: 'getOpenApi', tags: ['Meta'], summary: 'The OpenAPI 3.1 description of this API', hide: true },
      config: { public: true },
    },
    async () => app.swagger(),
  );
  registerTools(app, () => app.swagger(), (operationId) => permissions.get(operationId) ?? null);
}
