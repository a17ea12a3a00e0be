/**
 * Checking an outbound webhook's X-Service-Signature, exactly as the server signs it
 * (src/modules/webhooks/attempt.ts): `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>`,
 * the secret used as its UTF-8 text. Several v1 entries may appear (e.g. while a secret is rotated); one
 * match is enough.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export type WebhookSignatureFailure = 'MALFORMED_HEADER' | 'NO_SIGNATURE' | 'TIMESTAMP_OUT_OF_TOLERANCE' | 'SIGNATURE_MISMATCH';

export class WebhookSignatureError extends Error {
  readonly reason: WebhookSignatureFailure;

  constructor(reason: WebhookSignatureFailure, message: string) {
    super(message);
    this.name = 'WebhookSignatureError';
    this.reason = reason;
  }
}

export interface VerifyWebhookOptions {
  /** The raw request body, byte for byte as received: never a re-serialised parse of it. */
  payload: string | Buffer;
  /** The X-Service-Signature header value (as Node's req.headers gives it: several values are joined). */
  header: string | readonly string[] | undefined;
  secret: string;
  /** How far t may be from now, either way (default 300 s): bounds how long a captured request can be replayed. */
  toleranceSeconds?: number;
  /** The current time (ms since the epoch, or a Date); default Date.now(). */
  now?: number | Date;
}

const HEX_SHA256 = /^[0-9a-f]{64}$/i;

/** Returns true for a valid signature; throws WebhookSignatureError (with its reason) otherwise. */
export function verifyWebhookSignature(options: VerifyWebhookOptions): true {
  const { t, v1 } = parseHeader(options.header);
  const nowSeconds = Number(options.now ?? Date.now()) / 1000;
  const tolerance = options.toleranceSeconds ?? 300;
  if (Math.abs(nowSeconds - t) > tolerance) {
    throw new WebhookSignatureError('TIMESTAMP_OUT_OF_TOLERANCE', `signature timestamp ${t} is more than ${tolerance} s from now`);
  }
  const body = typeof options.payload === 'string' ? Buffer.from(options.payload, 'utf8') : options.payload;
  const expected = createHmac('sha256', options.secret).update(`${t}.`).update(body).digest();
  // Every candidate is compared (no early exit), each in constant time over 32 bytes.
  let matched = false;
  for (const candidate of v1) {
    if (HEX_SHA256.test(candidate) && timingSafeEqual(expected, Buffer.from(candidate, 'hex'))) matched = true;
  }
  if (!matched) throw new WebhookSignatureError('SIGNATURE_MISMATCH', 'no v1 signature matches the payload and secret');
  return true;
}

/** The boolean form: false instead of a WebhookSignatureError. */
export function isValidWebhookSignature(options: VerifyWebhookOptions): boolean {
  try {
    return verifyWebhookSignature(options);
  } catch (err) {
    if (err instanceof WebhookSignatureError) return false;
    throw err;
  }
}

function parseHeader(value: string | readonly string[] | undefined): { t: number; v1: string[] } {
  const header = typeof value === 'string' ? value : value?.join(',');
  if (!header) throw new WebhookSignatureError('MALFORMED_HEADER', 'the X-Service-Signature header is missing');
  let t: number | undefined;
  const v1: string[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 't' && /^\d+$/.test(value)) t = Number(value);
    else if (key === 'v1') v1.push(value);
  }
  if (t === undefined) throw new WebhookSignatureError('MALFORMED_HEADER', 'the signature header has no valid t=<unix seconds>');
  if (v1.length === 0) throw new WebhookSignatureError('NO_SIGNATURE', 'the signature header has no v1 signature');
  return { t, v1 };
}
