import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Type } from 'typebox';
import type { RouteOptions } from 'fastify';
import { buildApp } from '../../app.ts';
import { loadConfig } from '../../config.ts';
import { createTestDatabase, TEST_SECRET_KEY, type TestApp } from '../../../test/harness.ts';
import { makeTenant, makeUser, type TenantFixture } from '../../../test/factories.ts';
import { documentRoute } from './openapi.ts';
import { IdParams } from './schemas.ts';

type Json = Record<string, unknown>;
interface Tool {
  name: string;
  description: string;
  method: string;
  path: string;
  permission: string | string[] | null;
  requires_approval: boolean;
  input_schema: Json;
}

const PROBE = 'probeApprovalFlag';

/** The test app plus one throwaway route that declares the approval flag (nothing in the API does yet). */
let t: TestApp;
let tenant: TenantFixture;
beforeAll(async () => {
  const database = await createTestDatabase();
  const config = loadConfig({ PSA_RATE_LIMIT_BURST: '100000', PSA_RATE_LIMIT_PER_MINUTE: '100000', PSA_SECRET_KEY: TEST_SECRET_KEY });
  const app = await buildApp({
    config,
    database,
    logger: false,
    extend: (a) => {
      a.post('/api/v1/approval-probe/:id', {
        schema: {
          operationId: PROBE,
          tags: ['Test'],
          summary: 'A write an agent may make only with approval',
          params: IdParams,
          body: Type.Object({ reason: Type.String({ maxLength: 100 }) }, { additionalProperties: false }),
          response: { 204: Type.Null() },
        },
        config: { permission: 'client:update', requiresApproval: true },
      }, async (_req, reply) => reply.code(204).send());
    },
  });
  await app.ready();
  t = { app, database, close: async () => { await app.close(); await database.close(); } };
  tenant = await makeTenant(t);
});
afterAll(async () => t.close());

async function openApi(): Promise<{ path: string; method: string; op: Json }[]> {
  const res = await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' });
  expect(res.statusCode).toBe(200);
  const ops: { path: string; method: string; op: Json }[] = [];
  for (const [path, item] of Object.entries(res.json().paths as Record<string, Record<string, Json>>)) {
    for (const [method, op] of Object.entries(item)) ops.push({ path, method, op });
  }
  return ops;
}

async function tools(): Promise<Tool[]> {
  const res = await tenant.admin.get('/api/v1/tools');
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data as Tool[];
}

const tool = (list: Tool[], name: string) => {
  const found = list.find((x) => x.name === name);
  expect(found, `${name} in the tool list`).toBeDefined();
  return found!;
};

describe('GET /api/v1/tools', () => {
  it('lists every operation of the OpenAPI document once, sorted by name, with its method and path', async () => {
    const [ops, list] = await Promise.all([openApi(), tools()]);
    const names = list.map((x) => x.name);
    expect(names).toEqual([...names].sort());
    expect(new Set(names).size).toBe(names.length);
    expect([...names].sort()).toEqual(ops.map((o) => String(o.op.operationId)).sort());
    for (const { path, method, op } of ops) {
      const x = tool(list, String(op.operationId));
      expect(`${x.method} ${x.path}`).toBe(`${method.toUpperCase()} ${path}`);
      expect(x.requires_approval, x.name).toBe(op['x-requires-approval'] === true);
    }
    expect(names).toContain('listTools');
    expect(list.some((x) => x.method === 'HEAD' || x.path.startsWith('/docs'))).toBe(false);
  });

  it('describes a single-resource read exactly', async () => {
    expect(tool(await tools(), 'getClient')).toEqual({
      name: 'getClient',
      description: 'Get a client\n\nRequires permission: `client:read`.',
      method: 'GET',
      path: '/api/v1/clients/{id}',
      permission: 'client:read',
      requires_approval: false,
      input_schema: {
        type: 'object',
        properties: { id: { type: 'string', format: 'uuid', description: 'UUID' } },
        required: ['id'],
        additionalProperties: false,
      },
    });
  });

  it('puts a create operation’s body under `body`, required, with the body schema as documented', async () => {
    const [ops, list] = await Promise.all([openApi(), tools()]);
    const create = tool(list, 'createClient');
    expect(create).toMatchObject({ method: 'POST', path: '/api/v1/clients', permission: 'client:create', requires_approval: false });
    const documented = ops.find((o) => o.op.operationId === 'createClient')!.op as { requestBody: { content: Record<string, { schema: Json }> } };
    expect(create.input_schema).toEqual({
      type: 'object',
      properties: { body: documented.requestBody.content['application/json']!.schema },
      required: ['body'],
      additionalProperties: false,
    });
    const body = (create.input_schema.properties as Record<string, Json>).body!;
    expect(body.type).toBe('object');
    expect(body.required).toEqual(['client_name', 'billing_cycle']);
  });

  it('gives a list operation’s query parameters as optional properties, and keeps a multi-permission route’s array', async () => {
    const list = await tools();
    const clients = tool(list, 'listClients');
    const props = clients.input_schema.properties as Record<string, Json>;
    expect(Object.keys(props)).toEqual(expect.arrayContaining(['page', 'limit', 'sort', 'order', 'updated_since', 'search']));
    expect(props.limit).toEqual({ type: 'integer', minimum: 1, maximum: 100, default: 25 });
    expect(props.search).toMatchObject({ type: 'string', maxLength: 200, description: expect.any(String) });
    expect(clients.input_schema.required).toEqual([]);
    expect(list.find((x) => Array.isArray(x.permission) && x.permission.length > 1)).toBeDefined();
    expect(tool(list, 'listTools')).toMatchObject({ method: 'GET', path: '/api/v1/tools', permission: null, requires_approval: false });
    expect(tool(list, 'getHealth').permission).toBeNull();
  });

  it('carries a route’s approval flag into the document (x-requires-approval) and the tool (requires_approval)', async () => {
    const [ops, list] = await Promise.all([openApi(), tools()]);
    const probe = ops.find((o) => o.op.operationId === PROBE)!;
    expect(probe.op['x-requires-approval']).toBe(true);
    expect(ops.find((o) => o.op.operationId === 'getClient')!.op).not.toHaveProperty('x-requires-approval');
    expect(tool(list, PROBE)).toEqual({
      name: PROBE,
      description: 'A write an agent may make only with approval\n\nRequires permission: `client:update`.',
      method: 'POST',
      path: '/api/v1/approval-probe/{id}',
      permission: 'client:update',
      requires_approval: true,
      input_schema: {
        type: 'object',
        properties: {
          id: { type: 'string', format: 'uuid', description: 'UUID' },
          body: { type: 'object', required: ['reason'], properties: { reason: { type: 'string', maxLength: 100 } }, additionalProperties: false },
        },
        required: ['id', 'body'],
        additionalProperties: false,
      },
    });
  });

  it('maps route config to the operation extension: only requiresApproval: true sets it', () => {
    const route = (config: Json) => ({ method: 'POST', url: '/x', handler: () => undefined, schema: { operationId: 'x' }, config }) as unknown as RouteOptions;
    for (const [config, expected] of [[{ permission: 'a:b', requiresApproval: true }, true], [{ permission: 'a:b', requiresApproval: false }, undefined], [{ permission: 'a:b' }, undefined]] as const) {
      const r = route(config);
      documentRoute(r);
      expect((r.schema as Json)['x-requires-approval']).toBe(expected);
    }
  });

  it('needs a valid key but no permission: a key without any role reads the whole list', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/tools' })).statusCode).toBe(401);
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/tools', headers: { 'x-api-key': 'psa_nope' } })).statusCode).toBe(401);
    const { api } = await makeUser(t, tenant.tenant);
    const res = await api.get('/api/v1/tools');
    expect(res.statusCode).toBe(200);
    expect(res.json().data.length).toBe((await tools()).length);
    expect((await tenant.admin.get('/api/v1/tools?x=1')).statusCode).toBe(400);
  });
});
