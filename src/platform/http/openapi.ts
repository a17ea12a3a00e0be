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

/**
 * The document's tags, each with the line a documentation viewer shows under it, in groups (`x-tagGroups`)
 * ordered as the specification's endpoint areas. Every tag an operation uses is here (the route-contract
 * suite checks it).
 */
export const TAG_GROUPS: readonly { name: string; tags: Readonly<Record<string, string>> }[] = [
  {
    name: 'Search',
    tags: {
      Search: 'Unified full-text search across the areas, with permissions applied before the limit',
    },
  },
  {
    name: 'Clients and countries',
    tags: {
      Clients: 'Clients, their locations and billing profiles, and merging one client into another',
      Contacts: 'People at a client',
      'Reference data': 'Countries (ISO 3166), identical for every tenant',
    },
  },
  {
    name: 'Assets',
    tags: {
      Assets: 'Managed devices and other assets of a client',
      'Asset types': 'The tenant\'s asset types and their custom fields',
      'Asset documents': 'Documents attached to an asset',
      'Asset maintenance': 'Maintenance schedules and their history',
      'Asset relationships': 'Links between assets',
      'Asset tickets': 'Tickets linked to an asset',
      RMM: 'Remote-monitoring integrations feeding assets and alerts',
    },
  },
  {
    name: 'Projects',
    tags: {
      Projects: 'Projects, their phases and status',
      'Project tasks': 'Tasks of a project phase',
      'Project templates': 'Reusable project structures',
    },
  },
  {
    name: 'Opportunities',
    tags: {
      Opportunities: 'The sales pipeline: deals, next actions, evidence, interactions, forecasts',
    },
  },
  {
    name: 'Users and roles',
    tags: {
      Users: 'Internal and client-portal users',
      Roles: 'Roles and the permissions they grant',
      Teams: 'Teams of users',
      'API keys': 'API keys of users, shown once',
      'Feature access': 'What the tenant\'s plan enables',
    },
  },
  {
    name: 'Products, contracts, billing',
    tags: {
      'Service types': 'Kinds of billable services',
      Services: 'The service catalogue',
      Products: 'The product catalogue',
      Contracts: 'Contracts and their assignment to clients',
      'Contract lines': 'Fixed, hourly, usage and bucket lines of a contract',
      'Usage records': 'Metered usage billed by usage lines',
      Tax: 'Tax rates, client tax settings and calculation',
      Invoices: 'Invoices: drafts, finalizing, sending, PDFs, generation from contracts',
      'Payments and credit': 'Payments, credit notes and client credit',
      Quotes: 'Quotes and their conversion to contracts',
      'Billing settings': 'Numbering and defaults of billing',
      'Billing analytics': 'Revenue per currency and period',
    },
  },
  {
    name: 'Knowledge base',
    tags: {
      'Knowledge base': 'Articles, their reviews and templates',
    },
  },
  {
    name: 'Automation',
    tags: {
      Automation: 'Rules, executions, templates and statistics of the automation engine',
    },
  },
  {
    name: 'Accounting-ledger integration',
    tags: {
      'Ledger (QuickBooks Online)': 'The accounting-ledger integration: connection, mappings, sync, health',
    },
  },
  {
    name: 'Storage',
    tags: {
      Storage: 'Per-tenant key-value storage with revisions and quotas',
    },
  },
  {
    name: 'Tickets',
    tags: {
      Tickets: 'Tickets, their comments and time',
      'Ticket settings': 'Boards, statuses, priorities and categories of tickets',
    },
  },
  {
    name: 'Outbound webhooks',
    tags: {
      Webhooks: 'Signed outbound webhooks and their deliveries',
    },
  },
  {
    name: 'Inbound webhooks',
    tags: {
      'Inbound webhooks': 'Authenticated inbound webhooks that create or update records',
    },
  },
  {
    name: 'Authentication',
    tags: {
      Authentication: 'Sign-in, sessions, tokens and key validation',
    },
  },
  {
    name: 'Service',
    tags: {
      Health: 'Liveness and readiness',
      Meta: 'This document and the list of operations as agent tools',
    },
  },
];

export async function registerOpenApi(app: FastifyInstance, opts: { publicUrl: string }): Promise<void> {
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
        license: { name: 'MIT', identifier: 'MIT' },
      },
      // Where this deployment is reached (PSA_PUBLIC_URL): generated clients and the docs page call it.
      servers: [{ url: opts.publicUrl }],
      tags: TAG_GROUPS.flatMap((g) => Object.entries(g.tags).map(([name, description]) => ({ name, description }))),
      components: { securitySchemes: { ApiKeyAuth: { type: 'apiKey', in: 'header', name: 'X-API-Key' } } },
      security: [{ ApiKeyAuth: [] }],
    },
    // The generator keeps only the top-level fields it knows; the tag groups are added to its output.
    transformObject: (documentObject) =>
      Object.assign({}, 'openapiObject' in documentObject ? documentObject.openapiObject : documentObject.swaggerObject, {
        'x-tagGroups': TAG_GROUPS.map((g) => ({ name: g.name, tags: Object.keys(g.tags) })),
      }),
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
