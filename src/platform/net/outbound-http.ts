import type { LookupAddress, LookupOptions } from 'node:dns';
import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import type { Agent } from 'undici';
import { AddressPolicy } from './address-policy.ts';
import { loadUndici, type Undici } from './undici.ts';

/** How much of a response body is kept. */
export const RESPONSE_BODY_LIMIT = 8 * 1024;
/** How much of the rest is drained to keep the connection for reuse; beyond this the connection is closed instead. */
const DRAIN_LIMIT = 128 * 1024;

/** The target may not be contacted: its scheme, credentials, name or address. Retrying cannot help. */
export class UnsafeTargetError extends Error {
  override name = 'UnsafeTargetError';
}

/** The exchange failed: no response in time, no connection (refused, reset, DNS, TLS), or a malformed response. */
export class OutboundError extends Error {
  override name = 'OutboundError';

  constructor(
    readonly kind: 'timeout' | 'connection' | 'protocol',
    message: string = kind,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export type LookupFn = (hostname: string) => Promise<{ address: string; family: 4 | 6 }[]>;

export interface OutboundClientOptions {
  /** CIDRs exempt from the private-address block (PSA_WEBHOOK_ALLOW_PRIVATE). */
  allowPrivate?: readonly string[];
  /** Resolves a hostname to all its addresses; default dns.promises.lookup(host, {all: true}). Tests inject one. */
  lookup?: LookupFn;
  /** Per-origin keep-alive connection cap (default 64). */
  connections?: number;
}

export interface OutboundResponse {
  status: number;
  /** The first 8 KiB of the body decoded as UTF-8 (a character cut by the limit is dropped; NUL becomes U+FFFD). */
  body: string;
  durationMs: number;
  /** The body was longer than the limit kept (set by request(); post() callers ignore it). */
  truncated?: boolean;
}

export interface OutboundRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  url: string;
  body?: string;
  headers: Record<string, string>;
  /** Bounds the whole exchange, connect to end of body. */
  timeoutMs: number;
  /** How much of the response body is kept (default RESPONSE_BODY_LIMIT). */
  maxBodyBytes?: number;
  /** Aborts the exchange (a caller's own deadline): fails with OutboundError kind `timeout`. */
  signal?: AbortSignal;
}

const defaultLookup: LookupFn = async (hostname) =>
  (await dnsLookup(hostname, { all: true })).map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));

interface Target {
  url: URL;
  /** Hostname without IPv6 brackets or a trailing dot. */
  host: string;
}

/** The checks that need no DNS: scheme, userinfo, localhost names. */
function parseTarget(raw: string): Target {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UnsafeTargetError('the URL is not a valid absolute URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UnsafeTargetError(`the scheme ${url.protocol.slice(0, -1)} is not allowed (http or https only)`);
  }
  if (url.username || url.password) throw new UnsafeTargetError('credentials in the URL are not allowed');
  const host = (url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname).replace(/\.$/, '');
  if (!host) throw new UnsafeTargetError('the URL has no host');
  if (host === 'localhost' || host.endsWith('.localhost')) {
    throw new UnsafeTargetError(`the host ${host} is not allowed (it always means this machine)`);
  }
  return { url, host };
}

/**
 * Outbound HTTP for webhooks, guarded against server-side request forgery. Every connection is made to an address
 * that was vetted in the same step that resolved it (the connector's own lookup), so a DNS answer that changes
 * between a check and the connect (rebinding) cannot lead to a private address. Redirects are never followed.
 * Connections are pooled per origin with keep-alive (no pipelining), so many small POSTs to one receiver are cheap.
 */
/** A client's connection pool and undici's error classes, which tell its failures apart. */
interface Pool { agent: Agent; errors: Undici['errors'] }

export class OutboundClient {
  private readonly policy: AddressPolicy;
  private readonly lookupFn: LookupFn;
  private readonly connections: number;
  /** The connection pool, made at the first request (undici loads then). */
  private pool: Promise<Pool> | undefined;

  constructor(opts: OutboundClientOptions = {}) {
    this.policy = new AddressPolicy(opts.allowPrivate ?? []);
    this.lookupFn = opts.lookup ?? defaultLookup;
    this.connections = opts.connections ?? 64;
  }

  private poolOf(): Promise<Pool> {
    this.pool ??= loadUndici().then(({ Agent, errors }) => ({
      agent: new Agent({ connections: this.connections, pipelining: 1, connect: { lookup: this.connectLookup } }),
      errors,
    }));
    return this.pool;
  }

  /** Rejects with UnsafeTargetError unless: scheme http/https, no userinfo, hostname not `localhost`/`*.localhost`,
   *  and every address the hostname resolves to (or the literal IP) is allowed. Used at save time too. A hostname
   *  that does not resolve is refused as well (there is nothing to vet). */
  async vet(url: string): Promise<void> {
    const { host } = parseTarget(url);
    if (isIP(host)) this.assertAllowed(host, host);
    else await this.resolve(host, (err) => new UnsafeTargetError(`the host ${host} does not resolve (${codeOf(err) ?? 'no address'})`));
  }

  /** POSTs body with headers and resolves with any status (a 3xx is returned, never followed). timeoutMs bounds
   *  the whole exchange, connect to end of body. Rejects with UnsafeTargetError or OutboundError. */
  async post(url: string, body: string, headers: Record<string, string>, timeoutMs: number): Promise<OutboundResponse> {
    return this.request({ method: 'POST', url, body, headers, timeoutMs });
  }

  /**
   * Any method, same guarantees as post(). `maxBodyBytes` (default 8 KiB) is how much of the response body is kept;
   * `truncated` tells whether more came, so a caller that parses the body (an API client) can refuse a cut one.
   */
  async request(opts: OutboundRequest): Promise<OutboundResponse> {
    const { url: target, host } = parseTarget(opts.url);
    // A literal address never reaches the connector's lookup, so it is vetted here; a name is vetted at connect.
    if (isIP(host)) this.assertAllowed(host, host);
    const { timeoutMs, signal } = opts;
    if (signal?.aborted) throw abortedError(signal);
    const limit = opts.maxBodyBytes ?? RESPONSE_BODY_LIMIT;
    const { agent, errors } = await this.poolOf();
    const started = performance.now();
    const controller = new AbortController();
    let timedOut = false;
    let aborted = false;
    let response: Readable | undefined;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
      response?.destroy();
    }, timeoutMs);
    const onAbort = () => {
      aborted = true;
      controller.abort();
      response?.destroy();
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const res = await agent.request({
        origin: target.origin,
        path: `${target.pathname}${target.search}`,
        method: opts.method,
        headers: opts.headers,
        body: opts.body,
        signal: controller.signal,
      });
      response = res.body;
      const { text, truncated } = await readLimited(res.body, limit);
      if (timedOut) throw timeoutError(timeoutMs); // the body was cut off by the timer
      if (aborted) throw abortedError(signal!);
      return { status: res.statusCode, body: text, durationMs: Math.round(performance.now() - started), truncated };
    } catch (err) {
      if (aborted && !(err instanceof UnsafeTargetError)) throw abortedError(signal!, err);
      throw classify(err, timedOut, timeoutMs, errors);
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    }
  }

  async close(): Promise<void> {
    if (this.pool) await (await this.pool).agent.close();
  }

  private assertAllowed(host: string, address: string): void {
    if (!this.policy.isAllowed(address)) {
      throw new UnsafeTargetError(host === address
        ? `the private address ${address} is not allowed`
        : `the host ${host} resolves to the private address ${address}, which is not allowed`);
    }
  }

  /** All addresses of host, each vetted: one private address refuses the host. */
  private async resolve(host: string, onDnsError: (err: unknown) => Error): Promise<{ address: string; family: 4 | 6 }[]> {
    let addresses: { address: string; family: 4 | 6 }[];
    try {
      addresses = await this.lookupFn(host);
    } catch (err) {
      throw onDnsError(err);
    }
    if (addresses.length === 0) throw onDnsError(undefined);
    for (const { address } of addresses) this.assertAllowed(host, address);
    return addresses;
  }

  /** net.connect's `lookup`: resolve, vet, and hand the socket only the vetted addresses. */
  private readonly connectLookup = (
    hostname: string,
    options: LookupOptions,
    callback: (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
  ): void => {
    const host = hostname.replace(/\.$/, '');
    this.resolve(host, (err) => dnsError(host, err)).then((addresses) => {
      const usable = options.family === 4 || options.family === 6 ? addresses.filter((a) => a.family === options.family) : addresses;
      const first = usable[0];
      if (!first) callback(dnsError(host, undefined), '');
      else if (options.all) callback(null, usable);
      else callback(null, first.address, first.family);
    }, (err: Error) => callback(err, ''));
  };
}

function codeOf(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' ? code : undefined;
}

function dnsError(host: string, cause: unknown): NodeJS.ErrnoException {
  const code = codeOf(cause) ?? 'ENOTFOUND';
  return Object.assign(new Error(`cannot resolve ${host} (${code})`, { cause }), { code });
}

/** The first `limit` bytes as text; the rest is read and dropped (up to DRAIN_LIMIT, or the limit when larger, so
 *  the connection can be reused), never buffered. */
async function readLimited(body: Readable, limit: number): Promise<{ text: string; truncated: boolean }> {
  const decoder = new StringDecoder('utf8');
  let text = '';
  let kept = 0;
  let seen = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    seen += chunk.length;
    if (kept < limit) {
      const part = chunk.subarray(0, limit - kept);
      kept += part.length;
      text += decoder.write(part); // holds back a character split at the end, which end() is never asked for
    } else if (seen > Math.max(DRAIN_LIMIT, limit)) {
      body.destroy();
      break;
    }
  }
  // PostgreSQL text cannot hold U+0000; callers store this body.
  return { text: text.replaceAll('\u0000', '\uFFFD'), truncated: seen > kept };
}

const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT']);
const PROTOCOL_CODES = new Set([
  'UND_ERR_RES_CONTENT_LENGTH_MISMATCH',
  'UND_ERR_RES_EXCEEDED_MAX_SIZE',
  'UND_ERR_INVALID_ARG',
  'UND_ERR_NOT_SUPPORTED',
  'UND_ERR_INFO',
]);

function timeoutError(timeoutMs: number, cause?: unknown): OutboundError {
  return new OutboundError('timeout', `no complete response within ${timeoutMs} ms`, { cause });
}

function abortedError(signal: AbortSignal, cause?: unknown): OutboundError {
  const reason: unknown = signal.reason;
  const why = reason instanceof Error && reason.name !== 'AbortError' ? `: ${reason.message}` : '';
  return new OutboundError('timeout', `the request was aborted by its caller${why}`, { cause: cause ?? reason });
}

function classify(err: unknown, timedOut: boolean, timeoutMs: number, errors: Undici['errors']): Error {
  if (err instanceof UnsafeTargetError || err instanceof OutboundError) return err;
  const code = codeOf(err) ?? '';
  const detail = err instanceof Error ? err.message : String(err);
  if (timedOut || TIMEOUT_CODES.has(code)) return timeoutError(timeoutMs, err);
  if (err instanceof errors.HTTPParserError || code.startsWith('HPE_') || PROTOCOL_CODES.has(code)) {
    return new OutboundError('protocol', `invalid HTTP exchange: ${detail}`, { cause: err });
  }
  return new OutboundError('connection', `connection failed: ${detail}${code && !detail.includes(code) ? ` (${code})` : ''}`, { cause: err });
}
