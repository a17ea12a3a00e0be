import { Writable } from 'node:stream';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../app.ts';
import { loadConfig } from '../../config.ts';
import { logSerializers } from '../../platform/http/log-redaction.ts';
import { TEST_SECRET_KEY, buildTestApp, type TestApp } from '../../../test/harness.ts';
import { makeTenant, type TenantFixture } from '../../../test/factories.ts';
import { expectError, expectStatus, makeClient } from '../../../test/client-factories.ts';
import { WORKFLOW, deliveryRows, eventsOfType, hmacHex, makeInbound, receive, signed, type InboundJson } from '../../../test/inbound-factories.ts';

/** The main app allows plenty of refused requests per address; the limit itself has its own app below. */
const ENV = { PSA_AUTH_FAILURE_BURST: '100000', PSA_AUTH_FAILURE_PER_MINUTE: '100000' };
let t: TestApp;
let ten: TenantFixture;
beforeAll(async () => {
  t = await buildTestApp({ env: ENV });
  ten = await makeTenant(t);
});
afterAll(async () => { await t.close(); });

const rowsOf = (hook: InboundJson) => deliveryRows(t, ten.tenant, hook.inbound_webhook_id);
const nowSeconds = () => Math.floor(Date.now() / 1000);

describe('hmac_sha256', () => {
  it('accepts sha256=<hex> and bare hex over the raw body; refuses bad, missing, malformed and tampered signatures', async () => {
    const hook = await makeInbound(ten.admin);
    const text = '{"event":"x",  "n": 1}';
    const sig = hmacHex(hook.secret!, text);
    const post = (headers: Record<string, string>, body = text) => receive(t, ten.slug, hook.slug, { body, headers });
    expectStatus(await post({ 'x-webhook-signature': `sha256=${sig}` }), 202);
    expectStatus(await post({ 'x-webhook-signature': sig }), 202);
    expectStatus(await post({ 'X-Webhook-Signature': `SHA256=${sig.toUpperCase()}` }), 202);
    expect(await rowsOf(hook)).toHaveLength(3);

    const refusedHeaders: Record<string, string>[] = [
      {},
      { 'x-webhook-signature': '' },
      { 'x-webhook-signature': 'sha256=' },
      { 'x-webhook-signature': `sha256=${sig.slice(0, 63)}` },
      { 'x-webhook-signature': `sha256=${'0'.repeat(64)}` },
      { 'x-webhook-signature': `sha1=${sig}` },
      { 'x-webhook-signature': `sha256=${hmacHex('another-secret-entirely', text)}` },
      { 'x-other-signature': `sha256=${sig}` },
    ];
    for (const headers of refusedHeaders) {
      const res = await post(headers);
      expectError(res, 401, 'UNAUTHORIZED');
      expect(res.json().error.message).toBe('Unauthorized');
      expect(res.json().error.details).toBeUndefined();
    }
    expectError(await post({ 'x-webhook-signature': `sha256=${sig}` }, '{"event":"x",  "n": 2}'), 401, 'UNAUTHORIZED');
    // Refused requests leave no delivery rows.
    expect(await rowsOf(hook)).toHaveLength(3);
  });

  it('reads the configured signature header and never keeps it', async () => {
    const hook = await makeInbound(ten.admin, { auth_config: { signature_header: 'X-Hub-Signature-256' } });
    expectStatus(await receive(t, ten.slug, hook.slug, signed(hook.secret!, { a: 1 }, 'x-hub-signature-256')), 202);
    expectError(await receive(t, ten.slug, hook.slug, signed(hook.secret!, { a: 1 })), 401, 'UNAUTHORIZED');
    const [row] = await rowsOf(hook);
    expect(JSON.parse(row!.request_headers)).not.toHaveProperty('x-hub-signature-256');
  });

  it('with a timestamp header: signs "<t>.<body>" and refuses stale, future and missing timestamps', async () => {
    const hook = await makeInbound(ten.admin, { auth_config: { timestamp_header: 'X-Webhook-Timestamp', tolerance_seconds: 300 } });
    const text = JSON.stringify({ order: 7 });
    const send = (ts: string | undefined, signedString: string) =>
      receive(t, ten.slug, hook.slug, {
        body: text,
        headers: { 'x-webhook-signature': `sha256=${hmacHex(hook.secret!, signedString)}`, ...(ts === undefined ? {} : { 'x-webhook-timestamp': ts }) },
      });
    const now = nowSeconds();
    expectStatus(await send(String(now), `${now}.${text}`), 202);
    expectStatus(await send(String(now - 290), `${now - 290}.${text}`), 202);
    expectError(await send(String(now), text), 401, 'UNAUTHORIZED');
    expectError(await send(String(now - 400), `${now - 400}.${text}`), 401, 'UNAUTHORIZED');
    expectError(await send(String(now + 400), `${now + 400}.${text}`), 401, 'UNAUTHORIZED');
    expectError(await send(undefined, `.${text}`), 401, 'UNAUTHORIZED');
    expectError(await send('yesterday', `yesterday.${text}`), 401, 'UNAUTHORIZED');
    // A captured request replayed with a new timestamp fails: the signature covers the timestamp.
    expectError(await send(String(now + 5), `${now}.${text}`), 401, 'UNAUTHORIZED');
    expect(await rowsOf(hook)).toHaveLength(2);
  });
});

describe('bearer', () => {
  it('accepts Authorization: Bearer <token> and refuses anything else; the header is never kept', async () => {
    const token = 'a-bearer-token-long-enough';
    const hook = await makeInbound(ten.admin, { auth_type: 'bearer', auth_config: { secret: token } });
    const post = (headers: Record<string, string>) => receive(t, ten.slug, hook.slug, { body: { a: 1 }, headers });
    expectStatus(await post({ authorization: `Bearer ${token}` }), 202);
    expectStatus(await post({ authorization: `bearer ${token}` }), 202);
    const refusedHeaders: Record<string, string>[] = [{}, { authorization: `Bearer ${token}x` }, { authorization: `Basic ${token}` }, { authorization: token }, { authorization: 'Bearer ' }, { 'x-webhook-signature': token }];
    for (const headers of refusedHeaders) {
      expectError(await post(headers), 401, 'UNAUTHORIZED');
    }
    const rows = await rowsOf(hook);
    expect(rows).toHaveLength(2);
    for (const row of rows) expect(JSON.stringify(row)).not.toContain(token);
  });
});

describe('path_token', () => {
  it('accepts the token in the configured query parameter and keeps the path without it', async () => {
    const token = 'path-token-0123456789abcdef';
    const hook = await makeInbound(ten.admin, { auth_type: 'path_token', auth_config: { query_param: 'auth', secret: token } });
    expectStatus(await receive(t, ten.slug, hook.slug, { body: { a: 1 }, query: `?auth=${token}&source=crm` }), 202);
    for (const query of ['', `?token=${token}`, '?auth=wrong-token-0123456789', `?auth=${token}&auth=${token}`, '?auth=']) {
      expectError(await receive(t, ten.slug, hook.slug, { body: { a: 1 }, query }), 401, 'UNAUTHORIZED');
    }
    const [row] = await rowsOf(hook);
    expect(row!.request_path).toBe(`/api/inbound/${ten.slug}/${hook.slug}?auth=%5Bredacted%5D&source=crm`);
    expect(JSON.stringify(row)).not.toContain(token);
  });
});

describe('ip_allowlist', () => {
  it('matches exact addresses and CIDR ranges at their edges, IPv4 and IPv6, IPv4-mapped included', async () => {
    const hook = await makeInbound(ten.admin, { auth_type: 'ip_allowlist', auth_config: { allowed_ips: ['192.0.2.0/24', '2001:db8::/32', '198.51.100.7'] } });
    const from = (remoteAddress: string) => receive(t, ten.slug, hook.slug, { body: { from: remoteAddress }, remoteAddress });
    const allowed = ['192.0.2.0', '192.0.2.255', '198.51.100.7', '::ffff:192.0.2.10', '2001:db8::1', '2001:db8:ffff:ffff:ffff:ffff:ffff:ffff', '2001:0db8:0000:0000:0000:0000:0000:0001'];
    const refused = ['192.0.1.255', '192.0.3.0', '198.51.100.8', '2001:db9::', '2001:db7:ffff:ffff:ffff:ffff:ffff:ffff', '::ffff:192.0.3.1', '127.0.0.1', '::1'];
    for (const ip of allowed) expectStatus(await from(ip), 202);
    for (const ip of refused) expectError(await from(ip), 401, 'UNAUTHORIZED');
    const rows = await rowsOf(hook);
    expect(rows.map((r) => r.source_ip)).toEqual(['192.0.2.0', '192.0.2.255', '198.51.100.7', '192.0.2.10', '2001:db8::1', '2001:db8:ffff:ffff:ffff:ffff:ffff:ffff', '2001:db8::1']);
  });

  it('ignores a forged X-Forwarded-For when no trusted proxy is configured', async () => {
    const hook = await makeInbound(ten.admin, { auth_type: 'ip_allowlist', auth_config: { allowed_ips: ['192.0.2.5'] } });
    const res = await receive(t, ten.slug, hook.slug, { body: { a: 1 }, remoteAddress: '203.0.113.9', headers: { 'x-forwarded-for': '192.0.2.5', 'x-real-ip': '192.0.2.5' } });
    expectError(res, 401, 'UNAUTHORIZED');
    expect(await rowsOf(hook)).toEqual([]);
  });

  it('reads X-Forwarded-For behind a configured trusted proxy (PSA_TRUST_PROXY)', async () => {
    const proxied = await buildTestApp({ env: { ...ENV, PSA_TRUST_PROXY: 'true' } });
    try {
      const { tenant, slug, admin } = await makeTenant(proxied);
      const hook = await makeInbound(admin, { auth_type: 'ip_allowlist', auth_config: { allowed_ips: ['192.0.2.5'] } });
      expectStatus(await receive(proxied, slug, hook.slug, { body: { a: 1 }, remoteAddress: '10.0.0.1', headers: { 'x-forwarded-for': '192.0.2.5' } }), 202);
      expectError(await receive(proxied, slug, hook.slug, { body: { a: 1 }, remoteAddress: '10.0.0.1', headers: { 'x-forwarded-for': '192.0.2.6' } }), 401, 'UNAUTHORIZED');
      const [row] = await deliveryRows(proxied, tenant, hook.inbound_webhook_id);
      expect(row!.source_ip).toBe('192.0.2.5');
    } finally {
      await proxied.close();
    }
  });
});

describe('unknown slugs', () => {
  it('answers 404 for an unknown tenant or webhook and records nothing', async () => {
    const hook = await makeInbound(ten.admin);
    const other = await makeTenant(t);
    const body = signed(hook.secret!, { a: 1 });
    expectError(await receive(t, 'no-such-tenant', hook.slug, body), 404, 'NOT_FOUND');
    expectError(await receive(t, ten.slug, 'no-such-webhook', body), 404, 'NOT_FOUND');
    // Another tenant's slug pair does not reach this tenant's webhook.
    expectError(await receive(t, other.slug, hook.slug, body), 404, 'NOT_FOUND');
    expect(await rowsOf(hook)).toEqual([]);
    const n = await t.database.db.selectFrom('inbound_webhook_deliveries').select((eb) => eb.fn.countAll<number>().as('n')).where('tenant', '=', other.tenant).executeTakeFirstOrThrow();
    expect(Number(n.n)).toBe(0);
  });
});

describe('limits', () => {
  it('415 for bodies that are not JSON; +json types are JSON', async () => {
    const hook = await makeInbound(ten.admin);
    const body = signed(hook.secret!, { a: 1 });
    for (const contentType of ['text/plain', 'application/xml', 'application/x-www-form-urlencoded', 'application/json; charset=utf-16', null]) {
      expectError(await receive(t, ten.slug, hook.slug, { ...body, contentType }), 415, 'UNSUPPORTED_MEDIA_TYPE');
    }
    expectStatus(await receive(t, ten.slug, hook.slug, { ...body, contentType: 'application/vnd.events+json; charset=UTF-8' }), 202);
  });

  it('413 above the body limit (1 MiB by default, PSA_INBOUND_BODY_LIMIT_BYTES otherwise)', async () => {
    const hook = await makeInbound(ten.admin);
    const big = { data: 'x'.repeat(1024 * 1024) };
    expectError(await receive(t, ten.slug, hook.slug, signed(hook.secret!, big)), 413, 'PAYLOAD_TOO_LARGE');
    const small = await buildTestApp({ env: { ...ENV, PSA_INBOUND_BODY_LIMIT_BYTES: '2048' } });
    try {
      const { slug, admin } = await makeTenant(small);
      const h = await makeInbound(admin);
      expectError(await receive(small, slug, h.slug, signed(h.secret!, { data: 'x'.repeat(3000) })), 413, 'PAYLOAD_TOO_LARGE');
      expectStatus(await receive(small, slug, h.slug, signed(h.secret!, { data: 'x'.repeat(1000) })), 202);
      // The limit is the receiver's own: the API keeps its 1 MiB.
      expectStatus(await admin.post('/api/v1/clients', { client_name: 'x'.repeat(200), billing_cycle: 'monthly' }), 201);
    } finally {
      await small.close();
    }
    expect(await rowsOf(hook)).toEqual([]);
  });

  it('400 for an authenticated body that is not UTF-8 JSON or nests too deeply (recorded, body not kept)', async () => {
    const hook = await makeInbound(ten.admin);
    const sign = (payload: string | Buffer) => ({ 'x-webhook-signature': hmacHex(hook.secret!, payload) });
    const broken = '{"a": ';
    let res = await receive(t, ten.slug, hook.slug, { body: broken, headers: sign(broken) });
    expectError(res, 400, 'BAD_REQUEST');
    expect(res.json().error.details.delivery_id).toEqual(expect.any(String));
    const latin1 = Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xe9, 0x22, 0x7d]);
    res = await t.app.inject({ method: 'POST', url: `/api/inbound/${ten.slug}/${hook.slug}`, payload: latin1, headers: { 'content-type': 'application/json', ...sign(latin1) } });
    expectError(res, 400, 'BAD_REQUEST');
    const deep = '['.repeat(100) + ']'.repeat(100);
    expectError(await receive(t, ten.slug, hook.slug, { body: deep, headers: sign(deep) }), 400, 'BAD_REQUEST');
    expectError(await receive(t, ten.slug, hook.slug, { body: '', headers: sign('') }), 400, 'BAD_REQUEST');
    const rows = await rowsOf(hook);
    expect(rows.map((r) => [r.dispatch_status, r.response_status, r.request_body])).toEqual(Array(4).fill(['rejected', 400, null]));
    // Unauthenticated garbage is a 401 (authentication comes first), and is not recorded.
    expectError(await receive(t, ten.slug, hook.slug, { body: broken }), 401, 'UNAUTHORIZED');
    expect(await rowsOf(hook)).toHaveLength(4);
  });

  it('429 with Retry-After over the webhook\'s rate limit (recorded without the body)', async () => {
    const hook = await makeInbound(ten.admin, { rate_limit_per_minute: 2 });
    expectStatus(await receive(t, ten.slug, hook.slug, signed(hook.secret!, { n: 1 })), 202);
    expectStatus(await receive(t, ten.slug, hook.slug, signed(hook.secret!, { n: 2 })), 202);
    const res = await receive(t, ten.slug, hook.slug, signed(hook.secret!, { n: 3 }));
    expectError(res, 429, 'RATE_LIMITED');
    expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(res.json().error.details).toMatchObject({ delivery_id: expect.any(String), retry_after_ms: expect.any(Number) });
    const rows = await rowsOf(hook);
    expect(rows.map((r) => r.dispatch_status)).toEqual(['queued', 'queued', 'rate_limited']);
    expect(rows[2]).toMatchObject({ request_body: null, response_status: 429, delivery_id: res.json().error.details.delivery_id });
    // Another webhook has its own budget.
    const other = await makeInbound(ten.admin, { rate_limit_per_minute: 2 });
    expectStatus(await receive(t, ten.slug, other.slug, signed(other.secret!, { n: 1 })), 202);
  });

  it('429 with Retry-After once an address has spent its budget of refused requests; valid senders still get through', async () => {
    const limited = await buildTestApp({ env: { PSA_AUTH_FAILURE_BURST: '3', PSA_AUTH_FAILURE_PER_MINUTE: '1' } });
    try {
      const { slug, admin } = await makeTenant(limited);
      const hook = await makeInbound(admin);
      const from = '198.51.100.23';
      expectError(await receive(limited, slug, hook.slug, { body: { a: 1 }, remoteAddress: from }), 401, 'UNAUTHORIZED');
      expectError(await receive(limited, slug, 'unknown', { body: { a: 1 }, remoteAddress: from }), 404, 'NOT_FOUND');
      expectError(await receive(limited, slug, hook.slug, { body: { a: 1 }, remoteAddress: from }), 401, 'UNAUTHORIZED');
      const res = await receive(limited, slug, hook.slug, { body: { a: 1 }, remoteAddress: from });
      expectError(res, 429, 'RATE_LIMITED');
      expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expectError(await receive(limited, slug, 'unknown', { body: { a: 1 }, remoteAddress: from }), 429, 'RATE_LIMITED');
      expectStatus(await receive(limited, slug, hook.slug, { ...signed(hook.secret!, { a: 1 }), remoteAddress: from }), 202);
      // Another address has its own budget.
      expectError(await receive(limited, slug, hook.slug, { body: { a: 1 }, remoteAddress: '198.51.100.24' }), 401, 'UNAUTHORIZED');
    } finally {
      await limited.close();
    }
  });

  it('an inactive webhook answers 404 after authentication and keeps the body for a later replay', async () => {
    const hook = await makeInbound(ten.admin, { is_active: false });
    expectError(await receive(t, ten.slug, hook.slug, { body: { a: 1 } }), 401, 'UNAUTHORIZED');
    const res = await receive(t, ten.slug, hook.slug, signed(hook.secret!, { a: 1 }));
    expectError(res, 404, 'NOT_FOUND');
    const [row] = await rowsOf(hook);
    expect(row).toMatchObject({ dispatch_status: 'rejected', response_status: 404, request_body: '{"a":1}' });
  });
});

describe('the cached configuration', () => {
  // The receiver keeps each configuration it looked up; every one of these requests comes after one that
  // cached it, so each change must reach the very next request.
  const put = (hook: InboundJson, body: Record<string, unknown>) => ten.admin.put(`/api/v1/inbound-webhooks/${hook.inbound_webhook_id}`, body);

  it('a rotated secret, a deactivation, a new slug and a deletion apply to the next request', async () => {
    const hook = await makeInbound(ten.admin);
    expectStatus(await receive(t, ten.slug, hook.slug, signed(hook.secret!, { n: 1 })), 202);

    const rotated = await ten.admin.post(`/api/v1/inbound-webhooks/${hook.inbound_webhook_id}/rotate-secret`);
    expectStatus(rotated, 200);
    const secret = rotated.json().data.secret as string;
    expectError(await receive(t, ten.slug, hook.slug, signed(hook.secret!, { n: 2 })), 401, 'UNAUTHORIZED');
    expectStatus(await receive(t, ten.slug, hook.slug, signed(secret, { n: 3 })), 202);

    expectStatus(await put(hook, { is_active: false }), 200);
    expectError(await receive(t, ten.slug, hook.slug, signed(secret, { n: 4 })), 404, 'NOT_FOUND');
    expectStatus(await put(hook, { is_active: true }), 200);
    expectStatus(await receive(t, ten.slug, hook.slug, signed(secret, { n: 5 })), 202);

    const renamed = `${hook.slug}-renamed`;
    expectStatus(await put(hook, { slug: renamed }), 200);
    const gone = await receive(t, ten.slug, hook.slug, signed(secret, { n: 6 }));
    expectError(gone, 404, 'NOT_FOUND');
    expect(gone.json().error.message).toBe('No such inbound webhook');
    expectStatus(await receive(t, ten.slug, renamed, signed(secret, { n: 7 })), 202);

    expectStatus(await ten.admin.delete(`/api/v1/inbound-webhooks/${hook.inbound_webhook_id}`), 204);
    expectError(await receive(t, ten.slug, renamed, signed(secret, { n: 8 })), 404, 'NOT_FOUND');
  });

  it('a change notified by another process drops the cached configuration', async () => {
    const hook = await makeInbound(ten.admin);
    expectStatus(await receive(t, ten.slug, hook.slug, signed(hook.secret!, { n: 1 })), 202);
    // What another API process's write does: the row changes, and the notification follows its commit.
    await t.database.db.updateTable('inbound_webhooks').set({ is_active: false }).where('tenant', '=', ten.tenant).where('inbound_webhook_id', '=', hook.inbound_webhook_id).execute();
    await sql`select pg_notify('psa_inbound_webhooks_invalidate', '')`.execute(t.database.db);
    await expect.poll(async () => (await receive(t, ten.slug, hook.slug, signed(hook.secret!, { n: 2 }))).statusCode).toBe(404);
  });

  it('a capture armed after the configuration was cached takes the next body, and only that one', async () => {
    const hook = await makeInbound(ten.admin);
    expectStatus(await receive(t, ten.slug, hook.slug, signed(hook.secret!, { n: 1 })), 202);
    expectStatus(await ten.admin.post(`/api/v1/inbound-webhooks/${hook.inbound_webhook_id}/capture-sample`), 200);
    expectStatus(await receive(t, ten.slug, hook.slug, signed(hook.secret!, { n: 2 })), 202);
    expectStatus(await receive(t, ten.slug, hook.slug, signed(hook.secret!, { n: 3 })), 202);
    const got = (await ten.admin.get(`/api/v1/inbound-webhooks/${hook.inbound_webhook_id}`)).json().data as InboundJson;
    expect(got).toMatchObject({ sample_payload: { n: 2 }, sample_capture_pending: false });
  });
});

describe('idempotency', () => {
  it('by header: a repeated key inside the window is a no-op naming the original delivery', async () => {
    const hook = await makeInbound(ten.admin, { idempotency_source: { type: 'header', value: 'X-Event-Id' } });
    const send = (key: string | undefined, body: unknown) => {
      const s = signed(hook.secret!, body);
      return receive(t, ten.slug, hook.slug, { ...s, headers: { ...s.headers, ...(key ? { 'x-event-id': key } : {}) } });
    };
    const first = await send('evt-1', { n: 1 });
    expectStatus(first, 202);
    const original = first.json().delivery_id;
    const again = await send('evt-1', { n: 1, resent: true });
    expectStatus(again, 200);
    expect(again.json()).toEqual({ delivery_id: expect.any(String), status: 'duplicate', duplicate: true, original_delivery_id: original });
    expectStatus(await send('evt-2', { n: 2 }), 202);
    expectStatus(await send(undefined, { n: 3 }), 202);
    expectStatus(await send(undefined, { n: 3 }), 202);
    const rows = await rowsOf(hook);
    expect(rows.map((r) => [r.idempotency_key, r.dispatch_status])).toEqual([
      ['evt-1', 'queued'], ['evt-1', 'duplicate'], ['evt-2', 'queued'], [null, 'queued'], [null, 'queued'],
    ]);
    expect(rows[1]).toMatchObject({ duplicate_of_delivery_id: original, request_body: null, response_status: 200 });
  });

  it('by JSONata over the body; after the window the key starts afresh (the expired key is replaced)', async () => {
    const hook = await makeInbound(ten.admin, { idempotency_source: { type: 'jsonata', value: 'event.id & ":" & $lowercase(event.type)' }, idempotency_window_seconds: 60 });
    const send = (body: unknown) => receive(t, ten.slug, hook.slug, signed(hook.secret!, body));
    const first = await send({ event: { id: 9, type: 'Created' } });
    expectStatus(first, 202);
    expect((await send({ event: { id: 9, type: 'CREATED' }, extra: 1 })).json()).toMatchObject({ duplicate: true, original_delivery_id: first.json().delivery_id });
    expectStatus(await send({ event: { id: 9, type: 'updated' } }), 202);
    expectStatus(await send({ other: true }), 202);

    await t.database.db.updateTable('inbound_webhook_idempotency_keys').set({ expires_at: new Date(Date.now() - 1000) })
      .where('tenant', '=', ten.tenant).where('idempotency_key', '=', '9:created').execute();
    const later = await send({ event: { id: 9, type: 'created' } });
    expectStatus(later, 202);
    const key = await t.database.db.selectFrom('inbound_webhook_idempotency_keys').selectAll().where('tenant', '=', ten.tenant).where('idempotency_key', '=', '9:created').execute();
    expect(key).toHaveLength(1);
    expect(key[0]!.delivery_id).toBe(later.json().delivery_id);
    expect(key[0]!.expires_at.getTime()).toBeGreaterThan(Date.now() + 50_000);
    expect((await send({ event: { id: 9, type: 'created' } })).json()).toMatchObject({ duplicate: true, original_delivery_id: later.json().delivery_id });
  });

  it('a failed delivery does not hold its key: the retry is processed', async () => {
    const { admin } = ten;
    const hook = await makeInbound(admin, {
      idempotency_source: { type: 'header', value: 'x-event-id' },
      handler_type: 'direct_action',
      handler_config: { action: 'upsert_client_by_external_id', field_mapping: { external_id: 'id', client_name: 'name' } },
    });
    const send = (body: unknown) => {
      const s = signed(hook.secret!, body);
      return receive(t, ten.slug, hook.slug, { ...s, headers: { ...s.headers, 'x-event-id': 'k-1' } });
    };
    expectError(await send({ id: 'cust-9' }), 422, 'UNPROCESSABLE');
    const ok = await send({ id: 'cust-9', name: 'Retried Ltd' });
    expectStatus(ok, 200);
    expect(ok.json()).toMatchObject({ status: 'processed', result: { operation: 'created' } });
    expect((await send({ id: 'cust-9', name: 'Retried Ltd' })).json()).toMatchObject({ duplicate: true, original_delivery_id: ok.json().delivery_id });
  });

  it('20 concurrent duplicates dispatch once: one ticket, one ticket.created event', async () => {
    const { tenant, slug, admin } = await makeTenant(t);
    const client = await makeClient(admin);
    const hook = await makeInbound(admin, {
      idempotency_source: { type: 'header', value: 'x-event-id' },
      handler_type: 'direct_action',
      handler_config: { action: 'create_ticket', field_mapping: { title: 'subject', client_id: `"${client.client_id}"` } },
    });
    const s = signed(hook.secret!, { subject: 'Server down' });
    const responses = await Promise.all(Array.from({ length: 20 }, () => receive(t, slug, hook.slug, { ...s, headers: { ...s.headers, 'x-event-id': 'alert-42' } })));
    for (const r of responses) expectStatus(r, 200);
    const bodies = responses.map((r) => r.json());
    const processed = bodies.filter((b) => b.status === 'processed');
    expect(processed).toHaveLength(1);
    const duplicates = bodies.filter((b) => b.duplicate === true);
    expect(duplicates).toHaveLength(19);
    for (const d of duplicates) expect(d.original_delivery_id).toBe(processed[0].delivery_id);
    const tickets = await t.database.db.selectFrom('tickets').select('ticket_id').where('tenant', '=', tenant).execute();
    expect(tickets).toHaveLength(1);
    expect(await eventsOfType(t, tenant, 'ticket.created')).toHaveLength(1);
    const rows = await deliveryRows(t, tenant, hook.inbound_webhook_id);
    expect(rows.filter((r) => r.dispatch_status === 'processed')).toHaveLength(1);
    expect(rows.filter((r) => r.dispatch_status === 'duplicate')).toHaveLength(19);
  });
});

describe('secrets never reach the logs or the records', () => {
  it('keeps tokens, secrets and signatures out of log lines, delivery rows and API responses', async () => {
    const lines: string[] = [];
    const stream = new Writable({ write(chunk, _enc, done) { lines.push(String(chunk)); done(); } });
    const database = t.database;
    const app = await buildApp({
      config: loadConfig({ ...ENV, PSA_SECRET_KEY: TEST_SECRET_KEY }),
      database,
      logger: { level: 'trace', stream, serializers: logSerializers, redact: ['req.headers["x-api-key"]', 'req.headers.authorization', 'req.headers.cookie'] },
    });
    await app.ready();
    try {
      const logged = { app, database, close: async () => undefined };
      const { tenant, slug, admin: adminOnMain } = await makeTenant(t);
      const pathToken = 'query-secret-token-0123456789';
      const bearer = 'bearer-secret-token-0123456789';
      const byQuery = await makeInbound(adminOnMain, { auth_type: 'path_token', auth_config: { query_param: 'sig', secret: pathToken } });
      const byBearer = await makeInbound(adminOnMain, { auth_type: 'bearer', auth_config: { secret: bearer } });
      const byHmac = await makeInbound(adminOnMain);
      expectStatus(await receive(logged, slug, byQuery.slug, { body: { a: 1 }, query: `?sig=${pathToken}` }), 202);
      expectError(await receive(logged, slug, byQuery.slug, { body: { a: 1 }, query: `?sig=${pathToken}x` }), 401, 'UNAUTHORIZED');
      expectStatus(await receive(logged, slug, byBearer.slug, { body: { a: 1 }, headers: { authorization: `Bearer ${bearer}` } }), 202);
      expectError(await receive(logged, slug, byBearer.slug, { body: { a: 1 }, headers: { authorization: `Bearer ${bearer}x` } }), 401, 'UNAUTHORIZED');
      const s = signed(byHmac.secret!, { a: 1 });
      expectStatus(await receive(logged, slug, byHmac.slug, s), 202);
      const log = lines.join('');
      expect(log).toContain('inbound webhook request refused');
      expect(log).toContain('/api/inbound/');
      for (const secret of [pathToken, bearer, byHmac.secret!, s.headers!['x-webhook-signature']!.slice(7)]) expect(log).not.toContain(secret);

      const rows = await t.database.db.selectFrom('inbound_webhook_deliveries').selectAll().where('tenant', '=', tenant).execute();
      expect(rows).toHaveLength(3);
      const dump = JSON.stringify(rows);
      for (const secret of [pathToken, bearer, byHmac.secret!, s.headers!['x-webhook-signature']!]) expect(dump).not.toContain(secret);
      for (const hook of [byQuery, byBearer, byHmac]) {
        const list = await adminOnMain.get(`/api/v1/inbound-webhooks/${hook.inbound_webhook_id}/deliveries`);
        expect(list.body).not.toContain(pathToken);
        expect(list.body).not.toContain(bearer);
      }
    } finally {
      await app.close();
    }
  });
});

describe('workflow handler', () => {
  it('accepts with 202 and records the delivery as queued for the automation engine', async () => {
    const workflowId = '01890000-0000-7000-8000-0000000000aa';
    const hook = await makeInbound(ten.admin, { ...WORKFLOW, handler_config: { workflow_id: workflowId }, idempotency_source: { type: 'header', value: 'x-id' } });
    const s = signed(hook.secret!, { incident: 5 });
    const res = await receive(t, ten.slug, hook.slug, { ...s, headers: { ...s.headers, 'x-id': 'inc-5', 'x-custom': 'kept' } });
    expectStatus(res, 202);
    expect(res.json()).toEqual({ delivery_id: expect.any(String), status: 'accepted' });
    const [row] = await rowsOf(hook);
    expect(row).toMatchObject({ delivery_id: res.json().delivery_id, dispatch_status: 'queued', idempotency_key: 'inc-5', request_body: '{"incident":5}', auth_status: 'verified', handler_type: 'workflow' });
    // No automation rule names this webhook (or the workflow id): the hand-off starts no execution.
    expect(JSON.parse(row!.handler_outcome!)).toEqual({ handler: 'workflow', workflow_id: workflowId, queued: true, executions: [] });
    expect(JSON.parse(row!.request_headers)).toMatchObject({ 'x-custom': 'kept', 'x-id': 'inc-5' });
  });
});
