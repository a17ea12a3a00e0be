import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../app.ts';
import { loadConfig } from '../../config.ts';
import { createTestDatabase, TEST_SECRET_KEY, type TestApp } from '../../../test/harness.ts';
import { makeTenant } from '../../../test/factories.ts';
import { expectError } from '../../../test/client-factories.ts';
import { Dispatchers, Receiver, createWebhook, deliveriesOf, emitEvent, fanOut, ticketData } from '../../../test/webhooks-kit.ts';
import { OutboundClient, type LookupFn } from '../../platform/net/outbound-http.ts';

/**
 * Private targets are refused when a webhook is saved, at the test endpoint and at delivery. DNS is
 * injected: `dns` maps names to addresses and can change between save and send (rebinding).
 */
const PUBLIC = '93.184.215.14';
const dns = new Map<string, string>();
const lookup: LookupFn = async (host) => {
  const address = dns.get(host);
  if (!address) throw Object.assign(new Error(`no such host ${host}`), { code: 'ENOTFOUND' });
  return [{ address, family: address.includes(':') ? 6 : 4 }];
};

let t: TestApp;
let apiClient: OutboundClient;
let receiver: Receiver;
let dispatchers: Dispatchers;

beforeAll(async () => {
  const database = await createTestDatabase();
  // The API's client: no private range allowed, names resolved through `dns`.
  apiClient = new OutboundClient({ lookup });
  const config = loadConfig({ PSA_RATE_LIMIT_BURST: '100000', PSA_RATE_LIMIT_PER_MINUTE: '100000', PSA_SECRET_KEY: TEST_SECRET_KEY });
  const app = await buildApp({ config, database, logger: false, webhookClient: apiClient });
  await app.ready();
  t = {
    app,
    database,
    async close() {
      await app.close();
      await apiClient.close();
      await database.close();
    },
  };
});
afterAll(async () => t.close());

afterEach(async () => {
  dns.clear();
  await dispatchers?.close();
  await receiver?.close();
  await t.database.db.deleteFrom('webhooks').execute();
});

async function setup() {
  receiver = await new Receiver().listen();
  dispatchers = new Dispatchers(t);
  return makeTenant(t);
}

/** Stores a URL directly (as if saved under an earlier allowlist), bypassing the API's check. */
async function forceUrl(tenant: string, webhookId: string, url: string) {
  await t.database.db.updateTable('webhooks').set({ url }).where('tenant', '=', tenant).where('webhook_id', '=', webhookId).execute();
}

describe('at save time (POST and PUT)', () => {
  it('refuses private, local and special addresses, their IPv4-mapped forms, localhost and URL credentials (422 unsafe_target)', async () => {
    const { admin } = await setup();
    const hook = await createWebhook(admin, { url: `https://${PUBLIC}/hook` });
    for (const url of [
      'http://127.0.0.1/hook',
      'http://127.1.2.3:8080/hook',
      'http://10.0.0.5/hook',
      'http://172.16.4.4/hook',
      'http://192.168.1.1/hook',
      'http://169.254.169.254/latest/meta-data',
      'http://100.64.0.1/hook',
      'http://0.0.0.0/hook',
      'http://224.0.0.1/hook',
      'http://[::1]/hook',
      'http://[::ffff:127.0.0.1]/hook',
      'http://[::ffff:a00:1]/hook',
      'http://[fd12:3456::1]/hook',
      'http://[fe80::1]/hook',
      'http://localhost:3000/hook',
      'http://api.localhost/hook',
      `http://user:password@${PUBLIC}/hook`,
    ]) {
      const created = await admin.post('/api/v1/webhooks', { name: 'x', url, event_types: ['ticket.created'] });
      expectError(created, 422, 'UNPROCESSABLE');
      expect(created.json().error.details, url).toEqual({ reason: 'unsafe_target' });
      const updated = await admin.put(`/api/v1/webhooks/${hook.webhook_id}`, { url });
      expectError(updated, 422, 'UNPROCESSABLE');
    }
    expect((await admin.get(`/api/v1/webhooks/${hook.webhook_id}`)).json().data.url).toBe(`https://${PUBLIC}/hook`);
  });

  it('refuses a hostname that resolves to a private address, or to nothing; accepts one that resolves to a public address', async () => {
    const { admin } = await setup();
    dns.set('internal.example', '127.0.0.1');
    dns.set('mapped.example', '::ffff:192.168.0.10');
    dns.set('public.example', PUBLIC);
    for (const host of ['internal.example', 'mapped.example', 'nowhere.example']) {
      const res = await admin.post('/api/v1/webhooks', { name: 'x', url: `https://${host}/hook`, event_types: ['ticket.created'] });
      expectError(res, 422, 'UNPROCESSABLE');
      expect(res.json().error.details.reason).toBe('unsafe_target');
    }
    expect((await admin.post('/api/v1/webhooks', { name: 'x', url: 'https://public.example/hook', event_types: ['ticket.created'] })).statusCode).toBe(201);
  });
});

describe('at the test endpoint', () => {
  it('422 when the name now resolves to a private address (rebinding); the attempt is recorded as a failed test delivery; nothing is sent', async () => {
    const { admin, tenant } = await setup();
    dns.set('rebind.example', PUBLIC);
    const hook = await createWebhook(admin, { url: `http://rebind.example:${receiver.port}/hook` });
    dns.set('rebind.example', '127.0.0.1');
    const res = await admin.post(`/api/v1/webhooks/${hook.webhook_id}/test`);
    expectError(res, 422, 'UNPROCESSABLE');
    expect(res.json().error.details).toMatchObject({ reason: 'unsafe_target', delivery_id: expect.any(String) });
    const [row] = await deliveriesOf(t, tenant, hook.webhook_id);
    expect(row).toMatchObject({ delivery_id: res.json().error.details.delivery_id, is_test: true, status: 'failed', error: expect.stringContaining('127.0.0.1') });
    await forceUrl(tenant, hook.webhook_id, `http://[::ffff:127.0.0.1]:${receiver.port}/hook`);
    expectError(await admin.post(`/api/v1/webhooks/${hook.webhook_id}/test`), 422, 'UNPROCESSABLE');
    expect(receiver.receipts).toEqual([]);
  });

  it('a redirect to a private address is not followed: success false, the target receives nothing', async () => {
    const target = await new Receiver().listen();
    try {
      const { admin } = await setup();
      const lenient = new OutboundClient({ allowPrivate: ['127.0.0.1/32'] });
      // The receiver stands in for a public host (allowlisted for this app); it redirects inward.
      receiver.reply = () => ({ status: 302, headers: { location: target.url } });
      const database = t.database;
      const config = loadConfig({ PSA_RATE_LIMIT_BURST: '100000', PSA_RATE_LIMIT_PER_MINUTE: '100000', PSA_SECRET_KEY: TEST_SECRET_KEY });
      const app = await buildApp({ config, database, logger: false, webhookClient: lenient });
      await app.ready();
      try {
        const key = admin.key;
        const created = await app.inject({ method: 'POST', url: '/api/v1/webhooks', headers: { 'x-api-key': key }, payload: { name: 'r', url: receiver.url, event_types: ['ticket.created'] } });
        expect(created.statusCode, created.body).toBe(201);
        const res = await app.inject({ method: 'POST', url: `/api/v1/webhooks/${created.json().data.webhook_id}/test`, headers: { 'x-api-key': key } });
        expect(res.statusCode).toBe(200);
        expect(res.json().data).toMatchObject({ success: false, response_status: 302, error: expect.stringContaining('redirects are not followed') });
      } finally {
        await app.close();
        await lenient.close();
      }
      expect(receiver.receipts).toHaveLength(1);
      expect(target.receipts).toEqual([]);
    } finally {
      await target.close();
    }
  });
});

describe('at delivery', () => {
  it('an unsafe target fails the attempt for good (failed, not retried, nothing sent); after a fix, a manual retry delivers it', async () => {
    const { admin, tenant } = await setup();
    dns.set('rebind.example', PUBLIC);
    const rebound = await createWebhook(admin, { url: `http://rebind.example:${receiver.port}/hook` });
    const literal = await createWebhook(admin, { url: `https://${PUBLIC}/hook` });
    const mapped = await createWebhook(admin, { url: `https://${PUBLIC}/hook` });
    await forceUrl(tenant, literal.webhook_id, `http://127.0.0.1:${receiver.port}/hook`);
    await forceUrl(tenant, mapped.webhook_id, `http://[::ffff:127.0.0.1]:${receiver.port}/hook`);
    dns.set('rebind.example', '127.0.0.1');
    await emitEvent(t, tenant, 'ticket.updated', { data: ticketData() });
    await fanOut(t);
    // The dispatcher's client allows no private range, and resolves through the same (rebound) DNS.
    const d = dispatchers.make({ lookup, allowPrivate: [] });
    expect(await d.runOnce()).toBe(3);
    for (const hook of [rebound, literal, mapped]) {
      const rows = await deliveriesOf(t, tenant, hook.webhook_id);
      expect(rows, hook.url).toHaveLength(1);
      expect(rows[0]).toMatchObject({ status: 'failed', attempt: 1, next_attempt_at: null, response_status: null, error: expect.stringMatching(/^unsafe target: /) });
    }
    expect(receiver.receipts).toEqual([]);
    expect(await d.runOnce()).toBe(0);

    // The URL fixed (here: the private range allowlisted for a local receiver), the failed delivery is retried by hand.
    const [failed] = await deliveriesOf(t, tenant, literal.webhook_id);
    const retried = await admin.post(`/api/v1/webhooks/${literal.webhook_id}/deliveries/${failed!.delivery_id}/retry`);
    expect(retried.statusCode, retried.body).toBe(202);
    expect(await dispatchers.make({ allowPrivate: ['127.0.0.1/32'] }).runOnce()).toBe(1);
    expect(receiver.receipts).toHaveLength(1);
    expect(receiver.receipts[0]!.headers['x-service-delivery-id']).toBe(retried.json().data.delivery_id);
  });

  it('a redirect to a private address is a failure (retried later), never followed', async () => {
    const target = await new Receiver().listen();
    try {
      const { admin, tenant } = await setup();
      receiver.reply = () => ({ status: 307, headers: { location: target.url } });
      const hook = await createWebhook(admin, { url: `https://${PUBLIC}/hook` });
      await forceUrl(tenant, hook.webhook_id, receiver.url);
      await emitEvent(t, tenant, 'ticket.updated', { data: ticketData() });
      await fanOut(t);
      await dispatchers.make({ allowPrivate: [`127.0.0.1/32`] }).runOnce();
      expect(receiver.receipts).toHaveLength(1);
      expect(target.receipts).toEqual([]);
      expect(await deliveriesOf(t, tenant, hook.webhook_id)).toMatchObject([
        { status: 'retrying', response_status: 307, error: expect.stringContaining('redirects are not followed') },
        { status: 'pending', attempt: 2 },
      ]);
    } finally {
      await target.close();
    }
  });
});
