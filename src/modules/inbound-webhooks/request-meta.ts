import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

/** Headers never kept in delivery records nor shown to mappings (credentials). */
const SECRET_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-api-key']);
const MAX_HEADERS = 100;
const MAX_HEADER_VALUE = 2048;

export const isSecretHeader = (name: string): boolean => SECRET_HEADERS.has(name.toLowerCase());

/**
 * The request headers a delivery keeps (and mappings see as `$headers`): lower-cased names, credentials
 * and the signature header dropped, values bounded.
 */
export function filterHeaders(raw: IncomingHttpHeaders | Record<string, string>, drop: readonly string[] = []): Record<string, string> {
  const dropped = new Set(drop.map((d) => d.toLowerCase()));
  const out: Record<string, string> = {};
  let n = 0;
  for (const [name, value] of Object.entries(raw)) {
    const key = name.toLowerCase();
    if (value === undefined || SECRET_HEADERS.has(key) || dropped.has(key) || key === '__proto__') continue;
    if (n++ >= MAX_HEADERS) break;
    const text = Array.isArray(value) ? value.join(', ') : String(value);
    out[key] = text.length > MAX_HEADER_VALUE ? text.slice(0, MAX_HEADER_VALUE) : text;
  }
  return out;
}

const SENSITIVE_PARAM = /token|secret|key|sig|password|auth|code/i;

/**
 * The path and query to keep: the path-token parameter and any parameter whose name suggests a
 * credential are replaced by `[redacted]`, so no secret reaches a delivery record.
 */
export function redactedPath(url: string, tokenParam: string | undefined): string {
  const q = url.indexOf('?');
  if (q < 0) return url.slice(0, 2048);
  const params = new URLSearchParams(url.slice(q + 1));
  for (const name of new Set(params.keys())) {
    if (name === tokenParam || SENSITIVE_PARAM.test(name)) params.set(name, '[redacted]');
  }
  const query = params.toString();
  return `${url.slice(0, q)}${query ? `?${query}` : ''}`.slice(0, 2048);
}

/** Idempotency keys longer than this are kept as their SHA-256. */
const KEY_MAX = 255;

export function boundedKey(key: string): string {
  return key.length <= KEY_MAX ? key : `sha256:${createHash('sha256').update(key, 'utf8').digest('hex')}`;
}
