import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/harness.ts';
import { makeTenant, makeUser } from '../../../../test/factories.ts';
import { anonymous, eventsOf, expectError, expectStatus, randomId } from '../../../../test/client-factories.ts';
import { deliveryRows, makeInbound, receive, signed, type InboundJson } from '../../../../test/inbound-factories.ts';
import { purgeInboundWebhookData } from '../index.ts';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => { await t.close(); });

const URL = '/api/v1/inbound-webhooks';
const upsertClient = (mapping: Record<string, string> = { external_id: 'id', client_name: 'name' }) => ({
  handler_type: 'direct_action',
  handler_config: { action: 'upsert_client_by_external_id', field_mapping: mapping },
});

describe('GET /api/v1/inbound-webhooks/{id}/deliveries', () => {
  it('lists delivery records newest first, without bodies; filters and paginates', async () => {
    const { slug, admin } = await makeTenant(t);
    const hook = await makeInbound(admin, { ...upsertClient(), idempotency_source: { type: 'header', value: 'x-id' } });
    const s1 = signed(hook.secret!, { id: 'a', name: 'Alpha' });
    const ok = await receive(t, slug, hook.slug, { ...s1, headers: { ...s1.headers, 'x-id': 'k1', 'user-agent': 'crm/1' } });
    const dup = await receive(t, slug, hook.slug, { ...s1, headers: { ...s1.headers, 'x-id': 'k1' } });
    const failed = await receive(t, slug, hook.slug, signed(hook.secret!, { id: 'b' }));
    const test = await admin.post(`${URL}/${hook.inbound_webhook_id}/test`, { body: { id: 'c', name: 'Gamma' } });
    expectStatus(test, 201);

    const res = await admin.get(`${URL}/${hook.inbound_webhook_id}/deliveries`);
    expectStatus(res, 200);
    const data = res.json().data;
    expect(data.map((d: { delivery_id: string }) => d.delivery_id)).toEqual([test.json().data.delivery_id, failed.json().error.details.delivery_id, dup.json().delivery_id, ok.json().delivery_id]);
    expect(res.json().pagination).toMatchObject({ total: 4, page: 1 });
    expect(data[0]).not.toHaveProperty('request_body');
    expect(data[3]).toMatchObject({
      inbound_webhook_id: hook.inbound_webhook_id,
      request_method: 'POST',
      request_path: `/api/inbound/${slug}/${hook.slug}`,
      request_body_bytes: s1.body!.toString().length,
      has_request_body: true,
      source_ip: '127.0.0.1',
      user_agent: 'crm/1',
      idempotency_key: 'k1',
      auth_status: 'verified',
      dispatch_status: 'processed',
      handler_type: 'direct_action',
      handler_outcome: { action: 'upsert_client_by_external_id', operation: 'created' },
      response_status: 200,
      response_body: ok.json(),
      duration_ms: expect.any(Number),
      is_test: false,
      is_replay: false,
    });
    expect(data[3].request_headers).not.toHaveProperty('x-webhook-signature');
    expect(data[2]).toMatchObject({ dispatch_status: 'duplicate', duplicate_of_delivery_id: ok.json().delivery_id, has_request_body: false });
    expect(data[1]).toMatchObject({ dispatch_status: 'failed', response_status: 422, handler_outcome: { code: 'UNPROCESSABLE', details: { reason: 'missing_field' } } });
    expect(data[0]).toMatchObject({ is_test: true, auth_status: 'internal', dispatch_status: 'processed' });

    const only = async (q: string) => (await admin.get(`${URL}/${hook.inbound_webhook_id}/deliveries?${q}`)).json().data.map((d: { dispatch_status: string }) => d.dispatch_status);
    expect(await only('dispatch_status=failed')).toEqual(['failed']);
    expect(await only('is_test=true')).toEqual(['processed']);
    expect(await only('is_test=false&auth_status=verified')).toEqual(['failed', 'duplicate', 'processed']);
    expect(await only('auth_status=internal')).toEqual(['processed']);
    expect(await only(`from=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`)).toEqual([]);
    expect(await only(`to=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}&limit=2&page=2&order=asc`)).toEqual(['failed', 'processed']);
    expectError(await admin.get(`${URL}/${hook.inbound_webhook_id}/deliveries?dispatch_status=lost`), 400, 'VALIDATION_ERROR');
    expectError(await admin.get(`${URL}/${hook.inbound_webhook_id}/deliveries?from=yesterday`), 400, 'VALIDATION_ERROR');
  });

  it('gets one delivery with its body; 404 for another webhook\'s or tenant\'s delivery; 401/403', async () => {
    const { tenant, slug, admin } = await makeTenant(t);
    const other = await makeTenant(t);
    const hook = await makeInbound(admin);
    const second = await makeInbound(admin);
    const res = await receive(t, slug, hook.slug, signed(hook.secret!, { payload: [1, 2, { deep: true }] }));
    const id = res.json().delivery_id;
    const get = await admin.get(`${URL}/${hook.inbound_webhook_id}/deliveries/${id}`);
    expectStatus(get, 200);
    expect(get.json().data).toMatchObject({ delivery_id: id, request_body: { payload: [1, 2, { deep: true }] }, dispatch_status: 'queued', response_status: 202 });
    expect(get.headers.etag).toBeDefined();
    expectError(await admin.get(`${URL}/${second.inbound_webhook_id}/deliveries/${id}`), 404, 'NOT_FOUND');
    expectError(await admin.get(`${URL}/${hook.inbound_webhook_id}/deliveries/${randomId()}`), 404, 'NOT_FOUND');
    expectError(await other.admin.get(`${URL}/${hook.inbound_webhook_id}/deliveries/${id}`), 404, 'NOT_FOUND');
    expectError(await other.admin.get(`${URL}/${hook.inbound_webhook_id}/deliveries`), 404, 'NOT_FOUND');
    expectError(await anonymous(t).get(`${URL}/${hook.inbound_webhook_id}/deliveries`), 401, 'UNAUTHORIZED');
    const tech = await makeUser(t, tenant, { role: 'Technician' });
    expectError(await tech.api.get(`${URL}/${hook.inbound_webhook_id}/deliveries/${id}`), 403, 'FORBIDDEN');
  });
});

describe('POST /api/v1/inbound-webhooks/{id}/deliveries/{deliveryId}/replay', () => {
  it('re-runs the stored body against the current configuration as a new delivery marked as a replay', async () => {
    const { tenant, slug, admin } = await makeTenant(t);
    const hook = await makeInbound(admin, upsertClient({ external_id: 'id', client_name: 'name' }));
    const failed = await receive(t, slug, hook.slug, signed(hook.secret!, { id: 'r-1', company: 'Replayed Inc' }));
    expectError(failed, 422, 'UNPROCESSABLE');
    const originalId = failed.json().error.details.delivery_id;
    // Fix the mapping, then replay the stored request.
    expectStatus(await admin.put(`${URL}/${hook.inbound_webhook_id}`, upsertClient({ external_id: 'id', client_name: 'company' })), 200);
    const res = await admin.post(`${URL}/${hook.inbound_webhook_id}/deliveries/${originalId}/replay`);
    expectStatus(res, 201);
    const replay = res.json().data;
    expect(res.headers.location).toBe(`${URL}/${hook.inbound_webhook_id}/deliveries/${replay.delivery_id}`);
    expect(replay).toMatchObject({
      is_replay: true,
      replayed_from_delivery_id: originalId,
      auth_status: 'internal',
      dispatch_status: 'processed',
      response_status: 200,
      request_body: { id: 'r-1', company: 'Replayed Inc' },
      handler_outcome: { operation: 'created', external_id: 'r-1' },
      triggered_by_user_id: expect.any(String),
    });
    expect((await eventsOf(t, tenant, replay.handler_outcome.entity_id)).map((e) => e.event_type)).toEqual(['client.created']);
    const original = (await admin.get(`${URL}/${hook.inbound_webhook_id}/deliveries/${originalId}`)).json().data;
    expect(original).toMatchObject({ dispatch_status: 'failed', is_replay: false });
    // Replays bypass the duplicate check: a second replay runs again (an update now).
    const twice = await admin.post(`${URL}/${hook.inbound_webhook_id}/deliveries/${originalId}/replay`);
    expect(twice.json().data.handler_outcome).toMatchObject({ operation: 'updated' });
  });

  it('refuses deliveries that kept no body (422), 404 across webhooks and tenants, 403 without the action\'s permissions', async () => {
    const { tenant, slug, admin } = await makeTenant(t);
    const other = await makeTenant(t);
    const hook = await makeInbound(admin, { idempotency_source: { type: 'header', value: 'x-id' } });
    const s = signed(hook.secret!, { a: 1 });
    const first = await receive(t, slug, hook.slug, { ...s, headers: { ...s.headers, 'x-id': 'same' } });
    const dup = await receive(t, slug, hook.slug, { ...s, headers: { ...s.headers, 'x-id': 'same' } });
    const refused = await admin.post(`${URL}/${hook.inbound_webhook_id}/deliveries/${dup.json().delivery_id}/replay`);
    expectError(refused, 422, 'UNPROCESSABLE');
    expect(refused.json().error.details.reason).toBe('no_body');
    const ok = await admin.post(`${URL}/${hook.inbound_webhook_id}/deliveries/${first.json().delivery_id}/replay`);
    expectStatus(ok, 201);
    expect(ok.json().data).toMatchObject({ idempotency_key: 'same', dispatch_status: 'queued', is_replay: true });
    expectError(await other.admin.post(`${URL}/${hook.inbound_webhook_id}/deliveries/${first.json().delivery_id}/replay`), 404, 'NOT_FOUND');
    expectError(await admin.post(`${URL}/${hook.inbound_webhook_id}/deliveries/${randomId()}/replay`), 404, 'NOT_FOUND');
    const viewer = await makeUser(t, tenant, { role: 'Viewer' });
    expectError(await viewer.api.post(`${URL}/${hook.inbound_webhook_id}/deliveries/${first.json().delivery_id}/replay`), 403, 'FORBIDDEN');

    const direct = await makeInbound(admin, upsertClient());
    const d = await receive(t, slug, direct.slug, signed(direct.secret!, { id: 'x', name: 'X' }));
    const scoped = await makeUser(t, tenant, { role: 'Manager', scopes: ['inbound_webhook:update', 'inbound_webhook:read'] });
    const denied = await scoped.api.post(`${URL}/${direct.inbound_webhook_id}/deliveries/${d.json().delivery_id}/replay`);
    expectError(denied, 403, 'FORBIDDEN');
    expect(denied.json().error.details.required).toEqual(['client:create', 'client:update']);
  });
});

describe('POST /api/v1/inbound-webhooks/{id}/test', () => {
  it('sends a synthetic request through the saved configuration, recorded as a test; dry_run maps without running', async () => {
    const { tenant, admin } = await makeTenant(t);
    const hook = await makeInbound(admin, { ...upsertClient({ external_id: 'id', client_name: '$headers."x-prefix" & name' }), idempotency_source: { type: 'jsonata', value: 'id' }, is_active: false });
    const dry = await admin.post(`${URL}/${hook.inbound_webhook_id}/test`, { body: { id: 't-1', name: 'Dry' }, headers: { 'X-Prefix': 'Mr ', Authorization: 'Bearer x' }, dry_run: true });
    expectStatus(dry, 201);
    expect(dry.json().data).toMatchObject({
      is_test: true,
      auth_status: 'internal',
      dispatch_status: 'processed',
      idempotency_key: 't-1',
      request_headers: { 'x-prefix': 'Mr ' },
      handler_outcome: { dry_run: true, fields: { external_id: 't-1', client_name: 'Mr Dry' } },
    });
    expect(dry.json().data.request_headers).not.toHaveProperty('authorization');
    expect(await t.database.db.selectFrom('clients').select('client_id').where('tenant', '=', tenant).execute()).toEqual([]);

    const real = await admin.post(`${URL}/${hook.inbound_webhook_id}/test`, { body: { id: 't-1', name: 'Real' } });
    expectStatus(real, 201);
    expect(real.json().data).toMatchObject({ is_test: true, dispatch_status: 'processed', handler_outcome: { operation: 'created' } });
    // Tests never claim the key: the same key again runs again.
    const again = await admin.post(`${URL}/${hook.inbound_webhook_id}/test`, { body: { id: 't-1', name: 'Real' } });
    expect(again.json().data.handler_outcome).toMatchObject({ operation: 'updated' });
    expect(await t.database.db.selectFrom('inbound_webhook_idempotency_keys').selectAll().where('tenant', '=', tenant).execute()).toEqual([]);

    const failing = await admin.post(`${URL}/${hook.inbound_webhook_id}/test`, { body: { id: 't-2' } });
    expectStatus(failing, 201);
    expect(failing.json().data).toMatchObject({ dispatch_status: 'failed', response_status: 422, response_body: { error: { details: { reason: 'missing_field' } } } });
  });

  it('uses the captured sample when no body is sent; 422 when there is neither', async () => {
    const { admin } = await makeTenant(t);
    const hook = await makeInbound(admin);
    const none = await admin.post(`${URL}/${hook.inbound_webhook_id}/test`);
    expectError(none, 422, 'UNPROCESSABLE');
    await t.database.db.updateTable('inbound_webhooks').set({ sample_payload: '{"sampled":true}', sample_captured_at: new Date() }).where('inbound_webhook_id', '=', hook.inbound_webhook_id).execute();
    const res = await admin.post(`${URL}/${hook.inbound_webhook_id}/test`, {});
    expectStatus(res, 201);
    expect(res.json().data).toMatchObject({ request_body: { sampled: true }, dispatch_status: 'queued', response_status: 202 });
  });

  it('400 for bad bodies, 404 across tenants, 403 without update', async () => {
    const { tenant, admin } = await makeTenant(t);
    const other = await makeTenant(t);
    const hook = await makeInbound(admin);
    expectError(await admin.post(`${URL}/${hook.inbound_webhook_id}/test`, { body: {}, extra: 1 }), 400, 'VALIDATION_ERROR');
    expectError(await admin.post(`${URL}/${hook.inbound_webhook_id}/test`, { headers: { 'bad header': 'x' } }), 400, 'VALIDATION_ERROR');
    expectError(await admin.post(`${URL}/${hook.inbound_webhook_id}/test`, { body: JSON.parse('['.repeat(80) + ']'.repeat(80)) }), 400, 'BAD_REQUEST');
    expectError(await other.admin.post(`${URL}/${hook.inbound_webhook_id}/test`, { body: {} }), 404, 'NOT_FOUND');
    const viewer = await makeUser(t, tenant, { role: 'Viewer' });
    expectError(await viewer.api.post(`${URL}/${hook.inbound_webhook_id}/test`, { body: {} }), 403, 'FORBIDDEN');
    expect(await deliveryRows(t, tenant, hook.inbound_webhook_id)).toEqual([]);
  });
});

describe('POST/DELETE /api/v1/inbound-webhooks/{id}/capture-sample', () => {
  it('the next verified request becomes the sample; refused requests do not; DELETE clears it', async () => {
    const { tenant, slug, admin } = await makeTenant(t);
    const hook: InboundJson = await makeInbound(admin);
    const armed = await admin.post(`${URL}/${hook.inbound_webhook_id}/capture-sample`);
    expectStatus(armed, 200);
    expect(armed.json().data).toMatchObject({ sample_capture_pending: true, sample_payload: null });
    expectError(await receive(t, slug, hook.slug, { body: { forged: true } }), 401, 'UNAUTHORIZED');
    expect((await admin.get(`${URL}/${hook.inbound_webhook_id}`)).json().data.sample_capture_pending).toBe(true);
    expectStatus(await receive(t, slug, hook.slug, signed(hook.secret!, { first: { order: 1, items: ['a'] } })), 202);
    expectStatus(await receive(t, slug, hook.slug, signed(hook.secret!, { second: true })), 202);
    const got = (await admin.get(`${URL}/${hook.inbound_webhook_id}`)).json().data;
    expect(got).toMatchObject({ sample_capture_pending: false, sample_payload: { first: { order: 1, items: ['a'] } }, sample_captured_at: expect.any(String) });

    // Arming again replaces the sample with the next request's body.
    expectStatus(await admin.post(`${URL}/${hook.inbound_webhook_id}/capture-sample`, {}), 200);
    expectStatus(await receive(t, slug, hook.slug, signed(hook.secret!, { third: 3 })), 202);
    expect((await admin.get(`${URL}/${hook.inbound_webhook_id}`)).json().data.sample_payload).toEqual({ third: 3 });

    const cleared = await admin.delete(`${URL}/${hook.inbound_webhook_id}/capture-sample`);
    expectStatus(cleared, 204);
    expect((await admin.get(`${URL}/${hook.inbound_webhook_id}`)).json().data).toMatchObject({ sample_payload: null, sample_captured_at: null, sample_capture_pending: false });
    const other = await makeTenant(t);
    expectError(await other.admin.post(`${URL}/${hook.inbound_webhook_id}/capture-sample`), 404, 'NOT_FOUND');
    expectError(await other.admin.delete(`${URL}/${hook.inbound_webhook_id}/capture-sample`), 404, 'NOT_FOUND');
    const viewer = await makeUser(t, tenant, { role: 'Viewer' });
    expectError(await viewer.api.post(`${URL}/${hook.inbound_webhook_id}/capture-sample`), 403, 'FORBIDDEN');
    expectError(await viewer.api.delete(`${URL}/${hook.inbound_webhook_id}/capture-sample`), 403, 'FORBIDDEN');
  });

  it('captures on an inactive webhook too (set up before enabling)', async () => {
    const { slug, admin } = await makeTenant(t);
    const hook = await makeInbound(admin, { is_active: false });
    await admin.post(`${URL}/${hook.inbound_webhook_id}/capture-sample`);
    expectError(await receive(t, slug, hook.slug, signed(hook.secret!, { early: true })), 404, 'NOT_FOUND');
    expect((await admin.get(`${URL}/${hook.inbound_webhook_id}`)).json().data.sample_payload).toEqual({ early: true });
  });
});

describe('retention', () => {
  it('purges delivery records older than 30 days and expired idempotency keys', async () => {
    const { tenant, slug, admin } = await makeTenant(t);
    const hook = await makeInbound(admin, { idempotency_source: { type: 'header', value: 'x-id' } });
    const s = signed(hook.secret!, { a: 1 });
    const old = await receive(t, slug, hook.slug, { ...s, headers: { ...s.headers, 'x-id': 'old' } });
    const fresh = await receive(t, slug, hook.slug, { ...s, headers: { ...s.headers, 'x-id': 'fresh' } });
    await t.database.db.updateTable('inbound_webhook_deliveries').set({ received_at: new Date(Date.now() - 31 * 86_400_000) } as never)
      .where('tenant', '=', tenant).where('delivery_id', '=', old.json().delivery_id).execute();
    await t.database.db.updateTable('inbound_webhook_idempotency_keys').set({ expires_at: new Date(Date.now() - 1000) })
      .where('tenant', '=', tenant).where('idempotency_key', '=', 'old').execute();
    expect(await purgeInboundWebhookData(t.database.db)).toBeGreaterThanOrEqual(2);
    const rows = await deliveryRows(t, tenant, hook.inbound_webhook_id);
    expect(rows.map((r) => r.delivery_id)).toEqual([fresh.json().delivery_id]);
    const keys = await t.database.db.selectFrom('inbound_webhook_idempotency_keys').select('idempotency_key').where('tenant', '=', tenant).execute();
    expect(keys).toEqual([{ idempotency_key: 'fresh' }]);
  });
});
