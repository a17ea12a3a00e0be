import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import ipaddr from 'ipaddr.js';
import type { FastifyRequest } from 'fastify';
import type { InboundAuthType } from '../../platform/db/schema.ts';

/**
 * Authentication of receiver requests. Every comparison of secret material is constant-time over
 * equal-length buffers (digests), and every path — unknown webhook included — does comparable work,
 * so neither the answer nor its timing tells an attacker which part was wrong.
 */

/** The non-secret settings per auth type, as stored in `auth_config`. */
export interface AuthSettings {
  signature_header?: string;
  timestamp_header?: string;
  tolerance_seconds?: number;
  query_param?: string;
  allowed_ips?: string[];
}

export const DEFAULT_SIGNATURE_HEADER = 'x-webhook-signature';
export const DEFAULT_QUERY_PARAM = 'token';
export const DEFAULT_TOLERANCE_SECONDS = 300;

export type AuthFailure = 'missing_credentials' | 'invalid_signature' | 'stale_timestamp' | 'invalid_token' | 'ip_not_allowed';

export interface RequestCredentials {
  headers: Record<string, string | string[] | undefined>;
  query: Record<string, unknown>;
  rawBody: Buffer;
  sourceIp: string | null;
}

/** 32 random bytes, base64url: what the service generates when a configuration names no secret. */
export const generateSecret = (): string => randomBytes(32).toString('base64url');

export const secretNeeded = (type: InboundAuthType): boolean => type !== 'ip_allowlist';

const DUMMY_SECRET = randomBytes(32).toString('base64url');
const sha256 = (s: string): Buffer => createHash('sha256').update(s, 'utf8').digest();

function single(v: string | string[] | undefined): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

/** `sha256=<hex>` or bare hex → the 32 digest bytes, or undefined when malformed. */
function parseSignature(value: string | undefined): Buffer | undefined {
  if (value === undefined) return undefined;
  const hex = value.trim().replace(/^sha256=/i, '');
  return /^[0-9a-f]{64}$/i.test(hex) ? Buffer.from(hex, 'hex') : undefined;
}

function hmacMatches(secret: string, signed: Buffer[], given: Buffer | undefined): boolean {
  const mac = createHmac('sha256', secret);
  for (const part of signed) mac.update(part);
  const expected = mac.digest();
  // Compare against itself when the header was malformed, so the work is the same either way.
  return timingSafeEqual(expected, given ?? Buffer.alloc(32)) && given !== undefined;
}

function tokenMatches(secret: string, given: string | undefined): boolean {
  return timingSafeEqual(sha256(secret), sha256(given ?? '')) && given !== undefined && given.length > 0;
}

function verifyHmac(settings: AuthSettings, secret: string, req: RequestCredentials, nowMs: number): AuthFailure | undefined {
  const signature = parseSignature(single(req.headers[(settings.signature_header ?? DEFAULT_SIGNATURE_HEADER).toLowerCase()]));
  if (!settings.timestamp_header) {
    const ok = hmacMatches(secret, [req.rawBody], signature);
    if (ok) return undefined;
    return signature === undefined ? 'missing_credentials' : 'invalid_signature';
  }
  const stamp = single(req.headers[settings.timestamp_header.toLowerCase()])?.trim();
  const seconds = stamp !== undefined && /^\d{1,12}$/.test(stamp) ? Number(stamp) : undefined;
  const ok = hmacMatches(secret, [Buffer.from(`${stamp ?? ''}.`, 'utf8'), req.rawBody], signature);
  if (signature === undefined || seconds === undefined) return 'missing_credentials';
  if (!ok) return 'invalid_signature';
  const tolerance = settings.tolerance_seconds ?? DEFAULT_TOLERANCE_SECONDS;
  return Math.abs(nowMs / 1000 - seconds) > tolerance ? 'stale_timestamp' : undefined;
}

function bearerToken(header: string | undefined): string | undefined {
  const m = header?.match(/^\s*bearer\s+(\S+)\s*$/i);
  return m?.[1];
}

export function verifyCredentials(
  hook: { auth_type: InboundAuthType; auth_config: AuthSettings; secret: string | null },
  req: RequestCredentials,
  nowMs = Date.now(),
): AuthFailure | undefined {
  const secret = hook.secret ?? DUMMY_SECRET;
  switch (hook.auth_type) {
    case 'hmac_sha256':
      return verifyHmac(hook.auth_config, secret, req, nowMs);
    case 'bearer': {
      const token = bearerToken(single(req.headers.authorization));
      if (tokenMatches(secret, token) && hook.secret !== null) return undefined;
      return token === undefined ? 'missing_credentials' : 'invalid_token';
    }
    case 'path_token': {
      const raw = req.query[hook.auth_config.query_param ?? DEFAULT_QUERY_PARAM];
      const token = typeof raw === 'string' ? raw : undefined;
      if (tokenMatches(secret, token) && hook.secret !== null) return undefined;
      return token === undefined ? 'missing_credentials' : 'invalid_token';
    }
    case 'ip_allowlist':
      // Same digest work as the secret-bearing types, so the type does not show in the timing.
      tokenMatches(secret, undefined);
      return req.sourceIp !== null && ipAllowed(req.sourceIp, hook.auth_config.allowed_ips ?? []) ? undefined : 'ip_not_allowed';
  }
}

/** The work of a verification against a configuration that does not exist (its answer is discarded). */
export function verifyAgainstNothing(req: RequestCredentials): void {
  hmacMatches(DUMMY_SECRET, [req.rawBody], parseSignature(undefined));
  tokenMatches(DUMMY_SECRET, undefined);
}

// ---------------------------------------------------------------------------------------------------
// Addresses

type Address = ipaddr.IPv4 | ipaddr.IPv6;

/** A textual address in canonical form; IPv4-mapped IPv6 (::ffff:a.b.c.d) becomes plain IPv4. */
export function normalizeIp(raw: string | undefined): string | null {
  if (!raw) return null;
  try {
    return ipaddr.process(raw).toString();
  } catch {
    return null;
  }
}

/**
 * The client address: the socket's peer, unless the operator declared a trusted proxy in front of the
 * service (PSA_TRUST_PROXY), in which case Fastify's request.ip has read X-Forwarded-For. A forged
 * X-Forwarded-For without a trusted proxy changes nothing.
 */
export function clientIp(request: FastifyRequest, trustProxy: boolean): string | null {
  return normalizeIp(trustProxy ? request.ip : request.socket?.remoteAddress ?? undefined);
}

function parseStrict(text: string): Address | undefined {
  if (ipaddr.IPv4.isValidFourPartDecimal(text)) return ipaddr.IPv4.parse(text);
  if (!text.includes('%') && ipaddr.IPv6.isValid(text)) {
    const v6 = ipaddr.IPv6.parse(text);
    return v6.isIPv4MappedAddress() ? v6.toIPv4Address() : v6;
  }
  return undefined;
}

/**
 * An allowlist entry in canonical form — an exact address or a CIDR range (host bits cleared;
 * IPv4-mapped IPv6 ranges become IPv4 ranges) — or undefined when it is neither.
 */
export function canonicalAllowEntry(entry: string): string | undefined {
  const text = entry.trim();
  const slash = text.indexOf('/');
  if (slash < 0) return parseStrict(text)?.toString();
  const bitsText = text.slice(slash + 1);
  if (!/^\d{1,3}$/.test(bitsText)) return undefined;
  const addrText = text.slice(0, slash);
  let bits = Number(bitsText);
  let addr: Address | undefined;
  if (ipaddr.IPv4.isValidFourPartDecimal(addrText)) addr = ipaddr.IPv4.parse(addrText);
  else if (!addrText.includes('%') && ipaddr.IPv6.isValid(addrText)) addr = ipaddr.IPv6.parse(addrText);
  if (!addr) return undefined;
  if (bits > (addr.kind() === 'ipv4' ? 32 : 128)) return undefined;
  if (addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress() && bits >= 96) {
    addr = (addr as ipaddr.IPv6).toIPv4Address();
    bits -= 96;
  }
  const network = addr.kind() === 'ipv4' ? ipaddr.IPv4.networkAddressFromCIDR(`${addr.toString()}/${bits}`) : ipaddr.IPv6.networkAddressFromCIDR(`${addr.toString()}/${bits}`);
  return `${network.toString()}/${bits}`;
}

/** Whether a (normalized) source address matches any canonical allowlist entry. */
export function ipAllowed(source: string, entries: readonly string[]): boolean {
  const addr = parseStrict(source);
  if (!addr) return false;
  for (const entry of entries) {
    const slash = entry.indexOf('/');
    if (slash < 0) {
      const exact = parseStrict(entry);
      if (exact && exact.kind() === addr.kind() && exact.toString() === addr.toString()) return true;
      continue;
    }
    try {
      const [network, bits] = ipaddr.parseCIDR(entry);
      if (network.kind() !== addr.kind()) continue;
      const inside = addr.kind() === 'ipv4'
        ? (addr as ipaddr.IPv4).match(network as ipaddr.IPv4, bits)
        : (addr as ipaddr.IPv6).match(network as ipaddr.IPv6, bits);
      if (inside) return true;
    } catch {
      // A stored entry that no longer parses matches nothing.
    }
  }
  return false;
}
