import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signatureHeader } from '../../src/modules/webhooks/index.ts';
import { isValidWebhookSignature, verifyWebhookSignature, WebhookSignatureError, type WebhookSignatureFailure } from '../src/webhooks.ts';

const SECRET = 'whsec-0123456789abcdefghijklmnopqrstuvwxyzABC';
const BODY = '{"event_id":"e1","event_type":"ticket.created","data":{"title":"Grüße ✓"}}';
const T = 1_700_000_000;
const NOW = T * 1000;

const hex = (secret: string, t: number, body: string) => createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');

function failure(run: () => unknown): WebhookSignatureFailure | undefined {
  try {
    run();
    return undefined;
  } catch (err) {
    expect(err).toBeInstanceOf(WebhookSignatureError);
    return (err as WebhookSignatureError).reason;
  }
}

describe('verifyWebhookSignature', () => {
  it('accepts the header the server itself produces, for a string or a Buffer payload', () => {
    const header = signatureHeader(SECRET, BODY, T);
    expect(verifyWebhookSignature({ payload: BODY, header, secret: SECRET, now: NOW })).toBe(true);
    expect(verifyWebhookSignature({ payload: Buffer.from(BODY, 'utf8'), header, secret: SECRET, now: new Date(NOW) })).toBe(true);
  });

  it('rejects a tampered body and a wrong secret as SIGNATURE_MISMATCH', () => {
    const header = signatureHeader(SECRET, BODY, T);
    expect(failure(() => verifyWebhookSignature({ payload: BODY.replace('Grüße', 'Gruse'), header, secret: SECRET, now: NOW }))).toBe('SIGNATURE_MISMATCH');
    expect(failure(() => verifyWebhookSignature({ payload: BODY, header, secret: `${SECRET}x`, now: NOW }))).toBe('SIGNATURE_MISMATCH');
    // The timestamp is signed too: moving it breaks the signature.
    expect(failure(() => verifyWebhookSignature({ payload: BODY, header: header.replace(`t=${T}`, `t=${T + 1}`), secret: SECRET, now: NOW }))).toBe('SIGNATURE_MISMATCH');
  });

  it('rejects timestamps beyond the tolerance either way, and honours a custom tolerance', () => {
    const header = signatureHeader(SECRET, BODY, T);
    expect(verifyWebhookSignature({ payload: BODY, header, secret: SECRET, now: NOW + 300_000 })).toBe(true);
    expect(failure(() => verifyWebhookSignature({ payload: BODY, header, secret: SECRET, now: NOW + 301_000 }))).toBe('TIMESTAMP_OUT_OF_TOLERANCE');
    expect(failure(() => verifyWebhookSignature({ payload: BODY, header, secret: SECRET, now: NOW - 301_000 }))).toBe('TIMESTAMP_OUT_OF_TOLERANCE');
    expect(failure(() => verifyWebhookSignature({ payload: BODY, header, secret: SECRET, now: NOW + 11_000, toleranceSeconds: 10 }))).toBe('TIMESTAMP_OUT_OF_TOLERANCE');
  });

  it('accepts the header when any of several v1 signatures matches, ignoring unknown schemes', () => {
    const header = `t=${T}, v0=abc, v1=${hex('old-secret', T, BODY)}, v1=not-hex, v1=${hex(SECRET, T, BODY)}`;
    expect(verifyWebhookSignature({ payload: BODY, header, secret: SECRET, now: NOW })).toBe(true);
    expect(failure(() => verifyWebhookSignature({ payload: BODY, header: `t=${T},v1=${hex('a', T, BODY)},v1=${hex('b', T, BODY)}`, secret: SECRET, now: NOW }))).toBe('SIGNATURE_MISMATCH');
  });

  it('reads a header given as several values, as Node hands repeated headers over', () => {
    const header = [`t=${T}`, `v1=${hex('old-secret', T, BODY)}`, `v1=${hex(SECRET, T, BODY)}`];
    expect(verifyWebhookSignature({ payload: BODY, header, secret: SECRET, now: NOW })).toBe(true);
    expect(failure(() => verifyWebhookSignature({ payload: BODY, header: [], secret: SECRET, now: NOW }))).toBe('MALFORMED_HEADER');
  });

  it('names a missing or malformed header', () => {
    const run = (header: string | undefined) => failure(() => verifyWebhookSignature({ payload: BODY, header, secret: SECRET, now: NOW }));
    expect(run(undefined)).toBe('MALFORMED_HEADER');
    expect(run('')).toBe('MALFORMED_HEADER');
    expect(run(`v1=${hex(SECRET, T, BODY)}`)).toBe('MALFORMED_HEADER');
    expect(run(`t=soon,v1=${hex(SECRET, T, BODY)}`)).toBe('MALFORMED_HEADER');
    expect(run(`t=${T}`)).toBe('NO_SIGNATURE');
    expect(run(`t=${T},v1=${hex(SECRET, T, BODY).slice(0, 62)}`)).toBe('SIGNATURE_MISMATCH');
  });
});

describe('isValidWebhookSignature', () => {
  it('answers with a boolean instead of throwing', () => {
    const header = signatureHeader(SECRET, BODY, T);
    expect(isValidWebhookSignature({ payload: BODY, header, secret: SECRET, now: NOW })).toBe(true);
    expect(isValidWebhookSignature({ payload: `${BODY} `, header, secret: SECRET, now: NOW })).toBe(false);
    expect(isValidWebhookSignature({ payload: BODY, header: undefined, secret: SECRET, now: NOW })).toBe(false);
  });
});
