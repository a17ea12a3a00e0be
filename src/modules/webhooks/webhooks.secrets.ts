import { randomBytes } from 'node:crypto';
import type { SecretBox } from '../../platform/crypto/secret-box.ts';

/** A signing secret: 32 random bytes, base64url (43 characters). */
export const newSigningSecret = (): string => randomBytes(32).toString('base64url');

/** The stored form of a custom-header set: sealed values, and the names in clear (for masked responses). */
export function sealHeaders(box: SecretBox, headers: Record<string, string>): { custom_headers_enc: string | null; custom_header_names: string[] } {
  const names = Object.keys(headers);
  return names.length === 0
    ? { custom_headers_enc: null, custom_header_names: [] }
    : { custom_headers_enc: box.encrypt(JSON.stringify(headers)), custom_header_names: names };
}

export const openHeaders = (box: SecretBox, sealed: string | null): Record<string, string> =>
  sealed === null ? {} : (JSON.parse(box.decrypt(sealed)) as Record<string, string>);
