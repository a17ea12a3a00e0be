import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/harness.ts';
import { makeTenant, makeUser, unique } from '../../../test/factories.ts';
import { anonymous, expectError, expectStatus, randomId } from '../../../test/client-factories.ts';
import { WORKFLOW, deliveryRows, makeInbound, receive, signed, type InboundJson } from '../../../test/inbound-factories.ts';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => { await t.close(); });

const URL = '/api/v1/inbound-webhooks';
const slugOf = () => unique('cfg').toLowerCase();
const upsertClient = { handler_type: 'direct_action', handler_config: { action: 'upsert_client_by_external_id', field_mapping: { external_id: 'id', client_name: 'name' } } };

describe('POST /api/v1/inbound-webhooks', () => {
  it('creates a configuration, generates a secret it returns once and stores it encrypted', async () => {
    const { tenant, slug: tenantSlug, adminUserId, admin } = await makeTenant(t);
    const slug = slugOf();
    const res = await admin.post(URL, { name: ' CRM feed ', slug, auth_type: 'hmac_sha256', ...upsertClient, rate_limit_per_minute: 30, idempotency_source: { type: 'header', value: 'X-Event-Id' } });
    expectStatus(res, 201);
    const data = res.json().data as InboundJson;
    expect(res.headers.location).toBe(`${URL}/${data.inbound_webhook_id}`);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(data).toMatchObject({
      name: 'CRM feed',
      slug,
      receiver_url: `http://127.0.0.1:3000/api/inbound/${tenantSlug}/${slug}`,
      auth_type: 'hmac_sha256',
      auth_config: { signature_header: 'x-webhook-signature' },
      has_secret: true,
      idempotency_source: { type: 'header', value: 'x-event-id' },
      idempotency_window_seconds: 86_400,
      handler_type: 'direct_action',
      handler_config: { action: 'upsert_client_by_external_id', field_mapping: { external_id: 'id', client_name: 'name' } },
      rate_limit_per_minute: 30,
      is_active: true,
      sample_payload: null,
      sample_capture_pending: false,
      created_by_user_id: adminUserId,
    });
    expect(data.secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const row = await t.database.db.selectFrom('inbound_webhooks').select(['secret_enc', 'auth_config']).where('tenant', '=', tenant).executeTakeFirstOrThrow();
    expect(row.secret_enc).toMatch(/^v1\./);
    expect(row.secret_enc).not.toContain(data.secret);
    expect(JSON.stringify(row.auth_config)).not.toContain(data.secret!);
    expect(t.app.secretBox.decrypt(row.secret_enc!)).toBe(data.secret);

    const get = await admin.get(`${URL}/${data.inbound_webhook_id}`);
    expectStatus(get, 200);
    expect(get.body).not.toContain(data.secret);
    expect(get.json().data.secret).toBeUndefined();
    const list = await admin.get(URL);
    expect(list.body).not.toContain(data.secret);
  });

  it('keeps a supplied secret without echoing it, and needs none for ip_allowlist', async () => {
    const { admin } = await makeTenant(t);
    const bearer = await admin.post(URL, { name: 'B', slug: slugOf(), auth_type: 'bearer', auth_config: { secret: 'supplied-secret-0123456789' }, ...WORKFLOW });
    expectStatus(bearer, 201);
    expect(bearer.json().data.secret).toBeUndefined();
    expect(bearer.body).not.toContain('supplied-secret-0123456789');
    const ips = await admin.post(URL, { name: 'I', slug: slugOf(), auth_type: 'ip_allowlist', auth_config: { allowed_ips: ['10.0.0.7/8', '2001:0db8::1', '::ffff:192.0.2.1', '10.0.0.0/8'] }, ...WORKFLOW });
    expectStatus(ips, 201);
    expect(ips.json().data).toMatchObject({ has_secret: false, auth_config: { allowed_ips: ['10.0.0.0/8', '2001:db8::1', '192.0.2.1'] } });
    expect(ips.json().data.secret).toBeUndefined();
    const token = await admin.post(URL, { name: 'P', slug: slugOf(), auth_type: 'path_token', ...WORKFLOW });
    expect(token.json().data).toMatchObject({ auth_config: { query_param: 'token' }, has_secret: true });
    expect(token.json().data.secret).toEqual(expect.any(String));
  });

  it('answers 400 for bad bodies, naming the field', async () => {
    const { admin } = await makeTenant(t);
    const base = { name: 'X', slug: slugOf(), auth_type: 'hmac_sha256', ...WORKFLOW };
    const cases: [Record<string, unknown>, string][] = [
      [{ ...base, slug: 'Upper' }, 'body.slug'],
      [{ ...base, slug: '-lead' }, 'body.slug'],
      [{ ...base, slug: 'x'.repeat(65) }, 'body.slug'],
      [{ ...base, name: '   ' }, 'body.name'],
      [{ ...base, auth_type: 'basic' }, 'body.auth_type'],
      [{ ...base, extra: 1 }, 'body.extra'],
      [{ ...base, auth_config: { query_param: 'tok' } }, 'body.auth_config.query_param'],
      [{ ...base, auth_config: { secret: 'short' } }, 'body.auth_config.secret'],
      [{ ...base, auth_config: { tolerance_seconds: 60 } }, 'body.auth_config.tolerance_seconds'],
      [{ ...base, auth_config: { signature_header: 'bad header' } }, 'body.auth_config.signature_header'],
      [{ ...base, auth_type: 'ip_allowlist' }, 'body.auth_config.allowed_ips'],
      [{ ...base, auth_type: 'ip_allowlist', auth_config: { allowed_ips: ['10.0.0.1', '300.1.1.1'] } }, 'body.auth_config.allowed_ips.1'],
      [{ ...base, auth_type: 'ip_allowlist', auth_config: { allowed_ips: ['10.0.0.0/33'] } }, 'body.auth_config.allowed_ips.0'],
      [{ ...base, auth_type: 'ip_allowlist', auth_config: { allowed_ips: ['fe80::1%eth0'] } }, 'body.auth_config.allowed_ips.0'],
      [{ ...base, idempotency_source: { type: 'header', value: 'Authorization' } }, 'body.idempotency_source.value'],
      [{ ...base, idempotency_source: { type: 'jsonata', value: 'event.(' } }, 'body.idempotency_source.value'],
      [{ ...base, idempotency_window_seconds: 0 }, 'body.idempotency_window_seconds'],
      [{ ...base, rate_limit_per_minute: 60_001 }, 'body.rate_limit_per_minute'],
      [{ ...base, handler_type: 'direct_action', handler_config: {} }, 'body.handler_config.action'],
      [{ ...base, handler_type: 'direct_action', handler_config: { action: 'launch_rockets' } }, 'body.handler_config.action'],
      [{ ...base, handler_type: 'direct_action', handler_config: { action: 'upsert_client_by_external_id', field_mapping: { external_id: 'id' } } }, 'body.handler_config.field_mapping'],
      [{ ...base, handler_type: 'direct_action', handler_config: { action: 'upsert_client_by_external_id', field_mapping: { external_id: 'id', client_name: 'n', colour: 'c' } } }, 'body.handler_config.field_mapping.colour'],
      [{ ...base, handler_type: 'workflow', handler_config: { action: 'create_ticket' } }, 'body.handler_config.action'],
      [{ ...base, handler_type: 'direct_action', handler_config: { action: 'create_ticket', field_mapping: { title: 't' }, workflow_id: randomId() } }, 'body.handler_config.workflow_id'],
    ];
    for (const [body, path] of cases) {
      const res = await admin.post(URL, body);
      expectError(res, 400, 'VALIDATION_ERROR');
      expect(res.json().error.details.map((d: { path: string }) => d.path), JSON.stringify(body)).toContain(path);
    }
    expect(await t.database.db.selectFrom('inbound_webhooks').select('slug').where('slug', '=', base.slug).execute()).toEqual([]);
  });

  it('reports where a JSONata expression fails to compile', async () => {
    const { admin } = await makeTenant(t);
    const res = await admin.post(URL, {
      name: 'X', slug: slugOf(), auth_type: 'bearer',
      handler_type: 'direct_action',
      handler_config: { action: 'upsert_client_by_external_id', field_mapping: { external_id: 'id', client_name: 'customer.(name' } },
    });
    expectError(res, 400, 'VALIDATION_ERROR');
    const [detail] = res.json().error.details;
    expect(detail).toMatchObject({ path: 'body.handler_config.field_mapping.client_name', position: expect.any(Number), code: expect.stringMatching(/^S0/) });
    expect(res.json().error.message).toContain('at position');
  });

  it('answers 409 for a slug the tenant already uses (another tenant may use it)', async () => {
    const a = await makeTenant(t);
    const b = await makeTenant(t);
    const slug = slugOf();
    await makeInbound(a.admin, { slug });
    expectError(await a.admin.post(URL, { name: 'Y', slug, auth_type: 'bearer', ...WORKFLOW }), 409, 'CONFLICT');
    await makeInbound(b.admin, { slug });
  });

  it('answers 401 without a key and 403 without inbound_webhook:create', async () => {
    const { tenant } = await makeTenant(t);
    const body = { name: 'X', slug: slugOf(), auth_type: 'bearer', ...WORKFLOW };
    expectError(await anonymous(t).post(URL, body), 401, 'UNAUTHORIZED');
    const viewer = await makeUser(t, tenant, { role: 'Viewer' });
    const res = await viewer.api.post(URL, body);
    expectError(res, 403, 'FORBIDDEN');
    expect(res.json().error.details.required).toEqual(['inbound_webhook:create']);
  });

  it('answers 403 naming the action\'s permission when the creator lacks it', async () => {
    const { tenant, admin } = await makeTenant(t);
    const role = await admin.post('/api/v1/roles', { role_name: 'Inbound only', permissions: ['inbound_webhook:create', 'inbound_webhook:read', 'inbound_webhook:update', 'client:read'] });
    expectStatus(role, 201);
    const user = await makeUser(t, tenant, { role: 'Inbound only' });
    const res = await user.api.post(URL, { name: 'X', slug: slugOf(), auth_type: 'bearer', ...upsertClient });
    expectError(res, 403, 'FORBIDDEN');
    expect(res.json().error.details.required).toEqual(['client:create', 'client:update']);
    // A workflow handler needs no action permission.
    expectStatus(await user.api.post(URL, { name: 'X', slug: slugOf(), auth_type: 'bearer', ...WORKFLOW }), 201);
  });
});

describe('GET /api/v1/inbound-webhooks and /{id}', () => {
  it('lists the tenant\'s configurations without sample bodies, filtered and paginated', async () => {
    const { admin } = await makeTenant(t);
    const other = await makeTenant(t);
    await makeInbound(other.admin);
    const a = await makeInbound(admin, { name: 'Alpha' });
    const b = await makeInbound(admin, { name: 'beta', is_active: false });
    await makeInbound(admin, { name: 'Gamma', ...upsertClient });
    const all = await admin.get(`${URL}?limit=2`);
    expectStatus(all, 200);
    expect(all.json().pagination).toMatchObject({ page: 1, limit: 2, total: 3, totalPages: 2, hasNext: true });
    expect(all.json().data.map((w: InboundJson) => w.name)).toEqual(['Alpha', 'beta']);
    expect(all.json().data[0]).not.toHaveProperty('sample_payload');
    expect(all.json().data[0]).not.toHaveProperty('secret');
    const inactive = await admin.get(`${URL}?is_active=false`);
    expect(inactive.json().data.map((w: InboundJson) => w.inbound_webhook_id)).toEqual([b.inbound_webhook_id]);
    const direct = await admin.get(`${URL}?handler_type=direct_action`);
    expect(direct.json().data.map((w: InboundJson) => w.name)).toEqual(['Gamma']);
    const desc = await admin.get(`${URL}?sort=created_at&order=desc`);
    expect(desc.json().data.at(-1).inbound_webhook_id).toBe(a.inbound_webhook_id);
    expectError(await admin.get(`${URL}?sort=secret`), 400, 'VALIDATION_ERROR');
    expectError(await admin.get(`${URL}?limit=101`), 400, 'VALIDATION_ERROR');
  });

  it('gets one with an ETag; 404 for unknown ids and other tenants\' ids; 403 without read', async () => {
    const { tenant, admin } = await makeTenant(t);
    const other = await makeTenant(t);
    const hook = await makeInbound(admin);
    const res = await admin.get(`${URL}/${hook.inbound_webhook_id}`);
    expectStatus(res, 200);
    expect(res.headers.etag).toMatch(/^"/);
    expect(res.json().data).toMatchObject({ inbound_webhook_id: hook.inbound_webhook_id, sample_payload: null });
    expectStatus(await admin.get(`${URL}/${hook.inbound_webhook_id}`, { 'if-none-match': res.headers.etag as string }), 304);
    expectError(await admin.get(`${URL}/${randomId()}`), 404, 'NOT_FOUND');
    expectError(await other.admin.get(`${URL}/${hook.inbound_webhook_id}`), 404, 'NOT_FOUND');
    expectError(await admin.get(`${URL}/not-a-uuid`), 400, 'VALIDATION_ERROR');
    const tech = await makeUser(t, tenant, { role: 'Technician' });
    expectError(await tech.api.get(`${URL}/${hook.inbound_webhook_id}`), 403, 'FORBIDDEN');
    expectError(await anonymous(t).get(URL), 401, 'UNAUTHORIZED');
  });
});

describe('GET /api/v1/inbound-webhooks/actions', () => {
  it('lists every action with its target fields, sorted by entity type then name', async () => {
    const { admin } = await makeTenant(t);
    const res = await admin.get(`${URL}/actions`);
    expectStatus(res, 200);
    const actions = res.json().data as { name: string; entity_type: string; permissions: string[]; target_fields: Record<string, unknown>[] }[];
    expect(actions.map((a) => a.name)).toEqual([
      'upsert_asset_by_external_id',
      'upsert_client_by_external_id',
      'upsert_contact_by_external_id',
      'create_project_task',
      'add_ticket_comment_by_external_id',
      'change_ticket_status_by_external_id',
      'create_ticket',
      'update_ticket_by_external_id',
    ]);
    const ticket = actions.find((a) => a.name === 'create_ticket')!;
    expect(ticket.permissions).toEqual(['ticket:create']);
    expect(ticket.target_fields.find((f) => f.name === 'title')).toEqual({ name: 'title', type: 'string', required: true, description: 'Not blank', enum_values: null, ref_entity: null, max_length: 255, nullable: false });
    expect(ticket.target_fields.find((f) => f.name === 'board_id')).toMatchObject({ type: 'ref', ref_entity: 'board', required: false });
    const client = actions.find((a) => a.name === 'upsert_client_by_external_id')!;
    expect(client.target_fields.find((f) => f.name === 'billing_cycle')).toMatchObject({ type: 'enum', enum_values: expect.arrayContaining(['monthly', 'weekly']) });
    expect(client.target_fields.filter((f) => f.required).map((f) => f.name)).toEqual(['external_id', 'client_name']);
  });
});

describe('PUT /api/v1/inbound-webhooks/{id}', () => {
  it('updates fields partially and honours If-Match (412)', async () => {
    const { admin } = await makeTenant(t);
    const hook = await makeInbound(admin);
    const etag = (await admin.get(`${URL}/${hook.inbound_webhook_id}`)).headers.etag as string;
    const res = await admin.put(`${URL}/${hook.inbound_webhook_id}`, { name: 'Renamed', description: 'From the CRM', is_active: false, idempotency_source: { type: 'jsonata', value: 'event.id' }, idempotency_window_seconds: 60 }, { 'if-match': etag });
    expectStatus(res, 200);
    expect(res.json().data).toMatchObject({ name: 'Renamed', description: 'From the CRM', is_active: false, idempotency_source: { type: 'jsonata', value: 'event.id' }, idempotency_window_seconds: 60, has_secret: true });
    expect(res.json().data.secret).toBeUndefined();
    expectError(await admin.put(`${URL}/${hook.inbound_webhook_id}`, { name: 'Again' }, { 'if-match': etag }), 412, 'PRECONDITION_FAILED');
    expect((await admin.get(`${URL}/${hook.inbound_webhook_id}`)).json().data.name).toBe('Renamed');
  });

  it('switches auth types: keeps a secret it has, generates one it lacks, drops it for ip_allowlist', async () => {
    const { admin } = await makeTenant(t);
    const hook = await makeInbound(admin, { auth_type: 'ip_allowlist', auth_config: { allowed_ips: ['192.0.2.0/24'] } });
    const toBearer = await admin.put(`${URL}/${hook.inbound_webhook_id}`, { auth_type: 'bearer' });
    expectStatus(toBearer, 200);
    const generated = toBearer.json().data.secret as string;
    expect(generated).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const toHmac = await admin.put(`${URL}/${hook.inbound_webhook_id}`, { auth_type: 'hmac_sha256', auth_config: { signature_header: 'X-Sig', timestamp_header: 'X-Ts', tolerance_seconds: 120 } });
    expect(toHmac.json().data).toMatchObject({ auth_config: { signature_header: 'x-sig', timestamp_header: 'x-ts', tolerance_seconds: 120 }, has_secret: true });
    expect(toHmac.json().data.secret).toBeUndefined();
    const row = () => t.database.db.selectFrom('inbound_webhooks').select('secret_enc').where('inbound_webhook_id', '=', hook.inbound_webhook_id).executeTakeFirstOrThrow();
    expect(t.app.secretBox.decrypt((await row()).secret_enc!)).toBe(generated);
    const replaced = await admin.put(`${URL}/${hook.inbound_webhook_id}`, { auth_config: { secret: 'my-own-secret-is-long' } });
    expect(replaced.json().data.secret).toBeUndefined();
    expect(replaced.json().data.auth_config).toEqual({ signature_header: 'x-webhook-signature' });
    expect(t.app.secretBox.decrypt((await row()).secret_enc!)).toBe('my-own-secret-is-long');
    expectError(await admin.put(`${URL}/${hook.inbound_webhook_id}`, { auth_type: 'ip_allowlist' }), 400, 'VALIDATION_ERROR');
    const toIps = await admin.put(`${URL}/${hook.inbound_webhook_id}`, { auth_type: 'ip_allowlist', auth_config: { allowed_ips: ['::1'] } });
    expect(toIps.json().data).toMatchObject({ has_secret: false, secret_rotated_at: null });
    expect((await row()).secret_enc).toBeNull();
  });

  it('checks handler changes like create: action, mapping, permissions', async () => {
    const { tenant, admin } = await makeTenant(t);
    const hook = await makeInbound(admin);
    expectError(await admin.put(`${URL}/${hook.inbound_webhook_id}`, { handler_type: 'direct_action' }), 400, 'VALIDATION_ERROR');
    const res = await admin.put(`${URL}/${hook.inbound_webhook_id}`, upsertClient);
    expectStatus(res, 200);
    expect(res.json().data.handler_config.action).toBe('upsert_client_by_external_id');
    expectError(await admin.put(`${URL}/${hook.inbound_webhook_id}`, { handler_config: { action: 'upsert_client_by_external_id', field_mapping: { external_id: '$$$(' } } }), 400, 'VALIDATION_ERROR');
    const manager = await makeUser(t, tenant, { role: 'Manager', scopes: ['inbound_webhook:update', 'inbound_webhook:read'] });
    const denied = await manager.api.put(`${URL}/${hook.inbound_webhook_id}`, { handler_config: { action: 'create_ticket', field_mapping: { title: 'title' } } });
    expectError(denied, 403, 'FORBIDDEN');
    expect(denied.json().error.details.required).toEqual(['ticket:create']);
    // Renaming does not re-check the action.
    expectStatus(await manager.api.put(`${URL}/${hook.inbound_webhook_id}`, { name: 'Renamed by manager' }), 200);
  });

  it('answers 409 for a taken slug, 400 for an empty body, 404 across tenants, 403 without update', async () => {
    const { tenant, admin } = await makeTenant(t);
    const other = await makeTenant(t);
    const a = await makeInbound(admin);
    const b = await makeInbound(admin);
    expectError(await admin.put(`${URL}/${b.inbound_webhook_id}`, { slug: a.slug }), 409, 'CONFLICT');
    expectError(await admin.put(`${URL}/${b.inbound_webhook_id}`, {}), 400, 'VALIDATION_ERROR');
    expectError(await other.admin.put(`${URL}/${a.inbound_webhook_id}`, { name: 'Hijacked' }), 404, 'NOT_FOUND');
    const viewer = await makeUser(t, tenant, { role: 'Viewer' });
    expectError(await viewer.api.put(`${URL}/${a.inbound_webhook_id}`, { name: 'No' }), 403, 'FORBIDDEN');
    expect((await admin.get(`${URL}/${a.inbound_webhook_id}`)).json().data.name).toBe('Inbound');
  });
});

describe('DELETE /api/v1/inbound-webhooks/{id}', () => {
  it('deletes the configuration with its deliveries; the receiver then answers 404', async () => {
    const { tenant, slug, admin } = await makeTenant(t);
    const other = await makeTenant(t);
    const hook = await makeInbound(admin);
    expectStatus(await receive(t, slug, hook.slug, signed(hook.secret!, { a: 1 })), 202);
    expectError(await other.admin.delete(`${URL}/${hook.inbound_webhook_id}`), 404, 'NOT_FOUND');
    const viewer = await makeUser(t, tenant, { role: 'Viewer' });
    expectError(await viewer.api.delete(`${URL}/${hook.inbound_webhook_id}`), 403, 'FORBIDDEN');
    expectError(await admin.delete(`${URL}/${hook.inbound_webhook_id}`, { 'if-match': '"stale"' }), 412, 'PRECONDITION_FAILED');
    const res = await admin.delete(`${URL}/${hook.inbound_webhook_id}`);
    expectStatus(res, 204);
    expect(res.body).toBe('');
    expectError(await admin.get(`${URL}/${hook.inbound_webhook_id}`), 404, 'NOT_FOUND');
    expect(await deliveryRows(t, tenant, hook.inbound_webhook_id)).toEqual([]);
    expectError(await receive(t, slug, hook.slug, signed(hook.secret!, { a: 1 })), 404, 'NOT_FOUND');
    expectError(await admin.delete(`${URL}/${hook.inbound_webhook_id}`), 404, 'NOT_FOUND');
  });
});

describe('POST /api/v1/inbound-webhooks/{id}/rotate-secret', () => {
  it('returns a new secret once; the old one stops working at once', async () => {
    const { tenant, slug, admin } = await makeTenant(t);
    const hook = await makeInbound(admin);
    const res = await admin.post(`${URL}/${hook.inbound_webhook_id}/rotate-secret`);
    expectStatus(res, 200);
    const fresh = res.json().data.secret as string;
    expect(fresh).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(fresh).not.toBe(hook.secret);
    expect(res.json().data.secret_rotated_at).not.toBe(hook.secret_rotated_at);
    expectError(await receive(t, slug, hook.slug, signed(hook.secret!, { a: 1 })), 401, 'UNAUTHORIZED');
    expectStatus(await receive(t, slug, hook.slug, signed(fresh, { a: 1 })), 202);
    expect((await admin.get(`${URL}/${hook.inbound_webhook_id}`)).body).not.toContain(fresh);

    const ips = await makeInbound(admin, { auth_type: 'ip_allowlist', auth_config: { allowed_ips: ['127.0.0.1'] } });
    expectError(await admin.post(`${URL}/${ips.inbound_webhook_id}/rotate-secret`), 422, 'UNPROCESSABLE');
    const viewer = await makeUser(t, tenant, { role: 'Viewer' });
    expectError(await viewer.api.post(`${URL}/${hook.inbound_webhook_id}/rotate-secret`), 403, 'FORBIDDEN');
    expectError(await admin.post(`${URL}/${randomId()}/rotate-secret`), 404, 'NOT_FOUND');
    expectError(await admin.post(`${URL}/${hook.inbound_webhook_id}/rotate-secret`, { secret: 'mine' }), 400, 'VALIDATION_ERROR');
  });
});
