import { hash, randomBytes } from 'node:crypto';

/** `psa_` + 43 base64url characters (32 random bytes). Only the SHA-256 is stored. */
export const KEY_RE = /^psa_[A-Za-z0-9_-]{43}$/;

export function generateApiKey(): { plaintext: string; hash: string; prefix: string } {
  const plaintext = `psa_${randomBytes(32).toString('base64url')}`;
  return { plaintext, hash: hashApiKey(plaintext), prefix: plaintext.slice(0, 8) };
}

/**
 * Keys carry 256 bits of entropy, so a fast hash is the right tool (no salt or stretching needed), and
 * looking the hash up by index is a constant-time comparison in effect: the plaintext is never compared.
 */
export const hashApiKey = (plaintext: string): string => hash('sha256', plaintext, 'hex');
