import type { SecretBox } from '../../../platform/crypto/secret-box.ts';
import { AppError } from '../../../platform/http/errors.ts';
import type { RmmConnection } from '../providers/provider.ts';

/** Sealed as JSON so a provider that needs more than one secret (client id + secret) fits the same column. */
export const sealCredentials = (box: SecretBox, apiKey: string): string => box.encrypt(JSON.stringify({ api_key: apiKey }));

export const last4 = (apiKey: string): string => apiKey.slice(-4);

/** Opens the stored credentials just before a call; a value that no longer decrypts (key rotated) is a 409. */
export function connectionOf(box: SecretBox, row: { base_url: string; credentials_enc: string; integration_id: string }): RmmConnection {
  let apiKey: unknown;
  try {
    apiKey = (JSON.parse(box.decrypt(row.credentials_enc)) as { api_key?: unknown }).api_key;
  } catch {
    apiKey = undefined;
  }
  if (typeof apiKey !== 'string' || apiKey === '') {
    throw new AppError('CONFLICT', `The credentials of RMM integration '${row.integration_id}' cannot be read; save a new api_key`);
  }
  return { baseUrl: row.base_url, apiKey };
}
