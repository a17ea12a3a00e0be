#!/usr/bin/env node
import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ErrorCode, isInitializeRequest, ListToolsRequestSchema, McpError, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { buildUrl, createTransport, type RawResponse, type Transport } from './http.ts';
import { binaryBody, DEFAULT_BASE_URL, errorBody, executeOperation, isEntryPoint, loadOperations, requestFor, type ErrorBody, type Operation } from './operations.ts';

/**
 * psa-mcp: the PSA API as a Model Context Protocol server, one tool per operation of the bundled OpenAPI
 * document. Every call goes to the API with the caller's own key, so an agent can do exactly what that
 * key may do; operations marked x-requires-approval run only after a person confirms them.
 */

const VERSION = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;

const INSTRUCTIONS =
  'Each tool is one operation of the PSA REST API, named by its operationId, called with your API key and its permissions. ' +
  'Input: path and query parameters by name, the JSON request body as `body`. Lists are paged (`page`, `limit` up to 100; ' +
  'or `sort=updated_at` and `cursor` = the previous `pagination.nextCursor`). Tools marked "Requires approval" run only ' +
  'after a person confirms the call.';

const APPROVAL_NOTE = 'Requires approval: a person must confirm this call before it runs (the server asks them through the client).';

export type McpServerOptions = ({ api: Transport } | { apiKey: string; baseUrl: string }) & {
  /** Default: the bundled document's operations. */
  operations?: Operation[];
  /** How long a person has to answer an approval request (default 5 minutes). */
  approvalTimeoutMs?: number;
};

function toolFor(op: Operation): Tool {
  return {
    name: op.operationId,
    description: [op.summary, op.description, op.requiresApproval ? APPROVAL_NOTE : ''].filter(Boolean).join('\n\n'),
    inputSchema: op.inputSchema,
    annotations: { readOnlyHint: op.method === 'GET', idempotentHint: op.method === 'GET' || op.method === 'PUT' || op.method === 'DELETE' },
  };
}

function errorResult(error: ErrorBody): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: JSON.stringify({ error }) }], structuredContent: { error } };
}

function successResult(api: Transport, op: Operation, input: Record<string, unknown>, res: RawResponse): CallToolResult {
  const binary = binaryBody(res);
  if (binary) {
    const data = Buffer.from(binary.bytes).toString('base64');
    if (binary.contentType.startsWith('image/')) return { content: [{ type: 'image', data, mimeType: binary.contentType }] };
    const { pathParams, query } = requestFor(op, input);
    const uri = buildUrl(api.baseUrl, op.path, pathParams, query).href;
    return { content: [{ type: 'resource', resource: { uri, mimeType: binary.contentType, blob: data } }] };
  }
  const body = res.body;
  if (body === null) return { content: [{ type: 'text', text: `Done (HTTP ${res.status}, no content)` }] };
  if (typeof body === 'string') return { content: [{ type: 'text', text: body }] };
  const structured = typeof body === 'object' && !Array.isArray(body) ? { structuredContent: body as Record<string, unknown> } : {};
  return { content: [{ type: 'text', text: JSON.stringify(body) }], ...structured };
}

/** Why an approval-gated call may not run (undefined: a person confirmed it). */
async function refusalFor(server: Server, op: Operation, input: Record<string, unknown>, timeout: number, signal: AbortSignal): Promise<CallToolResult | undefined> {
  const refuse = (why: string) =>
    errorResult({
      status: null,
      code: 'APPROVAL_REQUIRED',
      message: `${op.operationId} requires a person's approval and ${why}. Nothing was done; ask a person to approve the call and try again.`,
      details: null,
      request_id: null,
    });
  // Without form elicitation there is no way to reach a person, and an agent's own say-so is not approval.
  if (!server.getClientCapabilities()?.elicitation?.form) return refuse('this client cannot ask a person (it has no elicitation capability)');
  let answer;
  try {
    answer = await server.elicitInput(
      {
        mode: 'form',
        message: `An AI agent wants to run ${op.operationId} (${op.method} ${op.path}): ${op.summary}\n\nInput:\n${JSON.stringify(input, null, 2)}\n\nApprove it?`,
        requestedSchema: {
          type: 'object',
          properties: { confirm: { type: 'boolean', title: 'Approve', description: `Run ${op.operationId} with this input` } },
          required: ['confirm'],
        },
      },
      { timeout, signal },
    );
  } catch (err) {
    return refuse(`the approval request failed (${err instanceof Error ? err.message : String(err)})`);
  }
  if (answer.action === 'accept' && answer.content?.confirm === true) return undefined;
  return refuse(answer.action === 'accept' ? 'the person did not confirm it' : answer.action === 'decline' ? 'the person declined it' : 'the person cancelled the request');
}

const toolLists = new WeakMap<Operation[], Tool[]>();

/** One MCP server (for one client connection) acting with one API key. */
export function createMcpServer(options: McpServerOptions): Server {
  const api = 'api' in options ? options.api : createTransport({ baseUrl: options.baseUrl, apiKey: options.apiKey, userAgent: `psa-mcp/${VERSION}` });
  const operations = options.operations ?? loadOperations();
  const byName = new Map(operations.map((op) => [op.operationId, op]));
  let tools = toolLists.get(operations);
  if (!tools) toolLists.set(operations, (tools = operations.map(toolFor)));
  const approvalTimeout = options.approvalTimeoutMs ?? 5 * 60_000;

  const server = new Server({ name: 'psa-api', version: VERSION }, { capabilities: { tools: {} }, instructions: INSTRUCTIONS });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const op = byName.get(request.params.name);
    if (!op) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
    const input = request.params.arguments ?? {};
    try {
      requestFor(op, input); // refuse malformed input before anyone is asked to approve it
      if (op.requiresApproval) {
        const refusal = await refusalFor(server, op, input, approvalTimeout, extra.signal);
        if (refusal) return refusal;
      }
      return successResult(api, op, input, await executeOperation(api, op, input, { signal: extra.signal }));
    } catch (err) {
      return errorResult(errorBody(err));
    }
  });
  return server;
}

export interface HttpServerOptions {
  /** The API, without /api/v1. */
  baseUrl: string;
  port?: number;
  host?: string;
  operations?: Operation[];
  /** A session no request has touched for this long is closed (default 30 minutes). */
  idleTimeoutMs?: number;
}

export interface RunningHttpServer {
  /** The MCP endpoint, e.g. http://127.0.0.1:3100/mcp */
  url: string;
  close(): Promise<void>;
}

interface Session {
  server: Server;
  transport: StreamableHTTPServerTransport;
  keyDigest: Buffer;
  lastSeen: number;
}

const MAX_BODY_BYTES = 4 * 1024 * 1024;

/** JSON-RPC's implementation-defined server error, as the SDK's transport also answers for an unknown session. */
const SERVER_ERROR = -32001;

/** An answer the HTTP layer gives itself, as a JSON-RPC error (what MCP clients expect to parse). */
class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly rpcCode: number = SERVER_ERROR,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

function sendError(res: ServerResponse, err: HttpError): void {
  res.writeHead(err.status, { 'content-type': 'application/json', ...err.headers });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: err.rpcCode, message: err.message }, id: null }));
}

/** X-API-Key, or the token of `Authorization: Bearer <key>`. */
function apiKeyOf(req: IncomingMessage): string | undefined {
  const header = req.headers['x-api-key'];
  if (typeof header === 'string' && header.trim() !== '') return header.trim();
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
  return bearer?.[1];
}

const digest = (key: string) => createHash('sha256').update(key).digest();

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new HttpError(413, 'Request body too large');
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
  } catch {
    throw new HttpError(400, 'Parse error: the body is not JSON', ErrorCode.ParseError);
  }
}

const isInitialize = (body: unknown) => (Array.isArray(body) ? body.some((m) => isInitializeRequest(m)) : isInitializeRequest(body));

/**
 * MCP over streamable HTTP at /mcp. Sessions are stateful (the server must be able to ask the client for
 * an approval in the middle of a call), and each is bound to the API key that opened it: every request
 * must carry that same key, so a leaked session id alone is worth nothing.
 */
export async function startHttpServer(options: HttpServerOptions): Promise<RunningHttpServer> {
  const sessions = new Map<string, Session>();
  const idleTimeout = options.idleTimeoutMs ?? 30 * 60_000;

  async function openSession(req: IncomingMessage, res: ServerResponse, key: string): Promise<void> {
    const body = await readJson(req);
    if (!isInitialize(body)) throw new HttpError(400, 'Bad Request: no mcp-session-id; open a session with initialize first', ErrorCode.InvalidRequest);
    const server = createMcpServer({ apiKey: key, baseUrl: options.baseUrl, operations: options.operations });
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      onsessioninitialized: (id) => void sessions.set(id, { server, transport, keyDigest: digest(key), lastSeen: Date.now() }),
    });
    server.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (new URL(req.url ?? '/', 'http://localhost').pathname !== '/mcp') throw new HttpError(404, 'Not found: the MCP endpoint is /mcp');
    const key = apiKeyOf(req);
    if (!key) throw new HttpError(401, 'Send your PSA API key in X-API-Key (or Authorization: Bearer <key>)', SERVER_ERROR, { 'www-authenticate': 'Bearer' });
    const sessionId = req.headers['mcp-session-id'];
    if (typeof sessionId !== 'string') {
      if (req.method !== 'POST') throw new HttpError(400, 'Bad Request: no mcp-session-id; open a session with initialize first', ErrorCode.InvalidRequest);
      return openSession(req, res, key);
    }
    const session = sessions.get(sessionId);
    if (!session) throw new HttpError(404, 'Session not found');
    if (!timingSafeEqual(session.keyDigest, digest(key))) throw new HttpError(403, 'This session was opened with another API key');
    session.lastSeen = Date.now();
    await session.transport.handleRequest(req, res, req.method === 'POST' ? await readJson(req) : undefined);
  }

  const http = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (res.headersSent) res.destroy();
      else sendError(res, err instanceof HttpError ? err : new HttpError(500, 'Internal error'));
    });
  });
  // Sessions a client abandoned without DELETE would otherwise live as long as the process.
  const sweeper = setInterval(() => {
    const stale = Date.now() - idleTimeout;
    for (const session of sessions.values()) if (session.lastSeen < stale) void session.server.close();
  }, Math.min(idleTimeout, 60_000));
  sweeper.unref();

  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const address = http.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}/mcp`,
    async close() {
      clearInterval(sweeper);
      await Promise.allSettled([...sessions.values()].map((s) => s.server.close()));
      // Open SSE streams would hold close() forever.
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

const USAGE = `Usage:
  psa-mcp                                          MCP over stdio (PSA_API_KEY is the key every call uses)
  psa-mcp --http [--port 3100] [--host 127.0.0.1]  MCP over streamable HTTP at /mcp (each client sends its own key)
Options: --base-url <url> (default: PSA_URL, else ${DEFAULT_BASE_URL})
`;

async function run(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: { http: { type: 'boolean' }, port: { type: 'string' }, host: { type: 'string' }, 'base-url': { type: 'string' }, help: { type: 'boolean' } },
    }));
  } catch (err) {
    process.stderr.write(`psa-mcp: ${(err as Error).message}\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const baseUrl = values['base-url'] ?? env.PSA_URL ?? DEFAULT_BASE_URL;
  if (values.http) {
    const port = Number(values.port ?? 3100);
    if (!Number.isInteger(port) || port < 0 || port > 65535) {
      process.stderr.write(`psa-mcp: --port must be a port number, not '${values.port}'\n`);
      return 2;
    }
    let running: RunningHttpServer;
    try {
      running = await startHttpServer({ baseUrl, port, host: values.host ?? '127.0.0.1' });
    } catch (err) {
      process.stderr.write(`psa-mcp: cannot listen: ${(err as Error).message}\n`);
      return 1;
    }
    process.stderr.write(`psa-mcp: MCP at ${running.url} for the API at ${baseUrl}\n`);
    const stop = () => void running.close().finally(() => process.exit(0));
    process.once('SIGINT', stop).once('SIGTERM', stop);
    return 0;
  }
  if (!env.PSA_API_KEY) {
    process.stderr.write(`psa-mcp: set PSA_API_KEY to the API key the tools call with\n${USAGE}`);
    return 2;
  }
  // stdout carries the protocol: anything else goes to stderr.
  await createMcpServer({ apiKey: env.PSA_API_KEY, baseUrl }).connect(new StdioServerTransport());
  return 0;
}

if (isEntryPoint(import.meta.url)) process.exitCode = await run(process.argv.slice(2), process.env);
