import type { SecretBox } from '../../../platform/crypto/secret-box.ts';

/** How long a started connection may take to come back (the spec's 10 minutes). */
export const STATE_TTL_MS = 10 * 60 * 1000;

export interface OAuthState {
  tenantId: string;
  providerId: string;
  redirectUri: string;
  /** Milliseconds since the epoch, when the flow started. */
  timestamp: number;
  nonce: string;
}

const MAC_CONTEXT = 'ledger-oauth-state:';

/**
 * The `state` parameter: base64url JSON (tenant, provider, redirect URI, timestamp, nonce) and a MAC over it,
 * `<payload>.<mac>`. The MAC makes it unforgeable; the nonce's row makes it single-use; the timestamp bounds it.
 */
export function signState(box: SecretBox, state: OAuthState): string {
  const payload = Buffer.from(JSON.stringify(state)).toString('base64url');
  return `${payload}.${box.mac(MAC_CONTEXT + payload)}`;
}

export type StateProblem = 'malformed' | 'bad_signature' | 'expired';

/** The state's claims when the MAC holds and it is not older than the TTL; otherwise why not. */
export function readState(box: SecretBox, raw: string, now: number): OAuthState | StateProblem {
  const dot = raw.indexOf('.');
  if (dot <= 0 || raw.length > 4096) return 'malformed';
  const payload = raw.slice(0, dot);
  if (!box.verifyMac(MAC_CONTEXT + payload, raw.slice(dot + 1))) return 'bad_signature';
  let claims: unknown;
  try {
    claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    return 'malformed';
  }
  const c = claims as Partial<OAuthState>;
  if (typeof c.tenantId !== 'string' || typeof c.providerId !== 'string' || typeof c.redirectUri !== 'string' || typeof c.timestamp !== 'number' || typeof c.nonce !== 'string') {
    return 'malformed';
  }
  if (now - c.timestamp > STATE_TTL_MS || c.timestamp - now > 60_000) return 'expired';
  return c as OAuthState;
}
