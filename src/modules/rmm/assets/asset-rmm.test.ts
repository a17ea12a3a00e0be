import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/harness.ts';
import { makeTenant, makeUser, type Api, type TenantFixture } from '../../../../test/factories.ts';
import { anonymous, eventsOf, expectError, makeClient, randomId } from '../../../../test/client-factories.ts';
import { agentId, sampleSoftware, startFakeTacticalRmm, type FakeTacticalRmm } from '../../../../test/fakes/tactical-rmm-server.ts';
import { RMM_TEST_ENV, insertAsset, linkAsset, makeIntegration } from '../../../../test/rmm-kit.ts';

let t: TestApp;
let server: FakeTacticalRmm;
let a: TenantFixture;
let b: TenantFixture;
let integrationId: string;
let clientId: string;
const PC1 = agentId('pcone');
const PC2 = agentId('pctwo');

beforeAll(async () => {
  t = await buildTestApp({ env: RMM_TEST_ENV });
  server = await startFakeTacticalRmm();
  a = await makeTenant(t);
  b = await makeTenant(t);
  integrationId = (await makeIntegration(a.admin, server)).integration_id;
  clientId = (await makeClient(a.admin)).client_id;
});
afterAll(async () => {
  await t.close();
  await server.close();
});
beforeEach(() => {
  server.clear();
  server.agents.clear();
  server.agents.set(PC1, { agent_id: PC1, hostname: 'PC-ONE', status: 'online', software: sampleSoftware() });
  server.agents.set(PC2, { agent_id: PC2, hostname: 'PC-TWO', status: 'offline', software: null });
});

const asset = () => insertAsset(t, a.tenant, clientId);
/** A device of its own for each test: a device links to one asset per integration, and tests share the tenant. */
function freshDevice(status: 'online' | 'offline' = 'online'): string {
  const deviceId = agentId(`dev${Math.random().toString(36).slice(2, 10).replace(/\d/g, 'q')}`);
  server.agents.set(deviceId, { agent_id: deviceId, hostname: `HOST-${deviceId.slice(3, 9)}`, status, software: sampleSoftware() });
  return deviceId;
}
/** A fresh asset linked to a fresh device. */
async function linkedAsset(status: 'online' | 'offline' = 'online'): Promise<{ assetId: string; deviceId: string }> {
  const deviceId = freshDevice(status);
  const assetId = await asset();
  await linkAsset(a.admin, assetId, integrationId, deviceId);
  server.clear();
  return { assetId, deviceId };
}
const role = async (name: string): Promise<Api> => (await makeUser(t, a.tenant, { role: name })).api;

describe('PUT /assets/{id}/rmm (link)', () => {
  it('fetches the device and its software, caches them and returns the link', async () => {
    const assetId = await asset();
    const res = await a.admin.put(`/api/v1/assets/${assetId}/rmm`, { integration_id: integrationId, device_id: PC1 });
    expect(res.statusCode, res.body).toBe(200);
    const data = res.json().data;
    expect(data).toMatchObject({ asset_id: assetId, integration_id: integrationId, provider: 'tactical_rmm', device_id: PC1, agent_status: 'online' });
    expect(data.device).toMatchObject({ device_id: PC1, hostname: 'PC-ONE', os: expect.stringContaining('Windows 11'), memory_gb: 32, public_ip: '203.0.113.10' });
    expect(data.last_synced_at).toEqual(data.linked_at);
    expect(server.received.map((r) => `${r.method} ${r.path}`)).toEqual([`GET /agents/${PC1}/`, `GET /software/${PC1}/`]);
    const software = (await a.admin.get(`/api/v1/assets/${assetId}/software`)).json();
    expect(software.pagination.total).toBe(3);
    expect(software.meta.last_synced_at).toBe(data.last_synced_at);
    const events = await eventsOf(t, a.tenant, assetId);
    expect(events.at(-1)).toMatchObject({ event_type: 'asset.rmm.linked', payload: { asset_id: assetId, integration_id: integrationId, device_id: PC1, hostname: 'PC-ONE' } });
  });

  it('relinks to another device; 409 when the device is linked to another asset', async () => {
    const { assetId } = await linkedAsset();
    const second = freshDevice('offline');
    const relinked = await linkAsset(a.admin, assetId, integrationId, second);
    expect(relinked).toMatchObject({ device_id: second, agent_status: 'offline' });
    const other = await asset();
    const res = await a.admin.put(`/api/v1/assets/${other}/rmm`, { integration_id: integrationId, device_id: second });
    expectError(res, 409, 'CONFLICT');
    expect(res.json().error.details).toEqual({ reason: 'device_linked', asset_id: assetId });
    expectError(await a.admin.get(`/api/v1/assets/${other}/rmm`), 409, 'CONFLICT');
  });

  it('422 when the RMM has no such device; 502 when the RMM fails; 409 when the integration is inactive', async () => {
    const assetId = await asset();
    const res = await a.admin.put(`/api/v1/assets/${assetId}/rmm`, { integration_id: integrationId, device_id: agentId('ghost') });
    expectError(res, 422, 'UNPROCESSABLE');
    expect(res.json().error.details).toEqual({ reason: 'device_not_found', provider: 'tactical_rmm' });
    server.fail({ status: 500, times: 1 });
    expectError(await a.admin.put(`/api/v1/assets/${assetId}/rmm`, { integration_id: integrationId, device_id: freshDevice() }), 502, 'UPSTREAM_ERROR');
    const inactive = await makeIntegration(a.admin, server, { is_active: false });
    expectError(await a.admin.put(`/api/v1/assets/${assetId}/rmm`, { integration_id: inactive.integration_id, device_id: PC1 }), 409, 'CONFLICT');
    expectError(await a.admin.get(`/api/v1/assets/${assetId}/rmm`), 409, 'CONFLICT');
  });

  it('400 on invalid bodies; 404 for unknown or foreign assets and integrations; 401; 403 without asset:update', async () => {
    const assetId = await asset();
    const url = `/api/v1/assets/${assetId}/rmm`;
    for (const body of [{}, { integration_id: integrationId }, { integration_id: integrationId, device_id: '../x' }, { integration_id: 'x', device_id: PC1 }, { integration_id: integrationId, device_id: PC1, extra: 1 }]) {
      expectError(await a.admin.put(url, body), 400, 'VALIDATION_ERROR');
    }
    expectError(await a.admin.put(`/api/v1/assets/${randomId()}/rmm`, { integration_id: integrationId, device_id: PC1 }), 404, 'NOT_FOUND');
    expectError(await a.admin.put(url, { integration_id: randomId(), device_id: PC1 }), 404, 'NOT_FOUND');
    const foreign = await makeIntegration(b.admin, server);
    expectError(await a.admin.put(url, { integration_id: foreign.integration_id, device_id: PC1 }), 404, 'NOT_FOUND');
    expectError(await b.admin.put(url, { integration_id: foreign.integration_id, device_id: PC1 }), 404, 'NOT_FOUND');
    expectError(await anonymous(t).put(url, { integration_id: integrationId, device_id: PC1 }), 401, 'UNAUTHORIZED');
    expectError(await (await role('Viewer')).put(url, { integration_id: integrationId, device_id: PC1 }), 403, 'FORBIDDEN');
    expect(server.received).toEqual([]);
    expectError(await a.admin.get(url), 409, 'CONFLICT');
  });
});

describe('link lifecycle', () => {
  it('two assets racing for one device: exactly one wins, the other gets 409', async () => {
    const deviceId = freshDevice();
    const [x, y] = [await asset(), await asset()];
    const results = await Promise.all([x, y].map((id) => a.admin.put(`/api/v1/assets/${id}/rmm`, { integration_id: integrationId, device_id: deviceId })));
    expect(results.map((r) => r.statusCode).sort()).toEqual([200, 409]);
    const links = await t.database.db.selectFrom('asset_rmm_links').select('asset_id').where('tenant', '=', a.tenant).where('external_device_id', '=', deviceId).execute();
    expect(links).toHaveLength(1);
  });

  it('deleting the asset removes its link, so the integration can be deleted afterwards', async () => {
    const integration = await makeIntegration(a.admin, server);
    const deviceId = freshDevice();
    const assetId = await asset();
    await linkAsset(a.admin, assetId, integration.integration_id, deviceId);
    expectError(await a.admin.delete(`/api/v1/rmm/integrations/${integration.integration_id}`), 409, 'CONFLICT');
    const deleted = await a.admin.delete(`/api/v1/assets/${assetId}`);
    expect(deleted.statusCode, deleted.body).toBe(204);
    expect((await a.admin.get(`/api/v1/rmm/integrations/${integration.integration_id}`)).json().data.linked_asset_count).toBe(0);
    expect((await a.admin.delete(`/api/v1/rmm/integrations/${integration.integration_id}`)).statusCode).toBe(204);
  });
});

describe('GET /assets/{id}/rmm', () => {
  it('returns the cached device without calling the RMM', async () => {
    const { assetId, deviceId } = await linkedAsset();
    const res = await a.admin.get(`/api/v1/assets/${assetId}/rmm`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ device_id: deviceId, agent_status: 'online', device: { hostname: `HOST-${deviceId.slice(3, 9)}` } });
    expect(res.headers.etag).toBeDefined();
    expect((await a.admin.get(`/api/v1/assets/${assetId}/rmm`, { 'if-none-match': res.headers.etag as string })).statusCode).toBe(304);
    expect(server.received).toEqual([]);
  });

  it('409 with a clear message when the asset has no RMM link', async () => {
    const res = await a.admin.get(`/api/v1/assets/${await asset()}/rmm`);
    expectError(res, 409, 'CONFLICT');
    expect(res.json().error.message).toContain('not connected to an RMM device');
  });

  it('404 for unknown and foreign assets; 400 for a bad id; 401; 403 without asset:read', async () => {
    const { assetId } = await linkedAsset();
    expectError(await a.admin.get(`/api/v1/assets/${randomId()}/rmm`), 404, 'NOT_FOUND');
    expectError(await b.admin.get(`/api/v1/assets/${assetId}/rmm`), 404, 'NOT_FOUND');
    expectError(await a.admin.get('/api/v1/assets/nope/rmm'), 400, 'VALIDATION_ERROR');
    expectError(await a.admin.get(`/api/v1/assets/${assetId}/rmm?x=1`), 400, 'VALIDATION_ERROR');
    expectError(await anonymous(t).get(`/api/v1/assets/${assetId}/rmm`), 401, 'UNAUTHORIZED');
    expectError(await (await role('Finance')).get(`/api/v1/assets/${assetId}/rmm`), 403, 'FORBIDDEN');
  });
});

describe('GET /assets/{id}/software', () => {
  it('returns the cached inventory paged, sorted and filtered by search, without calling the RMM', async () => {
    const { assetId, deviceId } = await linkedAsset();
    const res = await a.admin.get(`/api/v1/assets/${assetId}/software`);
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body.meta).toMatchObject({ asset_id: assetId, device_id: deviceId });
    expect(body.pagination).toMatchObject({ total: 3, page: 1, limit: 25 });
    expect(body.data.map((s: { name: string }) => s.name)).toEqual(['7-Zip 23.01 (x64)', 'Google Chrome', 'Microsoft Edge']);
    expect(body.data[0]).toEqual({ name: '7-Zip 23.01 (x64)', version: '23.01', publisher: 'Igor Pavlov', installed_on: '2024-01-15', size: '5.6 MB', location: 'C:\\Program Files\\7-Zip\\' });
    const filtered = (await a.admin.get(`/api/v1/assets/${assetId}/software?search=google`)).json();
    expect(filtered.data.map((s: { name: string }) => s.name)).toEqual(['Google Chrome']);
    expect(filtered.pagination.total).toBe(1);
    const byDate = (await a.admin.get(`/api/v1/assets/${assetId}/software?sort=installed_on&order=desc`)).json();
    expect(byDate.data.map((s: { installed_on: string | null }) => s.installed_on)).toEqual(['2024-11-02', '2024-01-15', null]);
    const page2 = (await a.admin.get(`/api/v1/assets/${assetId}/software?limit=2&page=2`)).json();
    expect(page2.data.map((s: { name: string }) => s.name)).toEqual(['Microsoft Edge']);
    expect(page2.pagination).toMatchObject({ total: 3, totalPages: 2, hasPrev: true, hasNext: false });
    expect(server.received).toEqual([]);
  });

  it('an empty list with last_synced_at null before the first sync', async () => {
    const assetId = await asset();
    await t.database.db.insertInto('asset_rmm_links').values({ tenant: a.tenant, asset_id: assetId, integration_id: integrationId, external_device_id: agentId('neversynced') }).execute();
    const res = await a.admin.get(`/api/v1/assets/${assetId}/software`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ data: [], pagination: { total: 0 }, meta: { last_synced_at: null } });
    expect((await a.admin.get(`/api/v1/assets/${assetId}/rmm`)).json().data).toMatchObject({ device: null, agent_status: 'unknown', last_synced_at: null });
  });

  it('409 when not linked; 404; 400; 401; 403 without asset:read', async () => {
    const { assetId } = await linkedAsset();
    expectError(await a.admin.get(`/api/v1/assets/${await asset()}/software`), 409, 'CONFLICT');
    expectError(await a.admin.get(`/api/v1/assets/${randomId()}/software`), 404, 'NOT_FOUND');
    expectError(await b.admin.get(`/api/v1/assets/${assetId}/software`), 404, 'NOT_FOUND');
    for (const q of ['?search=', '?limit=101', '?sort=size', '?page=0', '?x=1']) {
      expectError(await a.admin.get(`/api/v1/assets/${assetId}/software${q}`), 400, 'VALIDATION_ERROR');
    }
    expectError(await anonymous(t).get(`/api/v1/assets/${assetId}/software`), 401, 'UNAUTHORIZED');
    expectError(await (await role('Finance')).get(`/api/v1/assets/${assetId}/software`), 403, 'FORBIDDEN');
  });
});

describe('DELETE /assets/{id}/rmm (unlink)', () => {
  it('removes the link and its cache (204) and frees the device for another asset', async () => {
    const { assetId, deviceId } = await linkedAsset();
    const res = await a.admin.delete(`/api/v1/assets/${assetId}/rmm`);
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    expectError(await a.admin.get(`/api/v1/assets/${assetId}/rmm`), 409, 'CONFLICT');
    expect((await eventsOf(t, a.tenant, assetId)).at(-1)).toMatchObject({ event_type: 'asset.rmm.unlinked', payload: { device_id: deviceId } });
    await linkAsset(a.admin, await asset(), integrationId, deviceId);
  });

  it('409 when not linked; 404; 401; 403 without asset:update', async () => {
    const { assetId } = await linkedAsset();
    expectError(await a.admin.delete(`/api/v1/assets/${await asset()}/rmm`), 409, 'CONFLICT');
    expectError(await a.admin.delete(`/api/v1/assets/${randomId()}/rmm`), 404, 'NOT_FOUND');
    expectError(await b.admin.delete(`/api/v1/assets/${assetId}/rmm`), 404, 'NOT_FOUND');
    expectError(await anonymous(t).delete(`/api/v1/assets/${assetId}/rmm`), 401, 'UNAUTHORIZED');
    expectError(await (await role('Viewer')).delete(`/api/v1/assets/${assetId}/rmm`), 403, 'FORBIDDEN');
    expect((await a.admin.get(`/api/v1/assets/${assetId}/rmm`)).statusCode).toBe(200);
  });
});

describe('client-portal keys', () => {
  it('read their own client’s RMM data, never another client’s, and never change links or run commands', async () => {
    const { assetId } = await linkedAsset();
    const portal = await makeUser(t, a.tenant, { role: 'Client Admin', userType: 'client', clientId });
    expect((await portal.api.get(`/api/v1/assets/${assetId}/rmm`)).statusCode).toBe(200);
    expect((await portal.api.get(`/api/v1/assets/${assetId}/software`)).statusCode).toBe(200);
    expectError(await portal.api.post(`/api/v1/assets/${assetId}/rmm/reboot`), 403, 'FORBIDDEN');
    expectError(await portal.api.delete(`/api/v1/assets/${assetId}/rmm`), 403, 'FORBIDDEN');
    const otherClient = (await makeClient(a.admin)).client_id;
    const elsewhere = await insertAsset(t, a.tenant, otherClient);
    await linkAsset(a.admin, elsewhere, integrationId, freshDevice());
    expectError(await portal.api.get(`/api/v1/assets/${elsewhere}/rmm`), 404, 'NOT_FOUND');
    expectError(await portal.api.get(`/api/v1/assets/${elsewhere}/software`), 404, 'NOT_FOUND');
    expect(server.received.filter((r) => r.method === 'POST')).toEqual([]);
  });
});
