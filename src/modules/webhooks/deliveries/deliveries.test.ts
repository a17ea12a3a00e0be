import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/harness.ts';
import { makeTenant, makeUser, type Api } from '../../../../test/factories.ts';
import { anonymous, expectError, randomId } from '../../../../test/client-factories.ts';
import {
  Dispatchers,
  Receiver,
  TestClock,
  createWebhook,
  deliveriesOf,
  drain,
  emitEvent,
  fanOut,
  ticketData,
  verifySignature,
  webhookRow,
} from '../../../../test/webhooks-kit.ts';
import { RETRY_DELAYS_MS } from '../index.ts';

let t: TestApp;
let receiver: Receiver;
let dispatchers: Dispatchers;

beforeAll(async () => {
  t = await buildTestApp({ env: { PSA_WEBHOOK_ALLOW_PRIVATE: '127.0.0.1/32' } });
});
afterAll(async () => t.close());

async function setup() {
  receiver = await new Receiver().listen();
  dispatchers = new Dispatchers(t);
  return { ...(await makeTenant(t)), clock: new TestClock() };
}

afterEach(async () => {
  await dispatchers?.close();
  await receiver?.close();
  await t.database.db.deleteFrom('webhooks').execute();
});

interface DeliveryJson {
  delivery_id: string;
  webhook_id: string;
  event_id: string;
  event_type: string;
  attempt: number;
  status: string;
  request_body: string;
  response_status: number | null;
  response_body: string | null;
  duration_ms: number | null;
  error: string | null;
  is_test: boolean;
  attempted_at: string | null;
  next_attempt_at: string | null;
  created_at: string;
}

/** Runs one event through all six attempts against a failing receiver; returns the abandoned attempt's id. */
async function abandonOne(tenant: string, clock: TestClock): Promise<string> {
  const d = dispatchers.make({ now: clock.now });
  await emitEvent(t, tenant, 'ticket.updated', { data: ticketData() });
  await fanOut(t, clock.now);
  await d.runOnce();
  for (const delay of RETRY_DELAYS_MS) {
    clock.advance(delay);
    await d.runOnce();
  }
  const abandoned = await t.database.db.selectFrom('webhook_deliveries').select('delivery_id').where('tenant', '=', tenant).where('status', '=', 'abandoned').orderBy('created_at', 'desc').executeTakeFirstOrThrow();
  return abandoned.delivery_id;
}

describe('POST /api/v1/webhooks/{id}/test', () => {
  it('sends a signed webhook.test envelope now and records it as a test delivery; health and rate limit are untouched', async () => {
    const { admin, tenant } = await setup();
    const hook = await createWebhook(admin, { url: receiver.url, rate_limit_per_minute: 1, custom_headers: { 'X-Key': 'k' } });
    const res = await admin.post(`/api/v1/webhooks/${hook.webhook_id}/test`);
    expect(res.statusCode, res.body).toBe(200);
    const outcome = res.json().data;
    expect(outcome).toEqual({ delivery_id: expect.any(String), event_id: expect.any(String), success: true, response_status: 200, response_body: 'ok', duration_ms: expect.any(Number), error: null });
    const [r] = receiver.receipts;
    expect(verifySignature(hook.secret, r!.headers['x-service-signature'], r!.body)).toBe(true);
    expect(r!.headers).toMatchObject({
      'x-service-event-type': 'webhook.test',
      'x-service-event-id': outcome.event_id,
      'x-service-delivery-id': outcome.delivery_id,
      'x-service-delivery-attempt': '1',
      'x-service-webhook-id': hook.webhook_id,
      'x-key': 'k',
    });
    const envelope = JSON.parse(r!.body);
    expect(Object.keys(envelope)).toEqual(['event_id', 'event_type', 'occurred_at', 'tenant_id', 'data']);
    expect(envelope).toMatchObject({ event_id: outcome.event_id, event_type: 'webhook.test', tenant_id: tenant, data: { webhook_id: hook.webhook_id, webhook_name: hook.name, is_test: true } });
    const [row] = await deliveriesOf(t, tenant, hook.webhook_id);
    expect(row).toMatchObject({ delivery_id: outcome.delivery_id, is_test: true, status: 'delivered', attempt: 1, next_attempt_at: null, request_body: r!.body });
    // No rate limit (1/min here), no health change.
    expect((await admin.post(`/api/v1/webhooks/${hook.webhook_id}/test`)).json().data.success).toBe(true);
    expect((await admin.post(`/api/v1/webhooks/${hook.webhook_id}/test`)).json().data.success).toBe(true);
    expect(receiver.receipts).toHaveLength(3);
    const webhook = await webhookRow(t, tenant, hook.webhook_id);
    expect(webhook).toMatchObject({ last_success_at: null, last_failure_at: null, failing_since: null });
  });

  it('a failing receiver: 200 with success false; recorded as failed, never retried, not counted toward auto-disable', async () => {
    const { admin, tenant } = await setup();
    receiver.reply = () => ({ status: 500, body: 'boom' });
    const hook = await createWebhook(admin, { url: receiver.url, is_active: false });
    const res = await admin.post(`/api/v1/webhooks/${hook.webhook_id}/test`);
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ success: false, response_status: 500, response_body: 'boom', error: expect.stringContaining('HTTP 500') });
    expect(await deliveriesOf(t, tenant, hook.webhook_id)).toMatchObject([{ status: 'failed', is_test: true, next_attempt_at: null }]);
    expect(await webhookRow(t, tenant, hook.webhook_id)).toMatchObject({ failing_since: null, last_failure_at: null, is_active: false });
  });

  it('404 for an unknown or foreign webhook; 403 without webhook:update; 401 without a key', async () => {
    const { admin, tenant } = await setup();
    const other = await makeTenant(t);
    const hook = await createWebhook(admin, { url: receiver.url });
    expectError(await admin.post(`/api/v1/webhooks/${randomId()}/test`), 404, 'NOT_FOUND');
    expectError(await other.admin.post(`/api/v1/webhooks/${hook.webhook_id}/test`), 404, 'NOT_FOUND');
    const viewer = await makeUser(t, tenant, { role: 'Viewer' });
    expectError(await viewer.api.post(`/api/v1/webhooks/${hook.webhook_id}/test`), 403, 'FORBIDDEN');
    expectError(await anonymous(t).post(`/api/v1/webhooks/${hook.webhook_id}/test`), 401, 'UNAUTHORIZED');
    expectError(await admin.post('/api/v1/webhooks/not-an-id/test'), 400, 'VALIDATION_ERROR');
    expect(receiver.receipts).toEqual([]);
  });
});

describe('GET /api/v1/webhooks/{id}/deliveries', () => {
  it('lists attempts newest first with filters (status, event_type, is_test, from, to) and pagination', async () => {
    const { admin, tenant } = await setup();
    receiver.reply = (_r, n) => (n === 1 ? { status: 500 } : { status: 200 });
    const hook = await createWebhook(admin, { url: receiver.url, event_types: ['ticket.updated', 'ticket.created'] });
    const d = dispatchers.make();
    await emitEvent(t, tenant, 'ticket.updated', { data: ticketData() });
    await fanOut(t);
    await drain(d);
    await emitEvent(t, tenant, 'ticket.created', { data: ticketData() });
    await fanOut(t);
    await drain(d);
    await admin.post(`/api/v1/webhooks/${hook.webhook_id}/test`);
    const url = `/api/v1/webhooks/${hook.webhook_id}/deliveries`;

    const all = await admin.get(url);
    expect(all.statusCode, all.body).toBe(200);
    const list = all.json().data as DeliveryJson[];
    expect(list.map((x) => [x.event_type, x.status])).toEqual([
      ['webhook.test', 'delivered'],
      ['ticket.created', 'delivered'],
      ['ticket.updated', 'pending'],
      ['ticket.updated', 'retrying'],
    ]);
    expect(all.json().pagination).toMatchObject({ total: 4, page: 1 });
    expect(Object.keys(list[0]!).sort()).toEqual(['attempt', 'attempted_at', 'created_at', 'delivery_id', 'duration_ms', 'error', 'event_id', 'event_type', 'is_test', 'next_attempt_at', 'request_body', 'response_body', 'response_status', 'status', 'webhook_id']);
    const retrying = list[3]!;
    expect(retrying).toMatchObject({ attempt: 1, response_status: 500 });
    const wait = Date.parse(retrying.next_attempt_at!) - Date.parse(retrying.attempted_at!);
    expect(wait).toBeGreaterThanOrEqual(60_000);
    expect(wait).toBeLessThan(65_000);
    expect(list[2]).toMatchObject({ attempt: 2, attempted_at: null, next_attempt_at: retrying.next_attempt_at, event_id: retrying.event_id });

    const ids = (q: string) => admin.get(`${url}?${q}`).then((r) => (r.json().data as DeliveryJson[]).map((x) => x.delivery_id));
    expect(await ids('status=retrying')).toEqual([retrying.delivery_id]);
    expect(await ids('event_type=ticket.created')).toEqual([list[1]!.delivery_id]);
    expect(await ids('is_test=true')).toEqual([list[0]!.delivery_id]);
    expect(await ids('is_test=false&order=asc')).toEqual([list[3]!.delivery_id, list[2]!.delivery_id, list[1]!.delivery_id]);
    expect(await ids(`from=${encodeURIComponent(list[1]!.created_at)}&is_test=false`)).toEqual([list[1]!.delivery_id]);
    expect(await ids(`to=${encodeURIComponent(list[1]!.created_at)}&status=retrying`)).toEqual([retrying.delivery_id]);
    expect(await ids(`to=${encodeURIComponent(list[3]!.created_at)}`)).toEqual([]);
    const page = await admin.get(`${url}?limit=3&page=2`);
    expect(page.json().data.map((x: DeliveryJson) => x.delivery_id)).toEqual([retrying.delivery_id]);
    expect(page.json().pagination).toMatchObject({ total: 4, totalPages: 2, hasPrev: true, hasNext: false });
    for (const q of ['status=bogus', 'from=yesterday', 'is_test=maybe', 'limit=0', 'sort=status', 'color=red']) expectError(await admin.get(`${url}?${q}`), 400, 'VALIDATION_ERROR');
  });

  it('get one attempt; 404 for unknown, another webhook’s and another tenant’s; 403 without webhook:read', async () => {
    const { admin, tenant } = await setup();
    const other = await makeTenant(t);
    const hook = await createWebhook(admin, { url: receiver.url });
    const sibling = await createWebhook(admin, { url: receiver.url });
    const { delivery_id } = (await admin.post(`/api/v1/webhooks/${hook.webhook_id}/test`)).json().data;
    const url = `/api/v1/webhooks/${hook.webhook_id}/deliveries/${delivery_id}`;
    const res = await admin.get(url);
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ delivery_id, webhook_id: hook.webhook_id, is_test: true, status: 'delivered' });
    expect(res.headers.etag).toBeDefined();
    expectError(await admin.get(`/api/v1/webhooks/${hook.webhook_id}/deliveries/${randomId()}`), 404, 'NOT_FOUND');
    expectError(await admin.get(`/api/v1/webhooks/${sibling.webhook_id}/deliveries/${delivery_id}`), 404, 'NOT_FOUND');
    expectError(await other.admin.get(url), 404, 'NOT_FOUND');
    expectError(await other.admin.get(`/api/v1/webhooks/${hook.webhook_id}/deliveries`), 404, 'NOT_FOUND');
    const tech = await makeUser(t, tenant, { role: 'Technician' });
    expectError(await tech.api.get(url), 403, 'FORBIDDEN');
    expectError(await anonymous(t).get(url), 401, 'UNAUTHORIZED');
  });
});

describe('POST /api/v1/webhooks/{id}/deliveries/{deliveryId}/retry', () => {
  async function retry(api: Api, webhookId: string, deliveryId: string) {
    return api.post(`/api/v1/webhooks/${webhookId}/deliveries/${deliveryId}/retry`);
  }

  it('queues a fresh cycle for an abandoned delivery: same envelope and event_id, sent by the dispatcher', async () => {
    const { admin, tenant, clock } = await setup();
    receiver.reply = (_r, n) => (n <= 6 ? { status: 500 } : { status: 200 });
    const hook = await createWebhook(admin, { url: receiver.url });
    const abandoned = await abandonOne(tenant, clock);
    const before = (await admin.get(`/api/v1/webhooks/${hook.webhook_id}/deliveries/${abandoned}`)).json().data as DeliveryJson;
    const res = await retry(admin, hook.webhook_id, abandoned);
    expect(res.statusCode, res.body).toBe(202);
    const queued = res.json().data as DeliveryJson;
    expect(queued).toMatchObject({ status: 'pending', attempt: 1, event_id: before.event_id, event_type: 'ticket.updated', request_body: before.request_body, is_test: false, attempted_at: null });
    expect(res.headers.location).toBe(`/api/v1/webhooks/${hook.webhook_id}/deliveries/${queued.delivery_id}`);

    const again = await retry(admin, hook.webhook_id, abandoned);
    expectError(again, 409, 'CONFLICT');
    expect(again.json().error.details).toMatchObject({ reason: 'in_flight' });

    clock.ms = Date.now();
    await dispatchers.make({ now: clock.now }).runOnce();
    const last = receiver.receipts.at(-1)!;
    expect(last.headers).toMatchObject({ 'x-service-delivery-id': queued.delivery_id, 'x-service-event-id': before.event_id, 'x-service-delivery-attempt': '1' });
    expect(last.body).toBe(before.request_body);
    expect(verifySignature(hook.secret, last.headers['x-service-signature'], last.body)).toBe(true);
    expect((await admin.get(`/api/v1/webhooks/${hook.webhook_id}/deliveries/${queued.delivery_id}`)).json().data.status).toBe('delivered');
    expect((await deliveriesOf(t, tenant, hook.webhook_id)).filter((d) => d.status === 'abandoned')).toHaveLength(1);
  });

  it('409 for a delivered, retrying or test delivery; 404 unknown or foreign; 403 without webhook:update', async () => {
    const { admin, tenant, clock } = await setup();
    const other = await makeTenant(t);
    receiver.reply = (_r, n) => (n === 1 ? { status: 500 } : { status: 200 });
    const hook = await createWebhook(admin, { url: receiver.url });
    await emitEvent(t, tenant, 'ticket.updated', { data: ticketData() });
    await fanOut(t, clock.now);
    const d = dispatchers.make({ now: clock.now });
    await d.runOnce();
    clock.advance(60_000);
    await d.runOnce();
    const [retrying, delivered] = await deliveriesOf(t, tenant, hook.webhook_id);
    expect([retrying!.status, delivered!.status]).toEqual(['retrying', 'delivered']);
    const test = (await admin.post(`/api/v1/webhooks/${hook.webhook_id}/test`)).json().data.delivery_id as string;
    for (const [id, reason] of [[retrying!.delivery_id, 'not_final'], [delivered!.delivery_id, 'not_final'], [test, 'test_delivery']] as const) {
      const res = await retry(admin, hook.webhook_id, id);
      expectError(res, 409, 'CONFLICT');
      expect(res.json().error.details.reason).toBe(reason);
    }
    expectError(await retry(admin, hook.webhook_id, randomId()), 404, 'NOT_FOUND');
    expectError(await retry(admin, randomId(), delivered!.delivery_id), 404, 'NOT_FOUND');
    expectError(await retry(other.admin, hook.webhook_id, delivered!.delivery_id), 404, 'NOT_FOUND');
    const viewer = await makeUser(t, tenant, { role: 'Viewer' });
    expectError(await retry(viewer.api, hook.webhook_id, delivered!.delivery_id), 403, 'FORBIDDEN');
    expectError(await retry(anonymous(t), hook.webhook_id, delivered!.delivery_id), 401, 'UNAUTHORIZED');
  });

  it('a retry for an inactive webhook waits (parked) until it is re-enabled', async () => {
    const { admin, tenant, clock } = await setup();
    receiver.reply = () => ({ status: 500 });
    const hook = await createWebhook(admin, { url: receiver.url });
    const abandoned = await abandonOne(tenant, clock);
    await admin.put(`/api/v1/webhooks/${hook.webhook_id}`, { is_active: false });
    const res = await retry(admin, hook.webhook_id, abandoned);
    expect(res.statusCode).toBe(202);
    const row = (await deliveriesOf(t, tenant, hook.webhook_id)).find((d) => d.delivery_id === res.json().data.delivery_id)!;
    expect(row).toMatchObject({ status: 'pending', paused: true, cycle: 2 });
    const sent = receiver.receipts.length;
    clock.ms = Date.now();
    expect(await dispatchers.make({ now: clock.now }).runOnce()).toBe(0);
    expect(receiver.receipts).toHaveLength(sent);
  });
});
