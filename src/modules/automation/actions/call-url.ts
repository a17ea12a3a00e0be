import type { Static } from 'typebox';
import { bodyChecker } from '../../../platform/actions/support.ts';
import { AppError, validation } from '../../../platform/http/errors.ts';
import { OutboundError, UnsafeTargetError, type OutboundClient } from '../../../platform/net/outbound-http.ts';
import { signatureHeader } from '../../webhooks/index.ts';
import type { ActionRunContext, ActionRunner } from '../automation.types.ts';
import { assertMayRun, assertNotAborted, definitionOf } from './action-support.ts';
import {
  CALL_URL_HEADER_NAME_PATTERN, MAX_CALL_URL_BODY_BYTES, RESERVED_CALL_URL_HEADERS, RESERVED_CALL_URL_PREFIXES, type CallUrlConfig,
} from './actions.catalog.ts';

export const CALL_URL_USER_AGENT = 'psa-automation/1';
/** The longest a call may take whatever the action's timeout (the engine's signal usually ends it sooner). */
export const CALL_URL_MAX_TIMEOUT_MS = 300_000;
/** How much of the answer the step log keeps. */
const RESPONSE_LOG_CHARS = 1000;

const NAME_RE = new RegExp(CALL_URL_HEADER_NAME_PATTERN, 'u');
const reserved = new Set<string>(RESERVED_CALL_URL_HEADERS);

/** The custom headers, refusing reserved or malformed names and names repeated in another letter case. */
function customHeaders(headers: Record<string, string> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  const seen = new Set<string>();
  for (const [name, value] of Object.entries(headers ?? {})) {
    const lower = name.toLowerCase();
    if (reserved.has(lower) || RESERVED_CALL_URL_PREFIXES.some((p) => lower.startsWith(p))) throw validation(`headers.${name}`, 'is reserved (set by the service)');
    if (!NAME_RE.test(name)) throw validation(`headers.${name}`, 'is not a valid header name');
    if (seen.has(lower)) throw validation(`headers.${name}`, 'repeats another header (names ignore letter case)');
    seen.add(lower);
    out[name] = value;
  }
  return out;
}

/** The URL without its query and fragment (they may carry tokens): what error messages name. */
function shown(url: string): string {
  try {
    const u = new URL(url);
    return `${u.origin}${u.pathname}`;
  } catch {
    return '(invalid URL)';
  }
}

const clip = (text: string) => (text.length > RESPONSE_LOG_CHARS ? `${text.slice(0, RESPONSE_LOG_CHARS)}…` : text);

/**
 * call_url: one HTTP request through the SSRF-guarded client (private addresses refused unless
 * PSA_WEBHOOK_ALLOW_PRIVATE exempts them, redirects never followed), signed like outbound webhooks
 * (X-Service-Signature over the exact body with the rule's signing secret) and carrying the step's
 * Idempotency-Key. External: a retried step calls again with the same key. `ctx.signal` (the action's
 * timeout) aborts the exchange. Errors are AppErrors whose details say whether a retry may help.
 */
export function callUrlRunner(deps: { outbound: () => OutboundClient; now?: () => number }): ActionRunner {
  const def = definitionOf('call_url');
  const check = bodyChecker(def.config);
  const now = deps.now ?? Date.now;
  return async (ctx: ActionRunContext, raw) => {
    assertMayRun(ctx.actor, def);
    const config = check(raw) as Static<typeof CallUrlConfig>;
    const method = config.method ?? 'POST';
    const custom = customHeaders(config.headers as Record<string, string> | undefined);
    let body: string | undefined;
    if (config.body !== undefined) {
      if (method === 'GET') throw validation('body', 'a GET request has no body; use POST, PUT or PATCH');
      body = JSON.stringify(config.body);
      const size = Buffer.byteLength(body, 'utf8');
      if (size > MAX_CALL_URL_BODY_BYTES) throw validation('body', `is ${size} bytes serialized; the limit is ${MAX_CALL_URL_BODY_BYTES}`);
    }
    assertNotAborted(ctx, 'call_url');

    const headers: Record<string, string> = {
      ...custom,
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      'User-Agent': CALL_URL_USER_AGENT,
      'X-Service-Signature': signatureHeader(ctx.signingSecret, body ?? '', Math.floor(now() / 1000)),
      'Idempotency-Key': ctx.idempotencyKey,
      'X-Service-Automation-Rule-Id': ctx.ruleId,
      'X-Service-Automation-Execution-Id': ctx.executionId,
    };
    const target = shown(config.url);
    let res;
    try {
      res = await deps.outbound().request({ method, url: config.url, body, headers, timeoutMs: CALL_URL_MAX_TIMEOUT_MS, signal: ctx.signal });
    } catch (err) {
      if (err instanceof UnsafeTargetError) {
        throw new AppError('UNPROCESSABLE', `call_url: ${target} may not be called: ${err.message}`, { reason: 'unsafe_target', retryable: false });
      }
      if (err instanceof OutboundError) {
        throw new AppError('UPSTREAM_ERROR', `call_url: ${err.kind} calling ${target}: ${err.message}`.slice(0, 1000), { reason: err.kind, retryable: true });
      }
      throw err;
    }
    if (res.status < 200 || res.status >= 300) {
      const why = res.status >= 300 && res.status < 400 ? ' (redirects are not followed)' : '';
      throw new AppError('UPSTREAM_ERROR', `call_url: ${target} answered HTTP ${res.status}${why}`, {
        reason: 'http_status',
        status: res.status,
        response_body: clip(res.body),
        retryable: res.status >= 500 || res.status === 408 || res.status === 429,
      });
    }
    return { status: res.status, duration_ms: res.durationMs, response_body: clip(res.body) };
  };
}
