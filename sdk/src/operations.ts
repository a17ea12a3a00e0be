import { readFileSync, realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { PsaApiError, type HttpMethod, type RawRequest, type RawResponse, type Transport } from './http.ts';

/**
 * The API's operations as data, read from the bundled OpenAPI document, for the CLI and the MCP server:
 * nothing here is written per route, so a new route reaches both by regenerating openapi.json.
 */

export type JsonSchema = Record<string, unknown>;

export interface InputSchema {
  type: 'object';
  properties: Record<string, JsonSchema>;
  required: string[];
  additionalProperties: false;
  [keyword: string]: unknown;
}

export interface Operation {
  operationId: string;
  method: HttpMethod;
  /** OpenAPI form: /api/v1/clients/{id} */
  path: string;
  tags: string[];
  summary: string;
  description: string;
  /** `x-requires-approval`: an AI agent may call it only with a person's approval. */
  requiresApproval: boolean;
  /** One flat input, as GET /api/v1/tools publishes it: path and query parameters by name, the JSON body as `body`. */
  inputSchema: InputSchema;
  pathParams: string[];
  queryParams: string[];
  hasBody: boolean;
  /** Answers `{data: [...], pagination}`. */
  isList: boolean;
  /** A list that pages by keyset too: `sort=updated_at` + `cursor` (the previous page's `pagination.nextCursor`). */
  keyset: boolean;
}

const METHODS: readonly string[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

interface OpenApiParameter {
  name: string;
  in: string;
  required?: boolean;
  description?: string;
  schema?: JsonSchema;
}

type OpenApiOperation = Record<string, unknown> & {
  operationId?: unknown;
  parameters?: OpenApiParameter[];
  requestBody?: { required?: boolean; content?: Record<string, { schema?: JsonSchema }> };
  responses?: Record<string, { content?: Record<string, { schema?: JsonSchema }> }>;
};

/** Every value a schema allows by enum or const, through anyOf/oneOf (how `sort` is written). */
function allowedValues(schema: JsonSchema | undefined): unknown[] {
  if (!schema) return [];
  const own = [...(Array.isArray(schema.enum) ? schema.enum : []), ...('const' in schema ? [schema.const] : [])];
  const members = [...((schema.anyOf as JsonSchema[] | undefined) ?? []), ...((schema.oneOf as JsonSchema[] | undefined) ?? [])];
  return [...own, ...members.flatMap(allowedValues)];
}

function isListResponse(op: OpenApiOperation): boolean {
  const schema = op.responses?.['200']?.content?.['application/json']?.schema;
  const props = schema?.properties as Record<string, JsonSchema> | undefined;
  return props?.data?.type === 'array' && props.pagination !== undefined;
}

function toOperation(path: string, method: string, op: OpenApiOperation): Operation | undefined {
  if (typeof op.operationId !== 'string' || !METHODS.includes(method.toUpperCase())) return undefined;
  const media = op.requestBody?.content;
  // The transport speaks JSON only: an operation that takes nothing but a file upload cannot be called
  // through it, so it is left out rather than offered with a body nobody can send.
  if (media && !media['application/json']) return undefined;
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  const pathParams: string[] = [];
  const queryParams: string[] = [];
  for (const p of op.parameters ?? []) {
    if (p.in !== 'path' && p.in !== 'query') continue;
    // The generator lifts a parameter's description out of its schema; an input schema wants it inside.
    properties[p.name] = { ...p.schema, ...(p.description && !p.schema?.description ? { description: p.description } : {}) };
    (p.in === 'path' ? pathParams : queryParams).push(p.name);
    if (p.in === 'path' || p.required === true) required.push(p.name);
  }
  const hasBody = media !== undefined;
  if (hasBody) {
    properties.body = media['application/json']?.schema ?? {};
    if (op.requestBody?.required === true) required.push('body');
  }
  const isList = isListResponse(op);
  return {
    operationId: op.operationId,
    method: method.toUpperCase() as HttpMethod,
    path,
    tags: Array.isArray(op.tags) ? op.tags.filter((t): t is string => typeof t === 'string') : [],
    summary: typeof op.summary === 'string' ? op.summary : '',
    description: typeof op.description === 'string' ? op.description : '',
    requiresApproval: op['x-requires-approval'] === true,
    inputSchema: { type: 'object', properties, required, additionalProperties: false },
    pathParams,
    queryParams,
    hasBody,
    isList,
    keyset: isList && queryParams.includes('cursor') && allowedValues(properties.sort).includes('updated_at'),
  };
}

/** The operations of an OpenAPI document, sorted by operationId. */
export function operationsFrom(document: Record<string, unknown>): Operation[] {
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries((document.paths ?? {}) as Record<string, Record<string, OpenApiOperation>>)) {
    for (const [method, op] of Object.entries(item)) {
      const operation = toOperation(path, method, op);
      if (operation) operations.push(operation);
    }
  }
  return operations.sort((a, b) => (a.operationId < b.operationId ? -1 : a.operationId > b.operationId ? 1 : 0));
}

// sdk/openapi.json sits one level above both src/ (run with tsx) and dist/ (compiled).
const DOCUMENT_URL = new URL('../openapi.json', import.meta.url);
let loaded: { list: Operation[]; byId: Map<string, Operation> } | undefined;

function bundled() {
  if (!loaded) {
    const list = operationsFrom(JSON.parse(readFileSync(DOCUMENT_URL, 'utf8')) as Record<string, unknown>);
    loaded = { list, byId: new Map(list.map((op) => [op.operationId, op])) };
  }
  return loaded;
}

/** The bundled document's operations (read once, on first use: the document is several MB). */
export const loadOperations = (): Operation[] => bundled().list;
export const findOperation = (operationId: string): Operation | undefined => bundled().byId.get(operationId);

/** Input the operation cannot take (a missing required value, an unknown name, a value of the wrong shape). */
export class InputError extends Error {
  override readonly name = 'InputError';
}

const isScalar = (v: unknown): v is string | number | boolean => ['string', 'number', 'boolean'].includes(typeof v);

/** A flat input split into the request: path parameters, query parameters and `body`. */
export function requestFor(op: Operation, input: Record<string, unknown>): RawRequest {
  const pathParams: Record<string, string | number> = {};
  const query: Record<string, unknown> = {};
  let body: unknown;
  for (const [name, value] of Object.entries(input)) {
    if (value === undefined || value === null) continue;
    if (name === 'body' && op.hasBody) body = value;
    else if (op.pathParams.includes(name)) {
      if (typeof value !== 'string' && typeof value !== 'number') throw new InputError(`${op.operationId}: '${name}' must be a string or a number`);
      pathParams[name] = value;
    } else if (op.queryParams.includes(name)) {
      if (!isScalar(value) && !(Array.isArray(value) && value.every(isScalar))) {
        throw new InputError(`${op.operationId}: '${name}' must be a string, number, boolean or a list of them`);
      }
      query[name] = value;
    } else {
      throw new InputError(`${op.operationId} takes no input '${name}' (it takes: ${Object.keys(op.inputSchema.properties).join(', ') || 'nothing'})`);
    }
  }
  const missing = op.inputSchema.required.filter((name) => input[name] === undefined || input[name] === null);
  if (missing.length > 0) throw new InputError(`${op.operationId} needs ${missing.map((n) => `'${n}'`).join(', ')}`);
  return { method: op.method, path: op.path, pathParams, query, ...(body === undefined ? {} : { body }) };
}

/** No call waits longer than this for the API (the transport itself has no deadline). */
export const REQUEST_TIMEOUT_MS = 120_000;

export interface ExecuteOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
}

/** Calls one operation with a flat input; resolves the 2xx answer, throws PsaApiError or InputError otherwise. */
export function executeOperation(api: Transport, op: Operation, input: Record<string, unknown>, options: ExecuteOptions = {}): Promise<RawResponse> {
  const request = requestFor(op, input);
  const deadline = AbortSignal.timeout(options.timeoutMs ?? REQUEST_TIMEOUT_MS);
  return api.request({ ...request, signal: options.signal ? AbortSignal.any([options.signal, deadline]) : deadline });
}

interface ListPage {
  data: unknown[];
  pagination: { hasNext?: boolean; nextCursor?: string };
}

/**
 * Every item of a list, page after page: by keyset (`sort=updated_at` + `nextCursor`) when the operation
 * has it and the input does not ask for another order or a page, since a keyset walk never skips a row
 * however the rows change meanwhile (offset pages do when a row before them goes away; a row updated
 * during the walk shows up again, later); by `page` while `hasNext` otherwise. Without a `limit` the
 * pages are as large as the operation allows, for the fewest calls.
 */
export async function fetchAll(api: Transport, op: Operation, input: Record<string, unknown>, options: ExecuteOptions = {}): Promise<unknown[]> {
  if (!op.isList) throw new InputError(`${op.operationId} is not a list`);
  const maxLimit = op.inputSchema.properties.limit?.maximum;
  const base: Record<string, unknown> = { ...input, ...(input.limit === undefined && typeof maxLimit === 'number' ? { limit: maxLimit } : {}) };
  const page = async (extra: Record<string, unknown>) => (await executeOperation(api, op, { ...base, ...extra }, options)).body as ListPage;
  const items: unknown[] = [];
  const keyset = op.keyset && base.page === undefined && (base.sort ?? 'updated_at') === 'updated_at' && base.order !== 'desc';
  if (keyset) {
    const seen = new Set<string>();
    for (let cursor = base.cursor; ; ) {
      const { data, pagination } = await page({ sort: 'updated_at', cursor });
      items.push(...data);
      const next = pagination.nextCursor;
      if (typeof next !== 'string' || next === '') return items;
      // A cursor seen before would walk the same pages forever.
      if (seen.has(next)) throw new Error(`${op.operationId}: the API returned the same cursor twice`);
      seen.add(next);
      cursor = next;
    }
  }
  const numbered = op.queryParams.includes('page');
  for (let n = Number(base.page ?? 1); ; n++) {
    const { data, pagination } = await page(numbered ? { page: n } : {});
    items.push(...data);
    if (!pagination.hasNext) return items;
    if (!numbered) throw new Error(`${op.operationId}: the list has more pages but no way to ask for them`);
  }
}

/** The bytes and media type of a binary answer (a PDF, an image, a download); undefined for JSON or text. */
export function binaryBody(res: RawResponse): { bytes: Uint8Array; contentType: string } | undefined {
  return res.body instanceof Uint8Array ? { bytes: res.body, contentType: res.headers.get('content-type') ?? 'application/octet-stream' } : undefined;
}

/** Where the CLI and the MCP server look for the API unless PSA_URL or --base-url says otherwise. */
export const DEFAULT_BASE_URL = 'http://127.0.0.1:3000';

export interface ErrorBody {
  status: number | null;
  code: string;
  message: string;
  details: unknown;
  request_id: string | null;
}

/** A failed call as the CLI prints it and the MCP server returns it: the API's envelope, or what kept the call from it. */
export function errorBody(err: unknown): ErrorBody {
  if (err instanceof PsaApiError) return { status: err.status, code: err.code, message: err.message, details: err.details ?? null, request_id: err.requestId ?? null };
  if (err instanceof InputError) return { status: null, code: 'INVALID_INPUT', message: err.message, details: null, request_id: null };
  // fetch's own message ("fetch failed") hides the reason (refused, DNS, timeout) in its cause.
  const message = err instanceof Error ? `${err.message}${err.cause instanceof Error ? `: ${err.cause.message}` : ''}` : String(err);
  return { status: null, code: 'REQUEST_FAILED', message, details: null, request_id: null };
}

/** Whether the module at moduleUrl is the program being run (compiled, through npm's bin symlink, or with tsx), not an import. */
export function isEntryPoint(moduleUrl: string): boolean {
  try {
    return process.argv[1] !== undefined && moduleUrl === pathToFileURL(realpathSync(process.argv[1])).href;
  } catch {
    return false;
  }
}
