import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/harness.ts';
import { makeTenant, makeUser, type TenantFixture } from '../../../../test/factories.ts';
import { anonymous, eventsOf, expectError, makeClient, randomId } from '../../../../test/client-factories.ts';
import { agentId, startFakeTacticalRmm, type FakeTacticalRmm } from '../../../../test/fakes/tactical-rmm-server.ts';
import { RMM_TEST_ENV, insertAsset, linkAsset, makeIntegration } from '../../../../test/rmm-kit.ts';

let t: TestApp;
let server: FakeTacticalRmm;
let a: TenantFixture;
let b: TenantFixture;
const PC1 = agentId('pcone');
const PC2 = agentId('pctwo');

beforeAll(async () => {
  t = await buildTestApp({ env: RMM_TEST_ENV });
  server = await startFakeTacticalRmm();
  a = await makeTenant(t);
  b = await makeTenant(t);
});
afterAll(async () => {
  await t.close();
  await server.close();
});
beforeEach(() => {
  server.clear();
  server.agents.clear();
  server.agents.set(PC1, { agent_id: PC1, hostname: 'PC-ONE', status: 'online', client: 'Acme Corp' });
  server.agents.set(PC2, { agent_id: PC2, hostname: 'PC-TWO', status: 'offline', client: 'Beta LLC', site: 'Warehouse' });
});

const base = '/api/v1/rmm/integrations';

describe('POST /rmm/integrations', () => {
  it('creates the integration: 201, Location, ETag; the key is sealed, never returned, shown as its last four', async () => {
    const res = await a.admin.post(base, { provider: 'tactical_rmm', name: '  Main RMM ', base_url: `${server.url}/`, api_key: server.apiKey });
    expect(res.statusCode, res.body).toBe(201);
    const data = res.json().data;
    expect(data).toMatchObject({ provider: 'tactical_rmm', name: 'Main RMM', base_url: server.url, is_active: true, has_credentials: true, api_key_last4: server.apiKey.slice(-4), linked_asset_count: 0 });
    expect(res.body).not.toContain(server.apiKey);
    expect(res.headers.location).toBe(`${base}/${data.integration_id}`);
    expect(res.headers.etag).toBeDefined();
    const row = await t.database.db.selectFrom('rmm_integrations').selectAll().where('tenant', '=', a.tenant).where('integration_id', '=', data.integration_id).executeTakeFirstOrThrow();
    expect(row.credentials_enc).not.toContain(server.apiKey);
    expect(JSON.parse(t.app.secretBox.decrypt(row.credentials_enc))).toEqual({ api_key: server.apiKey });
    const events = await eventsOf(t, a.tenant, data.integration_id);
    expect(events.map((e) => e.event_type)).toEqual(['rmm.integration.created']);
    expect(JSON.stringify(events)).not.toContain(server.apiKey);
    // Saving does not call the RMM.
    expect(server.received).toEqual([]);
  });

  it('400 on invalid bodies', async () => {
    const good = { provider: 'tactical_rmm', name: 'X', base_url: server.url, api_key: server.apiKey };
    for (const body of [
      { ...good, extra: 1 },
      { ...good, provider: 'ninja' },
      { ...good, api_key: undefined },
      { ...good, api_key: 'short' },
      { ...good, name: '   ' },
      { ...good, base_url: 'ftp://rmm.example.com' },
      { ...good, base_url: 'not a url at all' },
      { ...good, base_url: 'https://rmm.example.com/?x=1' },
      { ...good, base_url: 'https://user:pw@rmm.example.com' },
    ]) {
      expectError(await a.admin.post(base, body), 400, 'VALIDATION_ERROR');
    }
  });

  it('422 when the base URL points at a private address (outbound policy), 409 on a duplicate name', async () => {
    const res = await a.admin.post(base, { provider: 'tactical_rmm', name: 'Private', base_url: 'http://10.0.0.5', api_key: server.apiKey });
    expectError(res, 422, 'UNPROCESSABLE');
    expect(res.json().error.details).toEqual({ reason: 'unsafe_target' });
    expectError(await a.admin.post(base, { provider: 'tactical_rmm', name: 'Local', base_url: 'http://localhost:8000', api_key: server.apiKey }), 422, 'UNPROCESSABLE');
    await makeIntegration(a.admin, server, { name: 'Twin' });
    expectError(await a.admin.post(base, { provider: 'tactical_rmm', name: 'twin', base_url: server.url, api_key: server.apiKey }), 409, 'CONFLICT');
  });

  it('401 without a valid key; 403 without settings:update', async () => {
    const body = { provider: 'tactical_rmm', name: 'X', base_url: server.url, api_key: server.apiKey };
    expectError(await anonymous(t).post(base, body), 401, 'UNAUTHORIZED');
    const viewer = await makeUser(t, a.tenant, { role: 'Viewer' });
    const res = await viewer.api.post(base, body);
    expectError(res, 403, 'FORBIDDEN');
    expect(res.json().error.details).toEqual({ required: ['settings:update'] });
  });
});

describe('GET /rmm/integrations and /{integrationId}', () => {
  it('lists the tenant’s integrations with filters and pagination; tenant B sees none of them', async () => {
    const tenant = await makeTenant(t);
    const one = await makeIntegration(tenant.admin, server, { name: 'Alpha' });
    await makeIntegration(tenant.admin, server, { name: 'Beta', is_active: false });
    const all = await tenant.admin.get(`${base}?sort=name&order=asc`);
    expect(all.statusCode, all.body).toBe(200);
    expect(all.json().data.map((i: { name: string }) => i.name)).toEqual(['Alpha', 'Beta']);
    expect(all.json().pagination).toMatchObject({ total: 2, page: 1 });
    expect(all.body).not.toContain(server.apiKey);
    const active = await tenant.admin.get(`${base}?is_active=true`);
    expect(active.json().data.map((i: { integration_id: string }) => i.integration_id)).toEqual([one.integration_id]);
    const paged = await tenant.admin.get(`${base}?limit=1&page=2&sort=name&order=asc`);
    expect(paged.json().data.map((i: { name: string }) => i.name)).toEqual(['Beta']);
    expect(paged.json().pagination).toMatchObject({ total: 2, hasPrev: true, hasNext: false });
    expect((await b.admin.get(base)).json().data.map((i: { integration_id: string }) => i.integration_id)).not.toContain(one.integration_id);
  });

  it('gets one with an ETag; 404 for an unknown id and for another tenant’s; 400 for a bad id or query', async () => {
    const integration = await makeIntegration(a.admin, server);
    const res = await a.admin.get(`${base}/${integration.integration_id}`);
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toEqual(integration);
    expect((await a.admin.get(`${base}/${integration.integration_id}`, { 'if-none-match': res.headers.etag as string })).statusCode).toBe(304);
    expectError(await a.admin.get(`${base}/${randomId()}`), 404, 'NOT_FOUND');
    expectError(await b.admin.get(`${base}/${integration.integration_id}`), 404, 'NOT_FOUND');
    expectError(await a.admin.get(`${base}/nope`), 400, 'VALIDATION_ERROR');
    expectError(await a.admin.get(`${base}?provider=other`), 400, 'VALIDATION_ERROR');
    expectError(await a.admin.get(`${base}?unknown=1`), 400, 'VALIDATION_ERROR');
  });

  it('401 without a key; 403 without settings:read', async () => {
    expectError(await anonymous(t).get(base), 401, 'UNAUTHORIZED');
    const tech = await makeUser(t, a.tenant, { role: 'Technician' });
    expectError(await tech.api.get(base), 403, 'FORBIDDEN');
  });
});

describe('PUT /rmm/integrations/{integrationId}', () => {
  it('updates fields, replaces the key (new last four, new ciphertext) and emits the changed field names', async () => {
    const integration = await makeIntegration(a.admin, server);
    const url = `${base}/${integration.integration_id}`;
    const etag = (await a.admin.get(url)).headers.etag as string;
    const res = await a.admin.put(url, { name: 'Renamed', api_key: 'NEWKEY-abcdefgh-WXYZ', is_active: false }, { 'if-match': etag });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ name: 'Renamed', api_key_last4: 'WXYZ', is_active: false });
    const row = await t.database.db.selectFrom('rmm_integrations').select('credentials_enc').where('tenant', '=', a.tenant).where('integration_id', '=', integration.integration_id).executeTakeFirstOrThrow();
    expect(JSON.parse(t.app.secretBox.decrypt(row.credentials_enc))).toEqual({ api_key: 'NEWKEY-abcdefgh-WXYZ' });
    const events = await eventsOf(t, a.tenant, integration.integration_id);
    expect(events.at(-1)).toMatchObject({ event_type: 'rmm.integration.updated', payload: { changed_fields: ['name', 'api_key', 'is_active'] } });
    expect(JSON.stringify(events)).not.toContain('NEWKEY');
  });

  it('412 on a stale If-Match; 400 on an empty or invalid body; 409 on a taken name; 422 on a private URL', async () => {
    const integration = await makeIntegration(a.admin, server);
    const other = await makeIntegration(a.admin, server);
    const url = `${base}/${integration.integration_id}`;
    expectError(await a.admin.put(url, { name: 'X' }, { 'if-match': '"stale"' }), 412, 'PRECONDITION_FAILED');
    expectError(await a.admin.put(url, {}), 400, 'VALIDATION_ERROR');
    expectError(await a.admin.put(url, { provider: 'tactical_rmm' }), 400, 'VALIDATION_ERROR');
    expectError(await a.admin.put(url, { name: other.name.toUpperCase() }), 409, 'CONFLICT');
    expectError(await a.admin.put(url, { base_url: 'http://192.168.1.1' }), 422, 'UNPROCESSABLE');
    expect((await a.admin.get(url)).json().data).toEqual(integration);
  });

  it('404 for unknown ids and other tenants; 401; 403 without settings:update', async () => {
    const integration = await makeIntegration(a.admin, server);
    const url = `${base}/${integration.integration_id}`;
    expectError(await a.admin.put(`${base}/${randomId()}`, { name: 'X' }), 404, 'NOT_FOUND');
    expectError(await b.admin.put(url, { name: 'Hijacked' }), 404, 'NOT_FOUND');
    expectError(await anonymous(t).put(url, { name: 'X' }), 401, 'UNAUTHORIZED');
    expectError(await (await makeUser(t, a.tenant, { role: 'Manager' })).api.put(url, { name: 'X' }), 403, 'FORBIDDEN');
    expect((await a.admin.get(url)).json().data.name).toBe(integration.name);
  });
});

describe('DELETE /rmm/integrations/{integrationId}', () => {
  it('deletes an unused integration (204); 409 naming the count while assets are linked', async () => {
    const unused = await makeIntegration(a.admin, server);
    const del = await a.admin.delete(`${base}/${unused.integration_id}`);
    expect(del.statusCode).toBe(204);
    expect(del.body).toBe('');
    expectError(await a.admin.get(`${base}/${unused.integration_id}`), 404, 'NOT_FOUND');
    expect((await eventsOf(t, a.tenant, unused.integration_id)).map((e) => e.event_type)).toEqual(['rmm.integration.created', 'rmm.integration.deleted']);

    const used = await makeIntegration(a.admin, server);
    const client = await makeClient(a.admin);
    await linkAsset(a.admin, await insertAsset(t, a.tenant, client.client_id), used.integration_id, PC1);
    await linkAsset(a.admin, await insertAsset(t, a.tenant, client.client_id), used.integration_id, PC2);
    const res = await a.admin.delete(`${base}/${used.integration_id}`);
    expectError(res, 409, 'CONFLICT');
    expect(res.json().error.message).toContain('2 asset');
    expect(res.json().error.details).toEqual({ linked_assets: 2 });
    expect((await a.admin.get(`${base}/${used.integration_id}`)).json().data.linked_asset_count).toBe(2);
  });

  it('412 on a stale If-Match; 404; 401; 403', async () => {
    const integration = await makeIntegration(a.admin, server);
    const url = `${base}/${integration.integration_id}`;
    expectError(await a.admin.delete(url, { 'if-match': '"stale"' }), 412, 'PRECONDITION_FAILED');
    expectError(await a.admin.delete(`${base}/${randomId()}`), 404, 'NOT_FOUND');
    expectError(await b.admin.delete(url), 404, 'NOT_FOUND');
    expectError(await anonymous(t).delete(url), 401, 'UNAUTHORIZED');
    expectError(await (await makeUser(t, a.tenant, { role: 'Viewer' })).api.delete(url), 403, 'FORBIDDEN');
    expect((await a.admin.get(url)).statusCode).toBe(200);
  });
});

describe('POST /rmm/integrations/{integrationId}/test', () => {
  it('reports ok with latency and the device count, calling the RMM with the stored key', async () => {
    const integration = await makeIntegration(a.admin, server);
    const res = await a.admin.post(`${base}/${integration.integration_id}/test`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ ok: true, device_count: 2, reason: null, message: null, upstream_status: null });
    expect(res.json().data.latency_ms).toBeGreaterThanOrEqual(0);
    expect(server.received).toEqual([{ method: 'GET', path: '/agents/?detail=false', apiKey: server.apiKey, body: undefined }]);
  });

  it('reports a refused key or a failing server as ok: false with the reason (never the key)', async () => {
    const integration = await makeIntegration(a.admin, server, { api_key: 'WRONG-KEY-0000' });
    const res = await a.admin.post(`${base}/${integration.integration_id}/test`);
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ ok: false, device_count: null, reason: 'auth_failed', upstream_status: 401 });
    expect(res.body).not.toContain('WRONG-KEY');
    const good = await makeIntegration(a.admin, server);
    server.fail({ status: 503, times: 1 });
    expect((await a.admin.post(`${base}/${good.integration_id}/test`)).json().data).toMatchObject({ ok: false, reason: 'unavailable', upstream_status: 503 });
  });

  it('404; 401; 403 without settings:update', async () => {
    const integration = await makeIntegration(a.admin, server);
    expectError(await a.admin.post(`${base}/${randomId()}/test`), 404, 'NOT_FOUND');
    expectError(await b.admin.post(`${base}/${integration.integration_id}/test`), 404, 'NOT_FOUND');
    expectError(await anonymous(t).post(`${base}/${integration.integration_id}/test`), 401, 'UNAUTHORIZED');
    expectError(await (await makeUser(t, a.tenant, { role: 'Viewer' })).api.post(`${base}/${integration.integration_id}/test`), 403, 'FORBIDDEN');
    expect(server.received).toEqual([]);
  });
});

describe('GET /rmm/integrations/{integrationId}/devices', () => {
  it('lists the RMM’s agents sorted by hostname, marks linked ones, filters and pages', async () => {
    const integration = await makeIntegration(a.admin, server);
    const client = await makeClient(a.admin);
    const assetId = await insertAsset(t, a.tenant, client.client_id);
    await linkAsset(a.admin, assetId, integration.integration_id, PC2);
    const url = `${base}/${integration.integration_id}/devices`;
    const res = await a.admin.get(url);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toEqual([
      expect.objectContaining({ device_id: PC1, hostname: 'PC-ONE', status: 'online', client_name: 'Acme Corp', site_name: 'HQ', platform: 'windows', linked_asset_id: null }),
      expect.objectContaining({ device_id: PC2, hostname: 'PC-TWO', status: 'offline', client_name: 'Beta LLC', site_name: 'Warehouse', linked_asset_id: assetId }),
    ]);
    expect(res.json().pagination).toMatchObject({ total: 2 });
    expect((await a.admin.get(`${url}?search=beta`)).json().data.map((d: { device_id: string }) => d.device_id)).toEqual([PC2]);
    expect((await a.admin.get(`${url}?status=online`)).json().data.map((d: { device_id: string }) => d.device_id)).toEqual([PC1]);
    expect((await a.admin.get(`${url}?linked=false`)).json().data.map((d: { device_id: string }) => d.device_id)).toEqual([PC1]);
    const page2 = (await a.admin.get(`${url}?limit=1&page=2`)).json();
    expect(page2.data.map((d: { device_id: string }) => d.device_id)).toEqual([PC2]);
    expect(page2.pagination).toMatchObject({ total: 2, totalPages: 2, hasNext: false, hasPrev: true });
  });

  it('502 UPSTREAM_ERROR when the RMM fails or refuses the key; 409 when the integration is inactive', async () => {
    const integration = await makeIntegration(a.admin, server);
    const url = `${base}/${integration.integration_id}/devices`;
    server.fail({ status: 500, times: 1 });
    const res = await a.admin.get(url);
    expectError(res, 502, 'UPSTREAM_ERROR');
    expect(res.json().error.details).toEqual({ provider: 'tactical_rmm', reason: 'unavailable', upstream_status: 500 });
    const wrong = await makeIntegration(a.admin, server, { api_key: 'WRONG-KEY-0000' });
    const refused = await a.admin.get(`${base}/${wrong.integration_id}/devices`);
    expectError(refused, 502, 'UPSTREAM_ERROR');
    expect(refused.json().error.details.reason).toBe('auth_failed');
    expect(refused.body).not.toContain('WRONG-KEY');
    const inactive = await makeIntegration(a.admin, server, { is_active: false });
    expectError(await a.admin.get(`${base}/${inactive.integration_id}/devices`), 409, 'CONFLICT');
  });

  it('400 on bad queries; 404; 401; 403 without settings:read', async () => {
    const integration = await makeIntegration(a.admin, server);
    const url = `${base}/${integration.integration_id}/devices`;
    expectError(await a.admin.get(`${url}?limit=500`), 400, 'VALIDATION_ERROR');
    expectError(await a.admin.get(`${url}?status=sleeping`), 400, 'VALIDATION_ERROR');
    expectError(await a.admin.get(`${base}/${randomId()}/devices`), 404, 'NOT_FOUND');
    expectError(await b.admin.get(url), 404, 'NOT_FOUND');
    expectError(await anonymous(t).get(url), 401, 'UNAUTHORIZED');
    expectError(await (await makeUser(t, a.tenant, { role: 'Technician' })).api.get(url), 403, 'FORBIDDEN');
    expect(server.received).toEqual([]);
  });
});
