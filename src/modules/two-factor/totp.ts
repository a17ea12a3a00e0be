import { randomBytes } from 'node:crypto';
import { generateSecret, generateURI, verify } from 'otplib';

/** RFC 6238 defaults every authenticator app understands: SHA-1, 6 digits, 30-second steps. */
export const TOTP_PERIOD_SECONDS = 30;
export const TOTP_ISSUER = 'PSA';
const TOTP_RE = /^[0-9]{6}$/;

/** A new 160-bit secret, Base32 encoded (the form authenticator apps take). */
export const newTotpSecret = (): string => generateSecret({ length: 20 });

export const otpauthUrl = (secret: string, account: string): string =>
  generateURI({ issuer: TOTP_ISSUER, label: account, secret });

export const looksLikeTotp = (code: string): boolean => TOTP_RE.test(code);

/**
 * The time step a code belongs to when it is valid now, one step before or one step after (clock
 * drift); null otherwise. Callers reject steps at or before the last one accepted (replay).
 */
export async function matchTotp(secret: string, code: string): Promise<number | null> {
  if (!looksLikeTotp(code)) return null;
  const result = await verify({ secret, token: code, epochTolerance: TOTP_PERIOD_SECONDS });
  return result.valid && 'timeStep' in result ? result.timeStep : null;
}

// Crockford's Base32 alphabet: no i, l, o or u, so a code read aloud or retyped is unambiguous.
const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';
const RECOVERY_RE = /^[0-9a-hjkmnp-tv-z]{16}$/;
export const RECOVERY_CODE_COUNT = 10;

/** Ten one-time recovery codes of 80 random bits each, shown as xxxx-xxxx-xxxx-xxxx. */
export function newRecoveryCodes(): string[] {
  return Array.from({ length: RECOVERY_CODE_COUNT }, () => {
    const chars = [...randomBytes(16)].map((b) => ALPHABET[b & 31]).join('');
    return chars.match(/.{4}/g)!.join('-');
  });
}

/** The canonical form of a typed recovery code (case, dashes and spaces ignored), or null if it cannot be one. */
export function normalizeRecoveryCode(code: string): string | null {
  const canonical = code.toLowerCase().replace(/[\s-]/g, '');
  return RECOVERY_RE.test(canonical) ? canonical : null;
}
