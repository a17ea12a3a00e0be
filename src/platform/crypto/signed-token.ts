/**
 * Opaque, tamper-proof tokens handed to clients and read back later (paging cursors): the payload as
 * base64url JSON, a dot, and its MAC under the app's key (the SecretBox, shared by every process through
 * PSA_SECRET_KEY, so a token issued by one process verifies in any other).
 */
export interface CursorMac {
  mac(data: string): string;
  verifyMac(data: string, mac: string): boolean;
}

export function signToken(box: CursorMac, payload: unknown): string {
  const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
  return `${body}.${box.mac(body)}`;
}

/**
 * The payload of a token signToken issued with this key; undefined when anything is off (altered,
 * truncated, forged, extra parts, not JSON). The caller still checks the payload's shape.
 */
export function openToken(box: CursorMac, token: string): unknown {
  const [body, mac, extra] = token.split('.');
  if (!body || !mac || extra !== undefined || !box.verifyMac(body, mac)) return undefined;
  try {
    return JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}
