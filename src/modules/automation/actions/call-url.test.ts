import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Actor } from '../../../platform/auth/context.ts';
import { OutboundClient } from '../../../platform/net/outbound-http.ts';
import { LOOPBACK, Receiver, verifySignature } from '../../../../test/webhooks-kit.ts';
import type { ActionRunContext } from '../automation.types.ts';
import { callUrlRunner, CALL_URL_USER_AGENT } from './call-url.ts';

const SECRET = 'whsec_automation_test';

const actor = (permissions: string[] = ['automation:update']): Actor => ({
  tenant: randomUUID(),
  tenantSlug: 'acme',
  userId: randomUUID(),
  apiKeyId: randomUUID(),
  userType: 'internal',
  clientId: null,
  contactId: null,
  permissions: new Set(permissions),
  scopes: null,
});

function ctxOf(over: Partial<ActionRunContext> = {}): ActionRunContext {
  const executionId = randomUUID();
  return { actor: actor(), executionId, ruleId: randomUUID(), actionIndex: 2, idempotencyKey: `${executionId}:2`, signal: new AbortController().signal, signingSecret: SECRET, ...over };
}

let receiver: Receiver;
let client: OutboundClient;
let guarded: OutboundClient;
const run = callUrlRunner({ outbound: () => client });

beforeAll(async () => {
  receiver = await new Receiver().listen();
  client = new OutboundClient({ allowPrivate: LOOPBACK });
  guarded = new OutboundClient();
});
afterEach(() => {
  receiver.receipts = [];
  receiver.reply = () => ({ status: 200, body: 'ok' });
  receiver.dropHeld();
});
afterAll(async () => {
  await client.close();
  await guarded.close();
  await receiver.close();
});

describe('call_url', () => {
  it('POSTs the JSON body signed like an outbound webhook, with the step\'s Idempotency-Key', async () => {
    receiver.reply = () => ({ status: 201, body: '{"accepted":true}' });
    const ctx = ctxOf();
    const result = await run(ctx, { url: `${receiver.url}?token=abc`, body: { ticket_id: 't-1', note: 'héllo' }, headers: { Authorization: 'Bearer xyz', 'X-Custom': 'v' } }, null);
    expect(result).toEqual({ status: 201, duration_ms: expect.any(Number), response_body: '{"accepted":true}' });
    expect(receiver.receipts).toHaveLength(1);
    const [r] = receiver.receipts;
    expect(r!.path).toBe('/hook?token=abc');
    expect(JSON.parse(r!.body)).toEqual({ ticket_id: 't-1', note: 'héllo' });
    expect(r!.headers['content-type']).toBe('application/json');
    expect(r!.headers['user-agent']).toBe(CALL_URL_USER_AGENT);
    expect(r!.headers['idempotency-key']).toBe(ctx.idempotencyKey);
    expect(r!.headers['x-service-automation-rule-id']).toBe(ctx.ruleId);
    expect(r!.headers['x-service-automation-execution-id']).toBe(ctx.executionId);
    expect(r!.headers.authorization).toBe('Bearer xyz');
    expect(r!.headers['x-custom']).toBe('v');
    expect(verifySignature(SECRET, r!.headers['x-service-signature'], r!.body)).toBe(true);
    expect(verifySignature('another secret', r!.headers['x-service-signature'], r!.body)).toBe(false);
  });

  it('a retried step sends the same Idempotency-Key (and a fresh signature)', async () => {
    const ctx = ctxOf();
    await run(ctx, { url: receiver.url, body: { n: 1 } }, null);
    await run(ctx, { url: receiver.url, body: { n: 1 } }, null);
    expect(receiver.receipts.map((r) => r.headers['idempotency-key'])).toEqual([ctx.idempotencyKey, ctx.idempotencyKey]);
    for (const r of receiver.receipts) expect(verifySignature(SECRET, r.headers['x-service-signature'], r.body)).toBe(true);
  });

  it('sends GET, PUT and PATCH; a GET has no body and is signed over the empty body', async () => {
    await run(ctxOf(), { url: receiver.url, method: 'GET' }, null);
    await run(ctxOf(), { url: receiver.url, method: 'PUT', body: [1, 2] }, null);
    await run(ctxOf(), { url: receiver.url, method: 'PATCH', body: 'text' }, null);
    const [get, put, patch] = receiver.receipts;
    expect(get!.body).toBe('');
    expect(get!.headers['content-type']).toBeUndefined();
    expect(verifySignature(SECRET, get!.headers['x-service-signature'], '')).toBe(true);
    expect(put!.body).toBe('[1,2]');
    expect(patch!.body).toBe('"text"');
    await expect(run(ctxOf(), { url: receiver.url, method: 'GET', body: { a: 1 } }, null)).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
  });

  it('an answer other than 2xx fails the step with its status; retryable for 5xx, 408 and 429 only', async () => {
    receiver.reply = () => ({ status: 503, body: 'down for maintenance' });
    await expect(run(ctxOf(), { url: `${receiver.url}?secret=1`, body: {} }, null)).rejects.toMatchObject({
      code: 'UPSTREAM_ERROR',
      message: expect.not.stringContaining('secret=1'),
      details: { reason: 'http_status', status: 503, response_body: 'down for maintenance', retryable: true },
    });
    receiver.reply = () => ({ status: 404 });
    await expect(run(ctxOf(), { url: receiver.url }, null)).rejects.toMatchObject({ details: { status: 404, retryable: false } });
    receiver.reply = () => ({ status: 302, headers: { location: 'http://169.254.169.254/' } });
    await expect(run(ctxOf(), { url: receiver.url }, null)).rejects.toMatchObject({ message: expect.stringContaining('redirects are not followed'), details: { status: 302 } });
    expect(receiver.receipts).toHaveLength(3);
  });

  it('the action\'s timeout (ctx.signal) aborts a call that hangs', async () => {
    receiver.reply = () => 'hang';
    const started = Date.now();
    await expect(run(ctxOf({ signal: AbortSignal.timeout(300) }), { url: receiver.url, body: {} }, null)).rejects.toMatchObject({
      code: 'UPSTREAM_ERROR',
      details: { reason: 'timeout', retryable: true },
    });
    expect(Date.now() - started).toBeLessThan(5_000);
    const aborted = new AbortController();
    aborted.abort();
    const before = receiver.receipts.length;
    await expect(run(ctxOf({ signal: aborted.signal }), { url: receiver.url }, null)).rejects.toMatchObject({ details: { reason: 'timeout' } });
    expect(receiver.receipts).toHaveLength(before);
  });

  it('refuses a private address unless the client allows it (SSRF), and never contacts it', async () => {
    const strict = callUrlRunner({ outbound: () => guarded });
    for (const url of [receiver.url, `http://[::1]:${receiver.port}/hook`, `http://localhost:${receiver.port}/hook`, `http://10.0.0.1:${receiver.port}/`]) {
      await expect(strict(ctxOf(), { url, body: {} }, null), url).rejects.toMatchObject({ code: 'UNPROCESSABLE', details: { reason: 'unsafe_target', retryable: false } });
    }
    await expect(strict(ctxOf(), { url: 'ftp://example.com/x' }, null)).rejects.toMatchObject({ code: 'UNPROCESSABLE', details: { reason: 'unsafe_target' } });
    expect(receiver.receipts).toHaveLength(0);
  });

  it('refuses reserved or malformed headers, oversized bodies and unknown fields before sending', async () => {
    for (const headers of [{ Host: 'evil' }, { 'content-length': '1' }, { 'X-PSA-Tenant': 'x' }, { 'X-Service-Signature': 'forged' }, { 'idempotency-key': 'mine' }, { 'X-A': 'line\nbreak' }]) {
      await expect(run(ctxOf(), { url: receiver.url, headers }, null), JSON.stringify(headers)).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    }
    await expect(run(ctxOf(), { url: receiver.url, body: 'x'.repeat(70_000) }, null)).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    await expect(run(ctxOf(), { url: receiver.url, script: 'rm -rf /' }, null)).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    await expect(run(ctxOf(), { url: 'not a url' }, null)).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    expect(receiver.receipts).toHaveLength(0);
  });

  it('needs automation:update', async () => {
    await expect(run(ctxOf({ actor: actor(['automation:read']) }), { url: receiver.url }, null)).rejects.toMatchObject({ code: 'FORBIDDEN', details: { required: ['automation:update'] } });
    expect(receiver.receipts).toHaveLength(0);
  });
});
