import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/harness.ts';
import { makeTenant, makeUser } from '../../../test/factories.ts';
import { anonymous, eventsOf, expectError, randomId } from '../../../test/client-factories.ts';
import { createWebhook, emitEvent, fanOut, ticketData, webhookRow, type WebhookJson } from '../../../test/webhooks-kit.ts';
import { eventVocabulary } from '../../platform/events/vocabulary.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({ env: { PSA_WEBHOOK_ALLOW_PRIVATE: '127.0.0.1/32' } });
});
afterAll(async () => t.close());

const URL_OK = 'http://127.0.0.1:9/hook';

describe('POST /api/v1/webhooks', () => {
  it('creates a webhook: 201, Location, ETag, the secret once; header values and the secret stored encrypted; an outbox event', async () => {
    const { admin, tenant, adminUserId } = await makeTenant(t);
    const res = await admin.post('/api/v1/webhooks', {
      name: '  Ticket sync ',
      description: 'to the CRM',
      url: URL_OK,
      event_types: ['ticket.updated', 'project.task.completed'],
      custom_headers: { Authorization: 'Bearer very-secret-token', 'X-Team': 'blue' },
      rate_limit_per_minute: 250,
      payload_fields: { ticket: ['title', 'status_name'] },
      event_filter: { entity_ids: [randomId()] },
    });
    expect(res.statusCode, res.body).toBe(201);
    const hook = res.json().data as WebhookJson & { secret: string };
    expect(res.headers.location).toBe(`/api/v1/webhooks/${hook.webhook_id}`);
    expect(hook).toMatchObject({
      name: 'Ticket sync',
      description: 'to the CRM',
      url: URL_OK,
      event_types: ['ticket.updated', 'project.task.completed'],
      custom_headers: { Authorization: '***', 'X-Team': '***' },
      rate_limit_per_minute: 250,
      payload_fields: { ticket: ['title', 'status_name'] },
      is_active: true,
      auto_disabled_at: null,
      failing_since: null,
      last_success_at: null,
      last_failure_at: null,
      created_by_user_id: adminUserId,
    });
    expect(hook.secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(hook.created_at).toMatch(/\.\d{3}Z$/);

    const got = await admin.get(`/api/v1/webhooks/${hook.webhook_id}`);
    expect(got.statusCode).toBe(200);
    expect(got.json().data).not.toHaveProperty('secret');
    expect(got.body).not.toContain(hook.secret);
    expect(got.body).not.toContain('very-secret-token');
    expect(got.headers.etag).toBe(res.headers.etag);
    const { secret: _secret, ...withoutSecret } = hook;
    expect(got.json().data).toEqual(withoutSecret);

    const row = await webhookRow(t, tenant, hook.webhook_id);
    expect(row.secret_enc).not.toContain(hook.secret);
    expect(t.app.secretBox.decrypt(row.secret_enc)).toBe(hook.secret);
    expect(row.custom_headers_enc).not.toContain('very-secret-token');
    expect(JSON.parse(t.app.secretBox.decrypt(row.custom_headers_enc!))).toEqual({ Authorization: 'Bearer very-secret-token', 'X-Team': 'blue' });

    const [event] = await eventsOf(t, tenant, hook.webhook_id);
    expect(event).toMatchObject({ event_type: 'webhook.created', aggregate_type: 'webhook', payload: { webhook_id: hook.webhook_id, name: 'Ticket sync' } });
    expect(JSON.stringify(event)).not.toContain(hook.secret);
  });

  it('defaults: rate 100/min, active, no headers, full payloads, no filter; each webhook gets its own secret', async () => {
    const { admin } = await makeTenant(t);
    const a = await createWebhook(admin, { url: URL_OK });
    const b = await createWebhook(admin, { url: URL_OK });
    expect(a).toMatchObject({ rate_limit_per_minute: 100, is_active: true, custom_headers: {}, payload_fields: null, event_filter: null, description: null });
    expect(a.secret).not.toBe(b.secret);
  });

  it('400: unknown or undelivered event types are named; empty, repeated or too many types', async () => {
    const { admin } = await makeTenant(t);
    const unknown = await admin.post('/api/v1/webhooks', { name: 'x', url: URL_OK, event_types: ['ticket.updated', 'ticket.exploded'] });
    expectError(unknown, 400, 'VALIDATION_ERROR');
    expect(unknown.json().error.message).toContain("'ticket.exploded'");
    expect(unknown.json().error.details).toEqual([{ path: 'body.event_types.1', message: expect.stringContaining('unknown event type') }]);
    const undelivered = await admin.post('/api/v1/webhooks', { name: 'x', url: URL_OK, event_types: ['client.created'] });
    expectError(undelivered, 400, 'VALIDATION_ERROR');
    expect(undelivered.json().error.message).toContain("'client.created' is announced but not delivered");
    for (const event_types of [[], ['ticket.updated', 'ticket.updated'], Array.from({ length: 51 }, (_, i) => `ticket.x${i}`), 'ticket.updated']) {
      expectError(await admin.post('/api/v1/webhooks', { name: 'x', url: URL_OK, event_types }), 400, 'VALIDATION_ERROR');
    }
  });

  it('400: bad custom headers (names, reserved names in any case, CR/LF, length, count, repeats)', async () => {
    const { admin } = await makeTenant(t);
    const bad: [Record<string, string>, string][] = [
      [{ 'Bad Header': 'x' }, 'not a valid header name'],
      [{ 'x(y)': 'x' }, 'not a valid header name'],
      [{ 'content-type': 'text/plain' }, 'reserved'],
      [{ HOST: 'evil.example' }, 'reserved'],
      [{ 'User-Agent': 'x' }, 'reserved'],
      [{ 'Transfer-Encoding': 'chunked' }, 'reserved'],
      [{ 'X-Service-Signature': 'forged' }, 'reserved'],
      [{ 'x-service-anything': 'x' }, 'reserved'],
      [{ 'X-Ok': 'a\r\nInjected: yes' }, 'CR, LF'],
      [{ 'X-Ok': 'nul\u0000' }, 'CR, LF'],
      [{ 'X-Token': 'a', 'x-token': 'b' }, 'repeats'],
      [{ ['X'.repeat(300)]: 'a' }, 'not a valid header name'],
    ];
    for (const [headers, text] of bad) {
      const res = await admin.post('/api/v1/webhooks', { name: 'x', url: URL_OK, event_types: ['ticket.created'], custom_headers: headers });
      expectError(res, 400, 'VALIDATION_ERROR');
      expect(res.json().error.message, JSON.stringify(headers)).toContain(text);
    }
    const tooMany = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`X-H${i}`, 'v']));
    expectError(await admin.post('/api/v1/webhooks', { name: 'x', url: URL_OK, event_types: ['ticket.created'], custom_headers: tooMany }), 400, 'VALIDATION_ERROR');
    expectError(await admin.post('/api/v1/webhooks', { name: 'x', url: URL_OK, event_types: ['ticket.created'], custom_headers: { 'X-Long': 'v'.repeat(1025) } }), 400, 'VALIDATION_ERROR');
    expectError(await admin.post('/api/v1/webhooks', { name: 'x', url: URL_OK, event_types: ['ticket.created'], custom_headers: { 'X-Num': 5 } }), 400, 'VALIDATION_ERROR');
  });

  it('400: payload allowlist and entity filter are checked; other bad fields', async () => {
    const { admin } = await makeTenant(t);
    const base = { name: 'x', url: URL_OK, event_types: ['ticket.created'] };
    const unknownField = await admin.post('/api/v1/webhooks', { ...base, payload_fields: { ticket: ['title', 'password'] } });
    expectError(unknownField, 400, 'VALIDATION_ERROR');
    expect(unknownField.json().error.message).toContain("unknown ticket field 'password'");
    const unknownEntity = await admin.post('/api/v1/webhooks', { ...base, payload_fields: { invoice: ['total'] } });
    expectError(unknownEntity, 400, 'VALIDATION_ERROR');
    expect(unknownEntity.json().error.details[0].path).toBe('body.payload_fields.invoice');
    for (const body of [
      { ...base, event_filter: { entity_ids: ['not-a-uuid'] } },
      { ...base, event_filter: { entity_ids: [] } },
      { ...base, event_filter: { entity_ids: Array.from({ length: 101 }, () => randomId()) } },
      { ...base, event_filter: { ticket_ids: [randomId()] } },
      { ...base, rate_limit_per_minute: 0 },
      { ...base, rate_limit_per_minute: 10_001 },
      { ...base, rate_limit_per_minute: 1.5 },
      { ...base, name: '   ' },
      { ...base, name: 'x'.repeat(256) },
      { ...base, description: 'x'.repeat(2001) },
      { ...base, url: 'ftp://example.com/hook' },
      { ...base, url: 'not a url' },
      { ...base, url: `https://example.com/${'x'.repeat(2048)}` },
      { ...base, secret: 'mine' },
      { name: 'x', url: URL_OK },
    ]) {
      expectError(await admin.post('/api/v1/webhooks', body), 400, 'VALIDATION_ERROR');
    }
  });

  it('422 when the URL points at a private address (not allowlisted here)', async () => {
    const { admin } = await makeTenant(t);
    const res = await admin.post('/api/v1/webhooks', { name: 'x', url: 'http://10.1.2.3/hook', event_types: ['ticket.created'] });
    expectError(res, 422, 'UNPROCESSABLE');
    expect(res.json().error.details).toEqual({ reason: 'unsafe_target' });
  });

  it('401 without a key; 403 for roles without webhook:create (Technician, Viewer); a Manager may', async () => {
    const { tenant } = await makeTenant(t);
    const body = { name: 'x', url: URL_OK, event_types: ['ticket.created'] };
    expectError(await anonymous(t).post('/api/v1/webhooks', body), 401, 'UNAUTHORIZED');
    for (const role of ['Technician', 'Viewer']) {
      const { api } = await makeUser(t, tenant, { role });
      const res = await api.post('/api/v1/webhooks', body);
      expectError(res, 403, 'FORBIDDEN');
      expect(res.json().error.details).toEqual({ required: ['webhook:create'] });
    }
    const manager = await makeUser(t, tenant, { role: 'Manager' });
    expect((await manager.api.post('/api/v1/webhooks', body)).statusCode).toBe(201);
  });
});

describe('GET /api/v1/webhooks and /api/v1/webhooks/{id}', () => {
  it('lists the tenant’s webhooks (paginated, filters is_active and event_type); never secrets', async () => {
    const { admin } = await makeTenant(t);
    const other = await makeTenant(t);
    const a = await createWebhook(admin, { name: 'A', url: URL_OK, event_types: ['ticket.created'] });
    const b = await createWebhook(admin, { name: 'B', url: URL_OK, event_types: ['ticket.updated', 'project.created'], is_active: false });
    await createWebhook(other.admin, { name: 'Theirs', url: URL_OK });
    const all = await admin.get('/api/v1/webhooks?sort=name&order=asc');
    expect(all.statusCode).toBe(200);
    expect(all.json().data.map((w: WebhookJson) => w.name)).toEqual(['A', 'B']);
    expect(all.json().pagination).toEqual({ page: 1, limit: 25, total: 2, totalPages: 1, hasNext: false, hasPrev: false });
    expect(all.body).not.toContain(a.secret);
    expect(all.body).not.toContain(b.secret);
    expect((await admin.get('/api/v1/webhooks?is_active=false')).json().data.map((w: WebhookJson) => w.webhook_id)).toEqual([b.webhook_id]);
    expect((await admin.get('/api/v1/webhooks?event_type=project.created')).json().data.map((w: WebhookJson) => w.webhook_id)).toEqual([b.webhook_id]);
    const page = await admin.get('/api/v1/webhooks?limit=1&page=2&sort=name&order=asc');
    expect(page.json().data.map((w: WebhookJson) => w.name)).toEqual(['B']);
    expect(page.json().pagination).toMatchObject({ total: 2, hasPrev: true, hasNext: false });
    expectError(await admin.get('/api/v1/webhooks?limit=101'), 400, 'VALIDATION_ERROR');
    expectError(await admin.get('/api/v1/webhooks?sort=secret'), 400, 'VALIDATION_ERROR');
    expectError(await admin.get('/api/v1/webhooks?colour=red'), 400, 'VALIDATION_ERROR');
  });

  it('get: ETag and 304; 404 for an unknown id or another tenant’s; 400 for a malformed id; readable with webhook:read', async () => {
    const { admin, tenant } = await makeTenant(t);
    const other = await makeTenant(t);
    const hook = await createWebhook(admin, { url: URL_OK });
    const res = await admin.get(`/api/v1/webhooks/${hook.webhook_id}`);
    expect(res.headers.etag).toMatch(/^"/);
    expect((await admin.get(`/api/v1/webhooks/${hook.webhook_id}`, { 'if-none-match': res.headers.etag as string })).statusCode).toBe(304);
    expectError(await admin.get(`/api/v1/webhooks/${randomId()}`), 404, 'NOT_FOUND');
    expectError(await other.admin.get(`/api/v1/webhooks/${hook.webhook_id}`), 404, 'NOT_FOUND');
    expectError(await admin.get('/api/v1/webhooks/nope'), 400, 'VALIDATION_ERROR');
    const viewer = await makeUser(t, tenant, { role: 'Viewer' });
    expect((await viewer.api.get(`/api/v1/webhooks/${hook.webhook_id}`)).statusCode).toBe(200);
    const tech = await makeUser(t, tenant, { role: 'Technician' });
    expectError(await tech.api.get(`/api/v1/webhooks/${hook.webhook_id}`), 403, 'FORBIDDEN');
    expectError(await tech.api.get('/api/v1/webhooks'), 403, 'FORBIDDEN');
    expectError(await anonymous(t).get('/api/v1/webhooks'), 401, 'UNAUTHORIZED');
  });
});

describe('GET /api/v1/webhooks/events', () => {
  it('returns the whole vocabulary with the delivered flag', async () => {
    const { admin, tenant } = await makeTenant(t);
    const res = await admin.get('/api/v1/webhooks/events');
    expect(res.statusCode).toBe(200);
    const data = res.json().data as { event_type: string; entity: string; description: string; delivered: boolean }[];
    expect(data).toHaveLength(eventVocabulary().length);
    expect(data.filter((e) => e.delivered).map((e) => e.event_type)).toEqual(eventVocabulary().filter((e) => e.delivered).map((e) => e.event_type));
    expect(data.find((e) => e.event_type === 'ticket.comment.added')).toMatchObject({ entity: 'ticket', delivered: true });
    expect(data.find((e) => e.event_type === 'invoice.paid')).toMatchObject({ entity: 'invoice', delivered: false });
    const tech = await makeUser(t, tenant, { role: 'Technician' });
    expectError(await tech.api.get('/api/v1/webhooks/events'), 403, 'FORBIDDEN');
    expectError(await anonymous(t).get('/api/v1/webhooks/events'), 401, 'UNAUTHORIZED');
  });
});

describe('PUT /api/v1/webhooks/{id}', () => {
  it('updates only what is sent; records changed fields; a no-op changes nothing', async () => {
    const { admin, tenant } = await makeTenant(t);
    const hook = await createWebhook(admin, { url: URL_OK, custom_headers: { Authorization: 'Bearer one' } });
    const res = await admin.put(`/api/v1/webhooks/${hook.webhook_id}`, {
      name: 'Renamed',
      event_types: ['ticket.closed'],
      rate_limit_per_minute: 7,
      payload_fields: { project: null, ticket: [] },
      event_filter: null,
      description: '  ',
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ name: 'Renamed', event_types: ['ticket.closed'], rate_limit_per_minute: 7, payload_fields: { project: null, ticket: [] }, url: URL_OK, description: null, custom_headers: { Authorization: '***' } });
    expect(res.json().data.updated_at >= hook.updated_at).toBe(true);
    const events = await eventsOf(t, tenant, hook.webhook_id);
    expect(events.map((e) => e.event_type)).toEqual(['webhook.created', 'webhook.updated']);
    expect((events[1]!.payload.changed_fields as string[]).sort()).toEqual(['event_types', 'name', 'payload_fields', 'rate_limit_per_minute']);
    const again = await admin.put(`/api/v1/webhooks/${hook.webhook_id}`, { name: 'Renamed' });
    expect(again.json().data).toEqual(res.json().data);
    expect(await eventsOf(t, tenant, hook.webhook_id)).toHaveLength(2);
  });

  it('custom headers: replaced as a set, "***" keeps a stored value, null clears; "***" for an unknown header is a 400', async () => {
    const { admin, tenant } = await makeTenant(t);
    const hook = await createWebhook(admin, { url: URL_OK, custom_headers: { Authorization: 'Bearer one', 'X-Old': 'old' } });
    const kept = await admin.put(`/api/v1/webhooks/${hook.webhook_id}`, { custom_headers: { authorization: '***', 'X-New': 'new' } });
    expect(kept.statusCode, kept.body).toBe(200);
    expect(kept.json().data.custom_headers).toEqual({ authorization: '***', 'X-New': '***' });
    const row = await webhookRow(t, tenant, hook.webhook_id);
    expect(JSON.parse(t.app.secretBox.decrypt(row.custom_headers_enc!))).toEqual({ authorization: 'Bearer one', 'X-New': 'new' });
    const unknown = await admin.put(`/api/v1/webhooks/${hook.webhook_id}`, { custom_headers: { 'X-Missing': '***' } });
    expectError(unknown, 400, 'VALIDATION_ERROR');
    expect(unknown.json().error.message).toContain("'X-Missing' has none");
    const cleared = await admin.put(`/api/v1/webhooks/${hook.webhook_id}`, { custom_headers: null });
    expect(cleared.json().data.custom_headers).toEqual({});
    expect((await webhookRow(t, tenant, hook.webhook_id)).custom_headers_enc).toBeNull();
  });

  it('is_active: false parks waiting attempts; true re-enables, clears auto_disabled_at and failing_since and releases them', async () => {
    const { admin, tenant } = await makeTenant(t);
    const hook = await createWebhook(admin, { url: URL_OK });
    await emitEvent(t, tenant, 'ticket.updated', { data: ticketData() });
    await fanOut(t);
    const pending = () => t.database.db.selectFrom('webhook_deliveries').select(['status', 'paused']).where('tenant', '=', tenant).execute();
    expect(await pending()).toEqual([{ status: 'pending', paused: false }]);
    const off = await admin.put(`/api/v1/webhooks/${hook.webhook_id}`, { is_active: false });
    expect(off.json().data.is_active).toBe(false);
    expect(await pending()).toEqual([{ status: 'pending', paused: true }]);
    await t.database.db.updateTable('webhooks').set({ auto_disabled_at: new Date(), failing_since: new Date(Date.now() - 86_400_000) })
      .where('tenant', '=', tenant).where('webhook_id', '=', hook.webhook_id).execute();
    const on = await admin.put(`/api/v1/webhooks/${hook.webhook_id}`, { is_active: true });
    expect(on.json().data).toMatchObject({ is_active: true, auto_disabled_at: null, failing_since: null });
    expect(await pending()).toEqual([{ status: 'pending', paused: false }]);
  });

  it('400 for bad bodies, 422 for an unsafe URL, 412 on a stale If-Match, 404 unknown or foreign, 403 without webhook:update', async () => {
    const { admin, tenant } = await makeTenant(t);
    const other = await makeTenant(t);
    const hook = await createWebhook(admin, { url: URL_OK });
    const url = `/api/v1/webhooks/${hook.webhook_id}`;
    for (const body of [{}, { event_types: ['ticket.nope'] }, { event_types: ['asset.created'] }, { custom_headers: { Host: 'x' } }, { url: 'gopher://x' }, { is_active: 'yes' }, { webhook_id: randomId() }]) {
      expectError(await admin.put(url, body), 400, 'VALIDATION_ERROR');
    }
    const unsafe = await admin.put(url, { url: 'http://[::ffff:10.0.0.1]/x' });
    expectError(unsafe, 422, 'UNPROCESSABLE');
    expect(unsafe.json().error.details.reason).toBe('unsafe_target');
    expectError(await admin.put(url, { name: 'x' }, { 'if-match': '"stale"' }), 412, 'PRECONDITION_FAILED');
    const etag = (await admin.get(url)).headers.etag as string;
    expect((await admin.put(url, { name: 'Fresh' }, { 'if-match': etag })).statusCode).toBe(200);
    expectError(await admin.put(url, { name: 'Again' }, { 'if-match': etag }), 412, 'PRECONDITION_FAILED');
    expectError(await admin.put(`/api/v1/webhooks/${randomId()}`, { name: 'x' }), 404, 'NOT_FOUND');
    expectError(await other.admin.put(url, { name: 'Hijacked' }), 404, 'NOT_FOUND');
    const viewer = await makeUser(t, tenant, { role: 'Viewer' });
    expectError(await viewer.api.put(url, { name: 'x' }), 403, 'FORBIDDEN');
    expect((await admin.get(url)).json().data.name).toBe('Fresh');
  });
});

describe('DELETE /api/v1/webhooks/{id}', () => {
  it('deletes the webhook with its deliveries; 412 on a stale If-Match; 404 after, for unknown and foreign ids; 403 without webhook:delete', async () => {
    const { admin, tenant } = await makeTenant(t);
    const other = await makeTenant(t);
    const hook = await createWebhook(admin, { url: URL_OK });
    await emitEvent(t, tenant, 'ticket.updated', { data: ticketData() });
    await fanOut(t);
    const url = `/api/v1/webhooks/${hook.webhook_id}`;
    expectError(await other.admin.delete(url), 404, 'NOT_FOUND');
    const tech = await makeUser(t, tenant, { role: 'Technician' });
    expectError(await tech.api.delete(url), 403, 'FORBIDDEN');
    expectError(await admin.delete(url, { 'if-match': '"old"' }), 412, 'PRECONDITION_FAILED');
    const res = await admin.delete(url);
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    expectError(await admin.get(url), 404, 'NOT_FOUND');
    expectError(await admin.delete(url), 404, 'NOT_FOUND');
    expect(await t.database.db.selectFrom('webhook_deliveries').select('delivery_id').where('tenant', '=', tenant).execute()).toEqual([]);
    expect((await eventsOf(t, tenant, hook.webhook_id)).map((e) => e.event_type)).toEqual(['webhook.created', 'webhook.deleted']);
  });
});

describe('POST /api/v1/webhooks/{id}/secret/rotate', () => {
  it('returns a new secret once, stores it encrypted, keeps everything else; 404 foreign; 403 without webhook:update', async () => {
    const { admin, tenant } = await makeTenant(t);
    const other = await makeTenant(t);
    const hook = await createWebhook(admin, { url: URL_OK });
    const url = `/api/v1/webhooks/${hook.webhook_id}/secret/rotate`;
    const res = await admin.post(url);
    expect(res.statusCode, res.body).toBe(200);
    const rotated = res.json().data;
    expect(rotated.secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(rotated.secret).not.toBe(hook.secret);
    expect(rotated).toMatchObject({ webhook_id: hook.webhook_id, name: hook.name, url: hook.url });
    expect(t.app.secretBox.decrypt((await webhookRow(t, tenant, hook.webhook_id)).secret_enc)).toBe(rotated.secret);
    const got = await admin.get(`/api/v1/webhooks/${hook.webhook_id}`);
    expect(got.body).not.toContain(rotated.secret);
    expect(got.headers.etag).toBe(res.headers.etag);
    expect((await eventsOf(t, tenant, hook.webhook_id)).map((e) => e.event_type)).toEqual(['webhook.created', 'webhook.secret_rotated']);
    expectError(await other.admin.post(url), 404, 'NOT_FOUND');
    expectError(await admin.post(`/api/v1/webhooks/${randomId()}/secret/rotate`), 404, 'NOT_FOUND');
    const viewer = await makeUser(t, tenant, { role: 'Viewer' });
    expectError(await viewer.api.post(url), 403, 'FORBIDDEN');
    expectError(await anonymous(t).post(url), 401, 'UNAUTHORIZED');
  });
});
