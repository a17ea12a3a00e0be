import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';

/** The OpenAPI extension that marks an operation an AI agent may call only with a person's approval. */
export const REQUIRES_APPROVAL = 'x-requires-approval';

/** What a route's `config.permission` says; null = any valid API key (or none, for a public route). */
export type DeclaredPermission = string | readonly string[] | null;

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

const Tool = Type.Object(
  {
    name: Type.String({ description: 'The operationId' }),
    description: Type.String({ description: 'The summary, then the description if any' }),
    method: Type.Enum([...METHODS]),
    path: Type.String({ description: 'OpenAPI form, e.g. /api/v1/clients/{id}' }),
    permission: Type.Union([Type.String(), Type.Array(Type.String()), Type.Null()], {
      description: 'Permission(s) the caller needs, all of them, as the route declares; null = any valid API key (none for public routes)',
    }),
    requires_approval: Type.Boolean({ description: 'A person must approve the call when an AI agent makes it' }),
    input_schema: Type.Object({}, {
      additionalProperties: true,
      description: 'JSON Schema (type object) of the input: path and query parameters by name, and `body` when the operation takes one',
    }),
  },
  { additionalProperties: false },
);
export type Tool = Static<typeof Tool>;

const ToolList = Type.Object({ data: Type.Array(Tool) }, { additionalProperties: false });
const NoQuery = Type.Object({}, { additionalProperties: false });

type Json = Record<string, unknown>;
interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  description?: string;
  schema?: Json;
}

/** One input schema per operation: path and query parameters as properties, the request body as `body`. */
function inputSchema(op: Json): Json {
  const properties: Record<string, Json> = {};
  const required: string[] = [];
  for (const p of (op.parameters ?? []) as Parameter[]) {
    if (p.in !== 'path' && p.in !== 'query') continue;
    // The generator lifts a parameter's description out of its schema; a tool wants it back inside.
    properties[p.name] = { ...p.schema, ...(p.description && !p.schema?.description ? { description: p.description } : {}) };
    if (p.in === 'path' || p.required === true) required.push(p.name);
  }
  const body = op.requestBody as { required?: boolean; content?: Record<string, { schema?: Json }> } | undefined;
  if (body?.content) {
    // JSON when the operation takes it; otherwise (a multipart-only upload) the one form it takes.
    const media = body.content['application/json'] ?? Object.values(body.content)[0];
    properties.body = media?.schema ?? {};
    if (body.required === true) required.push('body');
  }
  return { type: 'object', properties, required, additionalProperties: false };
}

/**
 * Every operation of the OpenAPI document as a tool for an agent framework, sorted by name. Built from
 * the generated document itself, so it lists exactly what the document does (no HEAD twins, no docs UI).
 */
export function toolsFrom(document: Json, permissionOf: (operationId: string) => DeclaredPermission): Tool[] {
  const tools: Tool[] = [];
  for (const [path, item] of Object.entries((document.paths ?? {}) as Record<string, Record<string, Json>>)) {
    for (const [method, op] of Object.entries(item)) {
      const name = op.operationId;
      if (typeof name !== 'string' || !(METHODS as readonly string[]).includes(method.toUpperCase())) continue;
      const summary = typeof op.summary === 'string' ? op.summary : '';
      const description = typeof op.description === 'string' ? op.description : '';
      tools.push({
        name,
        description: [summary, description].filter(Boolean).join('\n\n'),
        method: method.toUpperCase() as Tool['method'],
        path,
        permission: (permissionOf(name) ?? null) as Tool['permission'],
        requires_approval: op[REQUIRES_APPROVAL] === true,
        input_schema: inputSchema(op),
      });
    }
  }
  return tools.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/**
 * `GET /api/v1/tools`: the API as a machine-readable tool registry. Any valid key may read it, and it
 * lists every operation, including those the caller cannot call (`permission` says what each needs).
 * Routes do not change after the app is ready, so the list is built on first use and kept.
 */
export function registerTools(app: FastifyInstance, document: () => unknown, permissionOf: (operationId: string) => DeclaredPermission): void {
  let cached: { data: Tool[] } | undefined;
  app.get(
    '/api/v1/tools',
    {
      schema: {
        operationId: 'listTools',
        tags: ['Meta'],
        summary: 'Every operation of this API as a tool for AI agents',
        description:
          'Name (operationId), method, path, the permission it needs, whether an agent needs a person’s approval to call it, ' +
          'and one JSON Schema of its input. Lists every operation, including those the caller’s key cannot call.',
        querystring: NoQuery,
        response: { 200: ToolList },
      },
      config: { permission: null },
    },
    async () => (cached ??= { data: toolsFrom(document() as Json, permissionOf) }),
  );
}
