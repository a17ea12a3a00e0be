import sharp from 'sharp';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ElicitRequestSchema, type CallToolResult, type ElicitRequest, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeUser, type TenantFixture } from '../../test/factories.ts';
import { formBody } from '../../test/multipart.ts';
import { createMcpServer, startHttpServer, type RunningHttpServer } from '../src/mcp.ts';
import { startServer, type LiveServer } from './server-kit.ts';

let server: LiveServer;
let ten: TenantFixture;
let techKey: string;
let base: string;
const clients: Client[] = [];

beforeAll(async () => {
  server = await startServer();
  ({ tenant: ten, baseUrl: base } = server);
  techKey = (await makeUser(server.t, ten.tenant, { role: 'Technician' })).api.key;
});

afterAll(async () => {
  await Promise.allSettled(clients.map((c) => c.close()));
  await server?.close();
});

type Elicit = (request: ElicitRequest) => ElicitResult;

/** An SDK client connected in memory to a server acting with `key`; with `elicit`, it can ask a person. */
async function connect(key: string, elicit?: Elicit): Promise<Client> {
  const server = createMcpServer({ apiKey: key, baseUrl: base });
  const client = new Client({ name: 'psa-test', version: '1.0.0' }, { capabilities: elicit ? { elicitation: {} } : {} });
  if (elicit) client.setRequestHandler(ElicitRequestSchema, (request) => elicit(request));
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
  clients.push(client);
  return client;
}

const call = async (client: Client, name: string, args: Record<string, unknown> = {}) => (await client.callTool({ name, arguments: args })) as CallToolResult;
const textOf = (result: CallToolResult) => (result.content[0] as { type: 'text'; text: string }).text;
const errorOf = (result: CallToolResult) => {
  expect(result.isError, textOf(result)).toBe(true);
  return (JSON.parse(textOf(result)) as { error: Record<string, unknown> }).error;
};
const dataOf = (result: CallToolResult) => {
  expect(result.isError ?? false, textOf(result)).toBe(false);
  return (result.structuredContent as { data: Record<string, unknown> }).data;
};

let made = 0;
/** A new client (names are unique per tenant). */
async function newClient(name: string): Promise<string> {
  const res = await ten.admin.post('/api/v1/clients', { client_name: `${name} ${++made}`, billing_cycle: 'monthly' });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data.client_id as string;
}

const mergedInto = async (id: string) => (await ten.admin.get(`/api/v1/clients/${id}`)).json().data.merged_into_client_id as string | null;

describe('psa-mcp tools', () => {
  it('lists one tool per operation, each with its input schema', async () => {
    const { tools } = await (await connect(ten.admin.key)).listTools();
    expect(tools.length).toBeGreaterThan(400);
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    expect(byName.get('getClient')!.inputSchema).toMatchObject({ type: 'object', properties: { id: { type: 'string', format: 'uuid' } }, required: ['id'] });
    expect(byName.get('listClients')!.inputSchema.properties).toMatchObject({ limit: { type: 'integer', maximum: 100 }, cursor: { type: 'string' } });
    expect(byName.get('listClients')!.annotations).toMatchObject({ readOnlyHint: true });
    expect(byName.get('createClient')!.inputSchema).toMatchObject({ required: ['body'], properties: { body: { required: expect.arrayContaining(['client_name']) } } });
    expect(byName.get('mergeClient')!.description).toMatch(/Requires approval/);
    expect(byName.get('getClient')!.description).not.toMatch(/Requires approval/);
  });

  it('creates a client and reads it back', async () => {
    const client = await connect(ten.admin.key);
    const created = dataOf(await call(client, 'createClient', { body: { client_name: 'Made by an agent', billing_cycle: 'monthly' } }));
    const read = await call(client, 'getClient', { id: created.client_id });
    expect(dataOf(read)).toMatchObject({ client_id: created.client_id, client_name: 'Made by an agent' });
    expect(JSON.parse(textOf(read))).toEqual(read.structuredContent);
  });

  it('returns API errors as tool errors with their code, message and request id', async () => {
    const client = await connect(ten.admin.key);
    const error = errorOf(await call(client, 'getClient', { id: '00000000-0000-4000-8000-000000000000' }));
    expect(error).toMatchObject({ status: 404, code: 'NOT_FOUND', message: expect.any(String), request_id: expect.any(String) });
    expect(errorOf(await call(client, 'getClient', {}))).toMatchObject({ code: 'INVALID_INPUT', message: expect.stringContaining("'id'") });
    expect(errorOf(await call(client, 'getClient', { id: 'x', colour: 'blue' }))).toMatchObject({ code: 'INVALID_INPUT' });
    await expect(client.callTool({ name: 'noSuchTool', arguments: {} })).rejects.toThrow(/Unknown tool/);
  });

  it("acts with the caller's key and its permissions", async () => {
    const technician = await connect(techKey);
    expect(errorOf(await call(technician, 'createClient', { body: { client_name: 'Not allowed', billing_cycle: 'monthly' } }))).toMatchObject({ status: 403, code: 'FORBIDDEN' });
    expect(Array.isArray((await call(technician, 'listClients', { limit: 1 })).structuredContent?.data)).toBe(true);
  });

  it('returns an image answer as image content', async () => {
    const png = await sharp({ create: { width: 32, height: 32, channels: 3, background: { r: 0, g: 200, b: 0 } } }).png().toBuffer();
    const { payload, contentType } = await formBody([{ name: 'avatar', data: png, type: 'image/png', filename: 'me.png' }]);
    const upload = await ten.admin.request({ method: 'POST', url: `/api/v1/users/${ten.adminUserId}/avatar`, payload, headers: { 'content-type': contentType } });
    expect(upload.statusCode, upload.body).toBe(200);
    const result = await call(await connect(ten.admin.key), 'getUserAvatar', { id: ten.adminUserId });
    const image = result.content[0] as { type: string; data: string; mimeType: string };
    expect([image.type, image.mimeType]).toEqual(['image', 'image/webp']);
    expect((await sharp(Buffer.from(image.data, 'base64')).metadata()).format).toBe('webp');
  });
});

describe('operations that need a person’s approval', () => {
  const approved: Elicit = () => ({ action: 'accept', content: { confirm: true } });

  it('are refused when the client cannot ask a person, and nothing is done', async () => {
    const [source, target] = [await newClient('Dup A'), await newClient('Keep A')];
    const error = errorOf(await call(await connect(ten.admin.key), 'mergeClient', { id: source, body: { target_client_id: target } }));
    expect(error).toMatchObject({ code: 'APPROVAL_REQUIRED', message: expect.stringMatching(/requires a person's approval.*Nothing was done/s) });
    expect(await mergedInto(source)).toBeNull();
  });

  it.each<[string, ElicitResult]>([
    ['declines', { action: 'decline' }],
    ['cancels', { action: 'cancel' }],
    ['accepts without confirming', { action: 'accept', content: { confirm: false } }],
  ])('are refused when the person %s', async (_, answer) => {
    const [source, target] = [await newClient('Dup B'), await newClient('Keep B')];
    const asked: ElicitRequest[] = [];
    const client = await connect(ten.admin.key, (request) => (asked.push(request), answer));
    expect(errorOf(await call(client, 'mergeClient', { id: source, body: { target_client_id: target } }))).toMatchObject({ code: 'APPROVAL_REQUIRED' });
    expect(asked).toHaveLength(1);
    expect(asked[0]!.params.message).toContain('mergeClient');
    expect(asked[0]!.params.message).toContain(target);
    expect(await mergedInto(source)).toBeNull();
  });

  it('run once the person approves', async () => {
    const [source, target] = [await newClient('Dup C'), await newClient('Keep C')];
    const merged = dataOf(await call(await connect(ten.admin.key, approved), 'mergeClient', { id: source, body: { target_client_id: target } }));
    expect(merged.source).toMatchObject({ client_id: source, merged_into_client_id: target });
    expect(await mergedInto(source)).toBe(target);
  });

  it('are not put to a person when the input is malformed', async () => {
    const asked: ElicitRequest[] = [];
    const client = await connect(ten.admin.key, (request) => (asked.push(request), { action: 'accept', content: { confirm: true } }));
    expect(errorOf(await call(client, 'mergeClient', { body: { target_client_id: 'x' } }))).toMatchObject({ code: 'INVALID_INPUT' });
    expect(asked).toEqual([]);
  });
});

describe('psa-mcp over streamable HTTP', () => {
  let http: RunningHttpServer;
  beforeAll(async () => {
    http = await startHttpServer({ baseUrl: base, port: 0 });
  });
  afterAll(async () => {
    await Promise.allSettled(clients.map((c) => c.close()));
    await http?.close();
  });

  async function connectHttp(headers: Record<string, string>, elicit?: Elicit): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
    const transport = new StreamableHTTPClientTransport(new URL(http.url), { requestInit: { headers } });
    const client = new Client({ name: 'psa-http-test', version: '1.0.0' }, { capabilities: elicit ? { elicitation: {} } : {} });
    if (elicit) client.setRequestHandler(ElicitRequestSchema, (request) => elicit(request));
    await client.connect(transport);
    clients.push(client);
    return { client, transport };
  }

  it('lists and calls tools with the key each client sends', async () => {
    const { client } = await connectHttp({ 'X-API-Key': ten.admin.key });
    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('createClient');
    const created = dataOf(await call(client, 'createClient', { body: { client_name: 'Over HTTP', billing_cycle: 'monthly' } }));
    expect(dataOf(await call(client, 'getClient', { id: created.client_id }))).toMatchObject({ client_name: 'Over HTTP' });

    const { client: technician } = await connectHttp({ Authorization: `Bearer ${techKey}` });
    expect(errorOf(await call(technician, 'createClient', { body: { client_name: 'Nope', billing_cycle: 'monthly' } }))).toMatchObject({ code: 'FORBIDDEN' });
  });

  it('asks for approval in the middle of a call', async () => {
    const [source, target] = [await newClient('Dup D'), await newClient('Keep D')];
    const { client } = await connectHttp({ 'X-API-Key': ten.admin.key }, () => ({ action: 'accept', content: { confirm: true } }));
    dataOf(await call(client, 'mergeClient', { id: source, body: { target_client_id: target } }));
    expect(await mergedInto(source)).toBe(target);
  });

  it('answers 401 to a request without a key, and 403 to a session used with another key', async () => {
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    };
    const post = (headers: Record<string, string>) =>
      fetch(http.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
        body: JSON.stringify(initialize),
        signal: AbortSignal.timeout(10_000),
      });
    const anonymous = await post({});
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toBe('Bearer');

    const { transport } = await connectHttp({ 'X-API-Key': ten.admin.key });
    const hijack = await post({ 'X-API-Key': techKey, 'mcp-session-id': transport.sessionId! });
    expect(hijack.status).toBe(403);
    expect((await post({ 'X-API-Key': techKey, 'mcp-session-id': 'no-such-session' })).status).toBe(404);
  });
});
