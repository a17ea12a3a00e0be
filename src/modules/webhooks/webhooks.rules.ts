import { eventTypeInfo, payloadEntityFields } from '../../platform/events/vocabulary.ts';
import { AppError } from '../../platform/http/errors.ts';
import { MASK, MAX_HEADER_NAME_LENGTH, type PayloadFields } from './webhooks.schemas.ts';

/** Body checks the schema cannot express; each names the offending value. */

interface Issue {
  path: string;
  message: string;
}

function fail(issues: Issue[]): void {
  if (issues.length === 0) return;
  const message = issues.map((i) => `${i.path}: ${i.message}`).join('; ').slice(0, 1000);
  throw new AppError('VALIDATION_ERROR', message, issues);
}

/** Every entry must be a delivered type of the vocabulary. */
export function checkEventTypes(types: readonly string[], path = 'body.event_types'): void {
  const issues: Issue[] = [];
  types.forEach((type, i) => {
    const known = eventTypeInfo(type);
    if (!known) issues.push({ path: `${path}.${i}`, message: `unknown event type '${type}' (GET /api/v1/webhooks/events lists them)` });
    else if (!known.delivered) issues.push({ path: `${path}.${i}`, message: `'${type}' is announced but not delivered to webhooks (only ticket and project events are)` });
  });
  fail(issues);
}

/** RFC 9110 token. */
const TOKEN_RE = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** What Node and undici accept in a header value: tab, visible ASCII, space and Latin-1 (no CR, LF, NUL or other controls). */
const VALUE_RE = /^[\t\x20-\x7e\x80-\xff]*$/;
const RESERVED = new Set(['content-type', 'content-length', 'host', 'user-agent', 'connection', 'transfer-encoding', 'keep-alive', 'upgrade', 'te', 'trailer', 'expect', 'proxy-connection']);

export const isReservedHeader = (name: string): boolean => {
  const lower = name.toLowerCase();
  return RESERVED.has(lower) || lower.startsWith('x-service-');
};

/**
 * Checks names (tokens, not reserved, not repeated in another letter case) and values. `current` is the
 * stored set (update): a value of "***" keeps the stored value of that header, and is refused when there
 * is none. Returns the headers to store.
 */
export function checkCustomHeaders(headers: Record<string, string>, current: Record<string, string> = {}): Record<string, string> {
  const issues: Issue[] = [];
  const seen = new Map<string, string>();
  const stored = new Map(Object.entries(current).map(([k, v]) => [k.toLowerCase(), v]));
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const path = `body.custom_headers.${name}`;
    const lower = name.toLowerCase();
    if (name.length === 0 || name.length > MAX_HEADER_NAME_LENGTH || !TOKEN_RE.test(name)) {
      issues.push({ path, message: `'${name.slice(0, 80)}' is not a valid header name (letters, digits and !#$%&'*+.^_\`|~- ; at most ${MAX_HEADER_NAME_LENGTH})` });
      continue;
    }
    if (isReservedHeader(name)) {
      issues.push({ path, message: `'${name}' is reserved (set by the service)` });
      continue;
    }
    if (seen.has(lower)) {
      issues.push({ path, message: `'${name}' repeats '${seen.get(lower)}' (header names ignore letter case)` });
      continue;
    }
    seen.set(lower, name);
    if (value === MASK) {
      const kept = stored.get(lower);
      if (kept === undefined) issues.push({ path, message: `"${MASK}" keeps a stored value, but '${name}' has none; send the value` });
      else out[name] = kept;
      continue;
    }
    if (!VALUE_RE.test(value)) {
      issues.push({ path, message: 'the value may not contain CR, LF or other control characters (tab, printable ASCII and Latin-1 only)' });
      continue;
    }
    out[name] = value;
  }
  fail(issues);
  return out;
}

/** Each listed field must be a selectable field of its entity. */
export function checkPayloadFields(fields: PayloadFields): void {
  const issues: Issue[] = [];
  const entities = payloadEntityFields();
  for (const entity of Object.keys(fields)) {
    const allowed = new Set<string>(entities[entity] ?? []);
    (fields[entity] ?? []).forEach((field, i) => {
      if (!allowed.has(field)) issues.push({ path: `body.payload_fields.${entity}.${i}`, message: `unknown ${entity} field '${field}'` });
    });
  }
  fail(issues);
}

/** http or https, and an absolute URL at all (the address policy is checked separately: 422). */
export function checkUrl(raw: string, path = 'body.url'): string {
  const trimmed = raw.trim();
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    throw new AppError('VALIDATION_ERROR', `${path}: must be an absolute http:// or https:// URL`, [{ path, message: 'must be an absolute http:// or https:// URL' }]);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new AppError('VALIDATION_ERROR', `${path}: the scheme must be http or https`, [{ path, message: 'the scheme must be http or https' }]);
  }
  return trimmed;
}
