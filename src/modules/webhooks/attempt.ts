import { createHmac } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { OutboundError, UnsafeTargetError, type OutboundClient } from '../../platform/net/outbound-http.ts';

/** Success is a 2xx within this window (the spec's ten seconds). */
export const DELIVERY_TIMEOUT_MS = 10_000;
export const USER_AGENT = 'psa-webhooks/1';

/** `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`. */
export function signatureHeader(secret: string, body: string, unixSeconds: number): string {
  const v1 = createHmac('sha256', secret).update(`${unixSeconds}.${body}`).digest('hex');
  return `t=${unixSeconds},v1=${v1}`;
}

export interface AttemptTarget {
  url: string;
  secret: string;
  customHeaders: Record<string, string>;
}

export interface AttemptInfo {
  webhookId: string;
  deliveryId: string;
  eventId: string;
  eventType: string;
  attempt: number;
  body: string;
}

/**
 * The request headers of one attempt. Custom headers come first; none of them can collide with these
 * (reserved names are refused when a webhook is saved). The signature is computed now, over the exact
 * body, with the real wall clock (receivers compare t with their own clock).
 */
export function attemptHeaders(target: AttemptTarget, a: AttemptInfo, unixSeconds = Math.floor(Date.now() / 1000)): Record<string, string> {
  return {
    ...target.customHeaders,
    'Content-Type': 'application/json',
    'User-Agent': USER_AGENT,
    'X-Service-Signature': signatureHeader(target.secret, a.body, unixSeconds),
    'X-Service-Event-Id': a.eventId,
    'X-Service-Event-Type': a.eventType,
    'X-Service-Webhook-Id': a.webhookId,
    'X-Service-Delivery-Id': a.deliveryId,
    'X-Service-Delivery-Attempt': String(a.attempt),
  };
}

export interface AttemptResult {
  /** A 2xx answer in time. */
  ok: boolean;
  /** The target may never be contacted (private address, bad scheme…): retrying cannot help. */
  unsafe: boolean;
  response_status: number | null;
  response_body: string | null;
  duration_ms: number | null;
  error: string | null;
}

const clip = (text: string, max = 2000) => (text.length > max ? `${text.slice(0, max)}…` : text).replaceAll('\u0000', '\uFFFD');

/** Sends one attempt and classifies the outcome; never throws. A 3xx is a failure (redirects are not followed). */
export async function sendAttempt(client: OutboundClient, target: AttemptTarget, a: AttemptInfo, timeoutMs = DELIVERY_TIMEOUT_MS): Promise<AttemptResult> {
  const started = performance.now();
  try {
    const res = await client.post(target.url, a.body, attemptHeaders(target, a), timeoutMs);
    const ok = res.status >= 200 && res.status < 300;
    const error = ok
      ? null
      : res.status >= 300 && res.status < 400
        ? `HTTP ${res.status}: redirects are not followed`
        : `HTTP ${res.status}: not a 2xx answer`;
    return { ok, unsafe: false, response_status: res.status, response_body: res.body, duration_ms: res.durationMs, error };
  } catch (err) {
    const empty = { ok: false, response_status: null, response_body: null, duration_ms: Math.round(performance.now() - started) };
    if (err instanceof UnsafeTargetError) return { ...empty, unsafe: true, error: clip(`unsafe target: ${err.message}`) };
    if (err instanceof OutboundError) return { ...empty, unsafe: false, error: clip(`${err.kind}: ${err.message}`) };
    return { ...empty, unsafe: false, error: clip(`error: ${err instanceof Error ? err.message : String(err)}`) };
  }
}
