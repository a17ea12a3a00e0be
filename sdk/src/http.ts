import { randomUUID } from 'node:crypto';

/**
 * The one way the SDK, its CLI and its MCP server reach the API: the API key on every request, an
 * Idempotency-Key on every POST (so a retried create is replayed, never doubled), retries on 429 and 503
 * that honour Retry-After, and errors thrown as PsaApiError with the envelope's code, details and request id.
 */

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface TransportOptions {
  /** Where the API is, without /api/v1 (e.g. http://127.0.0.1:3000). */
  baseUrl: string;
  apiKey: string;
  /** Retries after a 429 or 503 (default 3); 0 disables them. */
  maxRetries?: number;
  /** Longest wait between tries, in ms (default 30,000); a longer Retry-After fails at once. */
  maxRetryDelayMs?: number;
  fetch?: typeof fetch;
  userAgent?: string;
}

export interface RawRequest {
  method: HttpMethod;
  /** An OpenAPI path (`/api/v1/clients/{id}`); `{name}` segments are filled from pathParams. */
  path: string;
  pathParams?: Record<string, string | number>;
  /** Arrays repeat the parameter; undefined and null are left out. */
  query?: Record<string, unknown>;
  body?: unknown;
  headers?: Record<string, string>;
  /** POST only: the key to send (default: a new UUID per call, reused by its retries); false sends none. */
  idempotencyKey?: string | false;
  signal?: AbortSignal;
}

export interface RawResponse<T = unknown> {
  status: number;
  headers: Headers;
  /** Parsed JSON, the text of another textual body, the bytes of a binary one (a PDF, an image), or null when empty. */
  body: T;
}

/** A non-2xx answer: the API's error envelope, taken apart. */
export class PsaApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly details: unknown;
  readonly requestId: string | undefined;
  readonly body: unknown;

  constructor(status: number, body: unknown, headers: Headers) {
    const envelope = (body as { error?: unknown } | null)?.error;
    const error = typeof envelope === 'object' && envelope !== null ? (envelope as Record<string, unknown>) : undefined;
    const message = typeof error?.message === 'string' ? error.message : typeof envelope === 'string' ? envelope : `HTTP ${status}`;
    super(message);
    this.name = 'PsaApiError';
    this.status = status;
    this.code = typeof error?.code === 'string' ? error.code : `HTTP_${status}`;
    this.details = error?.details;
    this.requestId = typeof error?.request_id === 'string' ? error.request_id : headers.get('x-request-id') ?? undefined;
    this.body = body;
  }
}

const RETRYABLE = new Set([429, 503]);

/** Retry-After as ms: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(value: string | null, now = Date.now()): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/**
 * The URL of an OpenAPI path under baseUrl. The path is appended to baseUrl (not resolved against it), so a
 * base that carries a path prefix (https://host/psa) keeps it, as openapi-fetch does.
 */
export function buildUrl(baseUrl: string, path: string, pathParams: Record<string, string | number> = {}, query: Record<string, unknown> = {}): URL {
  const filled = path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const value = pathParams[name];
    if (value === undefined) throw new TypeError(`missing path parameter '${name}' for ${path}`);
    return encodeURIComponent(String(value));
  });
  const url = new URL(`${baseUrl.replace(/\/+$/, '')}/${filled.replace(/^\/+/, '')}`);
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue;
    for (const v of Array.isArray(value) ? value : [value]) url.searchParams.append(name, v instanceof Date ? v.toISOString() : String(v));
  }
  return url;
}

const TEXTUAL = /json|^text\/|xml|javascript|x-www-form-urlencoded/i;

/** The body as RawResponse describes it: decoded as text only when the media type is textual, so binary answers stay intact. */
async function readBody(res: Response): Promise<unknown> {
  const bytes = new Uint8Array(await res.arrayBuffer());
  if (bytes.length === 0) return null;
  const type = res.headers.get('content-type') ?? '';
  if (type !== '' && !TEXTUAL.test(type)) return bytes;
  const text = new TextDecoder().decode(bytes);
  if (type.includes('json')) {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return text;
    }
  }
  return text;
}

/** Waits ms, or rejects with the signal's reason as soon as it aborts (at once if it already has). */
function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    // The listener is removed once the wait is over, so a long-lived signal does not collect one per retry.
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export interface Transport {
  readonly baseUrl: string;
  /** Sends the request (retrying 429/503 as configured); resolves 2xx answers, throws PsaApiError otherwise. */
  request<T = unknown>(req: RawRequest): Promise<RawResponse<T>>;
}

interface Outgoing {
  url: URL | string;
  method: string;
  headers: Record<string, string>;
  /** Sent again on each retry, so it must be replayable (never a stream). */
  body: string | ArrayBuffer | undefined;
  signal: AbortSignal | undefined;
}

/**
 * The headers every request carries, names lower-cased so that a caller's `Idempotency-Key` or `X-API-Key`
 * replaces ours instead of being sent alongside it (a Headers object joins duplicate names into one value).
 */
function requestHeaders(options: TransportOptions, method: string, given: Iterable<[string, string]>, idempotencyKey?: string | false): Record<string, string> {
  const headers: Record<string, string> = { accept: 'application/json', 'x-api-key': options.apiKey };
  if (options.userAgent) headers['user-agent'] = options.userAgent;
  for (const [name, value] of given) headers[name.toLowerCase()] = value;
  if (method === 'POST' && idempotencyKey !== false) headers['idempotency-key'] ??= idempotencyKey ?? randomUUID();
  return headers;
}

/**
 * Sends until an answer is final: a 2xx, an error that is not retryable, or a 429/503 once the retries
 * are spent or its Retry-After is longer than maxRetryDelayMs. The final response's body is left unread.
 */
async function exchange(options: TransportOptions, out: Outgoing): Promise<Response> {
  const doFetch = options.fetch ?? globalThis.fetch;
  const maxRetries = options.maxRetries ?? 3;
  const maxDelay = options.maxRetryDelayMs ?? 30_000;
  for (let attempt = 0; ; attempt++) {
    const res = await doFetch(out.url, { method: out.method, headers: out.headers, body: out.body, signal: out.signal });
    if (res.ok || !RETRYABLE.has(res.status) || attempt >= maxRetries) return res;
    // Retry-After when the server gives one; otherwise exponential backoff from half a second.
    const wait = retryAfterMs(res.headers.get('retry-after')) ?? Math.min(maxDelay, 500 * 2 ** attempt);
    if (wait > maxDelay) return res;
    // Drained so that the connection goes back to the pool before the next try.
    await res.arrayBuffer().catch(() => undefined);
    await sleep(wait, out.signal);
  }
}

export function createTransport(options: TransportOptions): Transport {
  return {
    baseUrl: options.baseUrl,
    async request<T>(req: RawRequest): Promise<RawResponse<T>> {
      const headers = requestHeaders(options, req.method, Object.entries(req.headers ?? {}), req.idempotencyKey);
      let body: string | undefined;
      if (req.body !== undefined) {
        body = JSON.stringify(req.body);
        headers['content-type'] ??= 'application/json';
      }
      const url = buildUrl(options.baseUrl, req.path, req.pathParams, req.query);
      const res = await exchange(options, { url, method: req.method, headers, body, signal: req.signal });
      const parsed = await readBody(res);
      if (!res.ok) throw new PsaApiError(res.status, parsed, res.headers);
      return { status: res.status, headers: res.headers, body: parsed as T };
    },
  };
}

/** What openapi-fetch copies onto the Request from a call's options that Request itself does not know. */
export interface TransportRequestOptions {
  /** POST only: the Idempotency-Key to send (default: a new UUID per call, reused by its retries); false sends none. */
  idempotencyKey?: string | false;
}

/**
 * The transport as a fetch function (for openapi-fetch): the same headers and retries, and a non-2xx
 * answer thrown as PsaApiError instead of returned, so a caller only ever sees successful responses.
 */
export function createTransportFetch(options: TransportOptions): (request: Request) => Promise<Response> {
  return async (request) => {
    const { idempotencyKey } = request as Request & TransportRequestOptions;
    const headers = requestHeaders(options, request.method, request.headers.entries(), idempotencyKey);
    // Read once up front: a Request's body is a one-shot stream, and a retry must send it again.
    const body = request.body === null ? undefined : await request.arrayBuffer();
    const res = await exchange(options, { url: request.url, method: request.method, headers, body, signal: request.signal });
    if (!res.ok) throw new PsaApiError(res.status, await readBody(res), res.headers);
    return res;
  };
}
