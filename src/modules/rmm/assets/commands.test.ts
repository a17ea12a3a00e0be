import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/harness.ts';
import { makeTenant, makeUser, type Api, type TenantFixture } from '../../../../test/factories.ts';
import { anonymous, eventsOf, expectError, makeClient, randomId } from '../../../../test/client-factories.ts';
import { agentId, sampleSoftware, startFakeTacticalRmm, type FakeTacticalRmm } from '../../../../test/fakes/tactical-rmm-server.ts';
import { RMM_TEST_ENV, insertAsset, linkAsset, makeIntegration, rmmHistory } from '../../../../test/rmm-kit.ts';

let t: TestApp;
let server: FakeTacticalRmm;
let a: TenantFixture;
let b: TenantFixture;
let integrationId: string;
let clientId: string;

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
beforeEach(() => server.clear());

let seq = 0;
/** A fresh asset linked to a fresh device (a device links to one asset per integration). */
async function linkedAsset(status: 'online' | 'offline' = 'online'): Promise<{ assetId: string; deviceId: string }> {
  const deviceId = agentId(`cmd${'abcdefghijklmnopqrstuvwxyz'[seq % 26]}${'abcdefghijklmnopqrstuvwxyz'[Math.floor(seq++ / 26) % 26]}${process.pid.toString(26).replace(/\d/g, 'z')}`);
  server.agents.set(deviceId, { agent_id: deviceId, hostname: 'DESK-01', status, software: sampleSoftware() });
  const assetId = await insertAsset(t, a.tenant, clientId);
  await linkAsset(a.admin, assetId, integrationId, deviceId);
  server.clear();
  return { assetId, deviceId };
}
const unlinkedAsset = () => insertAsset(t, a.tenant, clientId);
const role = async (name: string): Promise<Api> => (await makeUser(t, a.tenant, { role: name })).api;

/** The shared 400/401/403/404/409 cases of a command route; `call` sends the command for one asset with one key. */
async function commonFailures(call: (api: Api, assetId: string) => Promise<Awaited<ReturnType<Api['get']>>>) {
  const { assetId } = await linkedAsset();
  expectError(await call(a.admin, 'not-a-uuid'), 400, 'VALIDATION_ERROR');
  expectError(await call(anonymous(t), assetId), 401, 'UNAUTHORIZED');
  const viewer = await call(await role('Viewer'), assetId);
  expectError(viewer, 403, 'FORBIDDEN');
  expect(viewer.json().error.details.required).toContain('rmm:execute');
  expectError(await call(a.admin, randomId()), 404, 'NOT_FOUND');
  expectError(await call(b.admin, assetId), 404, 'NOT_FOUND');
  const notLinked = await call(a.admin, await unlinkedAsset());
  expectError(notLinked, 409, 'CONFLICT');
  expect(notLinked.json().error.message).toContain('not connected to an RMM device');
  expect(server.received).toEqual([]);
  expect(await rmmHistory(t, a.tenant, assetId)).toEqual([]);
}

describe('POST /assets/{id}/rmm/refresh', () => {
  it('fetches the device and software again, replaces the cache and records the command', async () => {
    const { assetId, deviceId } = await linkedAsset();
    const before = (await a.admin.get(`/api/v1/assets/${assetId}/rmm`)).json().data;
    server.agents.set(deviceId, { agent_id: deviceId, hostname: 'DESK-01-RENAMED', status: 'overdue', software: sampleSoftware().slice(0, 1) });
    const tech = await makeUser(t, a.tenant, { role: 'Technician' });
    const res = await tech.api.post(`/api/v1/assets/${assetId}/rmm/refresh`);
    expect(res.statusCode, res.body).toBe(200);
    const data = res.json().data;
    expect(data).toMatchObject({ agent_status: 'overdue', device: { hostname: 'DESK-01-RENAMED' } });
    expect(new Date(data.last_synced_at).getTime()).toBeGreaterThanOrEqual(new Date(before.last_synced_at).getTime());
    expect((await a.admin.get(`/api/v1/assets/${assetId}/software`)).json().pagination.total).toBe(1);
    expect(server.received.map((r) => `${r.method} ${r.path}`)).toEqual([`GET /agents/${deviceId}/`, `GET /software/${deviceId}/`]);
    expect(await rmmHistory(t, a.tenant, assetId)).toEqual([
      {
        entry_type: 'rmm_command',
        command: 'refresh',
        description: 'Refreshed device data from Tactical RMM',
        performed_by: tech.userId,
        details: { provider: 'tactical_rmm', integration_id: integrationId, device_id: deviceId, outcome: 'succeeded', agent_status: 'overdue', software_count: 1 },
      },
    ]);
    expect((await eventsOf(t, a.tenant, assetId)).at(-1)).toMatchObject({ event_type: 'asset.rmm.command', payload: { command: 'refresh', outcome: 'succeeded' } });
  });

  it('a provider failure is 502, keeps the old cache and is recorded as failed', async () => {
    const { assetId } = await linkedAsset();
    server.fail({ status: 500, times: 1 });
    const res = await a.admin.post(`/api/v1/assets/${assetId}/rmm/refresh`);
    expectError(res, 502, 'UPSTREAM_ERROR');
    expect(res.json().error.details).toEqual({ provider: 'tactical_rmm', reason: 'unavailable', upstream_status: 500 });
    expect((await a.admin.get(`/api/v1/assets/${assetId}/rmm`)).json().data.device.hostname).toBe('DESK-01');
    const [entry] = await rmmHistory(t, a.tenant, assetId);
    expect(entry).toMatchObject({ command: 'refresh', description: 'Refreshed device data from Tactical RMM (failed)', details: { outcome: 'failed', error: { reason: 'unavailable', upstream_status: 500 } } });
  });

  it('a key the RMM refuses is 502 auth_failed, without the key in the response or history', async () => {
    const integration = await makeIntegration(a.admin, server);
    const deviceId = agentId('authfail');
    server.agents.set(deviceId, { agent_id: deviceId, hostname: 'AUTH', status: 'online', software: [] });
    const assetId = await unlinkedAsset();
    await linkAsset(a.admin, assetId, integration.integration_id, deviceId);
    expect((await a.admin.put(`/api/v1/rmm/integrations/${integration.integration_id}`, { api_key: 'REVOKED-KEY-1234' })).statusCode).toBe(200);
    const res = await a.admin.post(`/api/v1/assets/${assetId}/rmm/refresh`);
    expectError(res, 502, 'UPSTREAM_ERROR');
    expect(res.json().error.details.reason).toBe('auth_failed');
    expect(res.body).not.toContain('REVOKED');
    expect(JSON.stringify(await rmmHistory(t, a.tenant, assetId))).not.toContain('REVOKED');
  });

  it('409 when the integration is inactive', async () => {
    const integration = await makeIntegration(a.admin, server);
    const deviceId = agentId('inactive');
    server.agents.set(deviceId, { agent_id: deviceId, hostname: 'OFF', status: 'online', software: [] });
    const assetId = await unlinkedAsset();
    await linkAsset(a.admin, assetId, integration.integration_id, deviceId);
    await a.admin.put(`/api/v1/rmm/integrations/${integration.integration_id}`, { is_active: false });
    server.clear();
    expectError(await a.admin.post(`/api/v1/assets/${assetId}/rmm/refresh`), 409, 'CONFLICT');
    expect(server.received).toEqual([]);
  });

  it('400, 401, 403 (no rmm:execute), 404, 409', () => commonFailures((api, id) => api.post(`/api/v1/assets/${id}/rmm/refresh`)));
});

describe('POST /assets/{id}/rmm/reboot', () => {
  it('tells the RMM to reboot now (202) and records it', async () => {
    const { assetId, deviceId } = await linkedAsset();
    const manager = await makeUser(t, a.tenant, { role: 'Manager' });
    const res = await manager.api.post(`/api/v1/assets/${assetId}/rmm/reboot`);
    expect(res.statusCode, res.body).toBe(202);
    expect(res.json().data).toMatchObject({ command: 'reboot', status: 'accepted', output: null });
    expect(server.received.map((r) => `${r.method} ${r.path}`)).toEqual([`POST /agents/${deviceId}/reboot/`]);
    const history = await rmmHistory(t, a.tenant, assetId);
    expect(history).toEqual([expect.objectContaining({ command: 'reboot', performed_by: manager.userId, details: expect.objectContaining({ outcome: 'succeeded' }) })]);
    const row = await t.database.db.selectFrom('asset_history').select('history_id').where('tenant', '=', a.tenant).where('asset_id', '=', assetId).executeTakeFirstOrThrow();
    expect(res.json().data.history_id).toBe(row.history_id);
    // The asset's own timeline shows it.
    const timeline = await a.admin.get(`/api/v1/assets/${assetId}/history?entry_type=rmm_command`);
    expect(timeline.statusCode, timeline.body).toBe(200);
    expect(timeline.json().data).toEqual([expect.objectContaining({ entry_type: 'rmm_command', command: 'reboot', performed_by: manager.userId })]);
  });

  it('an Idempotency-Key replays the first answer instead of rebooting twice', async () => {
    const { assetId } = await linkedAsset();
    const first = await a.admin.post(`/api/v1/assets/${assetId}/rmm/reboot`, undefined, { 'idempotency-key': 'reboot-once' });
    const again = await a.admin.post(`/api/v1/assets/${assetId}/rmm/reboot`, undefined, { 'idempotency-key': 'reboot-once' });
    expect(first.statusCode).toBe(202);
    expect(again.statusCode).toBe(202);
    expect(again.json()).toEqual(first.json());
    expect(server.received.filter((r) => r.path.endsWith('/reboot/'))).toHaveLength(1);
    expect(await rmmHistory(t, a.tenant, assetId)).toHaveLength(1);
  });

  it('an agent the RMM cannot reach is 502 rejected with the RMM’s words, recorded as failed', async () => {
    const { assetId } = await linkedAsset('offline');
    const res = await a.admin.post(`/api/v1/assets/${assetId}/rmm/reboot`);
    expectError(res, 502, 'UPSTREAM_ERROR');
    expect(res.json().error.message).toContain('Unable to contact the agent');
    expect((await rmmHistory(t, a.tenant, assetId))[0]).toMatchObject({ command: 'reboot', details: { outcome: 'failed', error: { reason: 'rejected', upstream_status: 400 } } });
  });

  it('400, 401, 403 (no rmm:execute), 404, 409', () => commonFailures((api, id) => api.post(`/api/v1/assets/${id}/rmm/reboot`)));
});

describe('GET /assets/{id}/rmm/remote-control', () => {
  it('returns the session URLs uncached and records the session without storing its URL', async () => {
    const { assetId, deviceId } = await linkedAsset();
    const res = await a.admin.get(`/api/v1/assets/${assetId}/rmm/remote-control`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const data = res.json().data;
    expect(data.control_url).toMatch(/^https:\/\/mesh\.example\.com\/.*viewmode=11/);
    expect(data.terminal_url).toContain('viewmode=12');
    expect(data.file_url).toContain('viewmode=13');
    expect(server.received.map((r) => `${r.method} ${r.path}`)).toEqual([`GET /agents/${deviceId}/meshcentral/`]);
    const history = await rmmHistory(t, a.tenant, assetId);
    expect(history).toEqual([expect.objectContaining({ command: 'remote_control', details: expect.objectContaining({ outcome: 'succeeded' }) })]);
    expect(JSON.stringify(history)).not.toContain('login=');
  });

  it('502 when the RMM sends no usable URL', async () => {
    const { assetId } = await linkedAsset();
    server.fail({ status: 200, body: '{"hostname": "x"}', times: 1 });
    expectError(await a.admin.get(`/api/v1/assets/${assetId}/rmm/remote-control`), 502, 'UPSTREAM_ERROR');
    expect((await rmmHistory(t, a.tenant, assetId))[0]).toMatchObject({ details: { outcome: 'failed', error: { reason: 'invalid_response' } } });
  });

  it('400, 401, 403 (no rmm:execute), 404, 409', () => commonFailures((api, id) => api.get(`/api/v1/assets/${id}/rmm/remote-control`)));
});

describe('POST /assets/{id}/rmm/script', () => {
  it('output wait: 200 with the output; history keeps the shape, never the arguments or values', async () => {
    const { assetId, deviceId } = await linkedAsset();
    const res = await a.admin.post(`/api/v1/assets/${assetId}/rmm/script`, { script_id: 1, args: ['-Password', 'hunter2'], env_vars: ['TOKEN=s3cret'], timeout_seconds: 30 });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ command: 'script', status: 'completed', output: 'Removed 42 files\n', message: null });
    expect(server.received[0]).toMatchObject({
      method: 'POST',
      path: `/agents/${deviceId}/runscript/`,
      body: { script: 1, output: 'wait', args: ['-Password', 'hunter2'], env_vars: ['TOKEN=s3cret'], run_as_user: false, timeout: 30 },
    });
    const history = await rmmHistory(t, a.tenant, assetId);
    expect(history[0]).toMatchObject({
      command: 'script',
      description: 'Script 1 run through Tactical RMM',
      details: { outcome: 'succeeded', status: 'completed', output_length: 17, script: { script_id: 1, args_count: 2, env_var_names: ['TOKEN'], output_mode: 'wait', timeout_seconds: 30, run_as_user: false } },
    });
    expect(JSON.stringify(history)).not.toMatch(/hunter2|s3cret|Removed 42/);
  });

  it('output forget: 202 accepted with the RMM’s message', async () => {
    const { assetId } = await linkedAsset();
    const res = await a.admin.post(`/api/v1/assets/${assetId}/rmm/script`, { script_id: 1, output: 'forget', run_as_user: true });
    expect(res.statusCode, res.body).toBe(202);
    expect(res.json().data).toMatchObject({ status: 'accepted', output: null, message: 'Clear temp files will now be run on DESK-01' });
    expect(server.received[0]!.body).toMatchObject({ output: 'forget', run_as_user: true, args: [], env_vars: [], timeout: 90 });
  });

  it('an unknown script is 502 not_found, recorded as failed', async () => {
    const { assetId } = await linkedAsset();
    const res = await a.admin.post(`/api/v1/assets/${assetId}/rmm/script`, { script_id: 404 });
    expectError(res, 502, 'UPSTREAM_ERROR');
    expect(res.json().error.details.reason).toBe('not_found');
    expect((await rmmHistory(t, a.tenant, assetId))[0]).toMatchObject({ details: { outcome: 'failed', script: { script_id: 404 } } });
  });

  it('400 on invalid bodies, before anything is sent', async () => {
    const { assetId } = await linkedAsset();
    const url = `/api/v1/assets/${assetId}/rmm/script`;
    for (const body of [{}, { script_id: 0 }, { script_id: 'one' }, { script_id: 1, output: 'email' }, { script_id: 1, timeout_seconds: 0 }, { script_id: 1, timeout_seconds: 601 }, { script_id: 1, env_vars: ['no equals'] }, { script_id: 1, args: Array(51).fill('x') }, { script_id: 1, shell: 'cmd' }]) {
      expectError(await a.admin.post(url, body), 400, 'VALIDATION_ERROR');
    }
    expect(server.received).toEqual([]);
    expect(await rmmHistory(t, a.tenant, assetId)).toEqual([]);
  });

  it('400, 401, 403 (no rmm:execute), 404, 409', () => commonFailures((api, id) => api.post(`/api/v1/assets/${id}/rmm/script`, { script_id: 1 })));
});

describe('permissions', () => {
  it('rmm:execute alone is not enough: reading the asset is required too', async () => {
    const { assetId } = await linkedAsset();
    const created = await a.admin.post('/api/v1/roles', { role_name: `Executor ${Date.now()}`, permissions: ['rmm:execute'] });
    expect(created.statusCode, created.body).toBe(201);
    const user = await makeUser(t, a.tenant);
    expect((await a.admin.put(`/api/v1/users/${user.userId}/roles`, { role_ids: [created.json().data.role_id] })).statusCode).toBe(200);
    const res = await user.api.post(`/api/v1/assets/${assetId}/rmm/reboot`);
    expectError(res, 403, 'FORBIDDEN');
    expect(res.json().error.details.required).toEqual(['asset:read']);
    expect(server.received).toEqual([]);
  });
});
