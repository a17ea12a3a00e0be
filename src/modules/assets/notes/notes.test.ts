import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/harness.ts';
import { makeTenant, makeUser } from '../../../../test/factories.ts';
import { anonymous, eventsOf, expectError, makeClient, randomId } from '../../../../test/client-factories.ts';
import { makeAsset, searchDoc } from '../../../../test/asset-factories.ts';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => t.close());

describe('/api/v1/assets/{id}/notes', () => {
  it('puts, reads and clears markdown notes; indexes them; emits asset.updated', async () => {
    const { tenant, admin } = await makeTenant(t);
    const asset = await makeAsset(admin);
    expect((await admin.get(`/api/v1/assets/${asset.asset_id}/notes`)).json().data).toEqual({ notes: null, updated_at: null });
    const put = await admin.put(`/api/v1/assets/${asset.asset_id}/notes`, { notes: '# Rack 4\nPassword in vault zebracorn' });
    expect(put.statusCode, put.body).toBe(200);
    expect(put.json().data.notes).toBe('# Rack 4\nPassword in vault zebracorn');
    const got = await admin.get(`/api/v1/assets/${asset.asset_id}/notes`);
    expect(got.json().data).toEqual(put.json().data);
    expect((await searchDoc(t, tenant, asset.asset_id))!.body).toContain('zebracorn');
    expect((await admin.get(`/api/v1/assets/${asset.asset_id}`)).json().data.notes_updated_at).toBe(put.json().data.updated_at);
    const events = await eventsOf(t, tenant, asset.asset_id);
    expect(events.at(-1)).toMatchObject({ event_type: 'asset.updated', payload: { changes: { notes_updated_at: { previous: null, new: put.json().data.updated_at } } } });
    expectError(await admin.put(`/api/v1/assets/${asset.asset_id}/notes`, { notes: 'x' }, { 'if-match': '"stale"' }), 412, 'PRECONDITION_FAILED');
    const del = await admin.delete(`/api/v1/assets/${asset.asset_id}/notes`, { 'if-match': got.headers.etag as string });
    expect(del.statusCode).toBe(204);
    expect((await admin.get(`/api/v1/assets/${asset.asset_id}/notes`)).json().data.notes).toBeNull();
    expect((await searchDoc(t, tenant, asset.asset_id))!.body ?? '').not.toContain('zebracorn');
  });

  it('400 bad body, 401, 403 (no permission; portal keys), 404 unknown and foreign assets', async () => {
    const { tenant, admin } = await makeTenant(t);
    const asset = await makeAsset(admin);
    const url = `/api/v1/assets/${asset.asset_id}/notes`;
    expectError(await admin.put(url, { notes: 5 }), 400, 'VALIDATION_ERROR');
    expectError(await admin.put(url, { text: 'x' }), 400, 'VALIDATION_ERROR');
    expectError(await anonymous(t).get(url), 401, 'UNAUTHORIZED');
    const viewer = await makeUser(t, tenant, { role: 'Viewer' });
    expect((await viewer.api.get(url)).statusCode).toBe(200);
    expectError(await viewer.api.put(url, { notes: 'x' }), 403, 'FORBIDDEN');
    expectError(await viewer.api.delete(url), 403, 'FORBIDDEN');
    const portal = await makeUser(t, tenant, { role: 'Client Admin', userType: 'client', clientId: asset.client_id });
    expectError(await portal.api.get(url), 403, 'FORBIDDEN');
    expectError(await admin.get(`/api/v1/assets/${randomId()}/notes`), 404, 'NOT_FOUND');
    const other = await makeTenant(t);
    expectError(await other.admin.put(url, { notes: 'hijack' }), 404, 'NOT_FOUND');
    expect((await admin.get(url)).json().data.notes).toBeNull();
    const elsewhere = await makeClient(admin);
    const otherPortal = await makeUser(t, tenant, { role: 'Client Admin', userType: 'client', clientId: elsewhere.client_id });
    expectError(await otherPortal.api.get(url), 403, 'FORBIDDEN');
  });
});
