import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/harness.ts';
import { makeTenant, makeUser } from '../../../../test/factories.ts';
import { anonymous, expectError, randomId } from '../../../../test/client-factories.ts';
import { makeAsset } from '../../../../test/asset-factories.ts';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => t.close());

describe('asset relationships', () => {
  it('links two assets; both ends list it with their direction; delete removes it', async () => {
    const { tenant, admin } = await makeTenant(t);
    const vm = await makeAsset(admin, { asset_type: 'server', name: 'VM' });
    const host = await makeAsset(admin, { asset_type: 'server', name: 'Host', client_id: vm.client_id });
    const res = await admin.post(`/api/v1/assets/${vm.asset_id}/relationships`, { related_asset_id: host.asset_id, relationship_type: 'runs_on' });
    expect(res.statusCode, res.body).toBe(201);
    const rel = res.json().data;
    expect(rel).toMatchObject({ relationship_type: 'runs_on', direction: 'outgoing', asset_id: vm.asset_id, related_asset_id: host.asset_id, related_asset_name: 'Host', related_asset_tag: host.asset_tag, related_asset_status: 'active' });
    const fromHost = (await admin.get(`/api/v1/assets/${host.asset_id}/relationships`)).json().data;
    expect(fromHost).toEqual([{ ...rel, direction: 'incoming', asset_id: host.asset_id, related_asset_id: vm.asset_id, related_asset_name: 'VM', related_asset_tag: vm.asset_tag, related_asset_type: 'server' }]);
    expect((await admin.get(`/api/v1/assets/${host.asset_id}/relationships?direction=outgoing`)).json().data).toEqual([]);
    // The same link either way round is a duplicate; another type is not.
    expectError(await admin.post(`/api/v1/assets/${host.asset_id}/relationships`, { related_asset_id: vm.asset_id, relationship_type: 'runs_on' }), 409, 'CONFLICT');
    expectError(await admin.post(`/api/v1/assets/${vm.asset_id}/relationships`, { related_asset_id: host.asset_id, relationship_type: 'runs_on' }), 409, 'CONFLICT');
    expect((await admin.post(`/api/v1/assets/${host.asset_id}/relationships`, { related_asset_id: vm.asset_id, relationship_type: 'backs_up' })).statusCode).toBe(201);
    const viewer = await makeUser(t, tenant, { role: 'Viewer' });
    expectError(await viewer.api.delete(`/api/v1/assets/relationships/${rel.relationship_id}`), 403, 'FORBIDDEN');
    expect((await admin.delete(`/api/v1/assets/relationships/${rel.relationship_id}`)).statusCode).toBe(204);
    expectError(await admin.delete(`/api/v1/assets/relationships/${rel.relationship_id}`), 404, 'NOT_FOUND');
    expect((await admin.get(`/api/v1/assets/${vm.asset_id}/relationships`)).json().data.map((r: { relationship_type: string }) => r.relationship_type)).toEqual(['backs_up']);
    // Deleting an asset removes its relationships.
    expect((await admin.delete(`/api/v1/assets/${host.asset_id}`)).statusCode).toBe(204);
    expect((await admin.get(`/api/v1/assets/${vm.asset_id}/relationships`)).json().data).toEqual([]);
  });

  it('400 self links and bad bodies, 401, 403, 404 for unknown or foreign assets on either end', async () => {
    const { tenant, admin } = await makeTenant(t);
    const a = await makeAsset(admin);
    const url = `/api/v1/assets/${a.asset_id}/relationships`;
    expectError(await admin.post(url, { related_asset_id: a.asset_id, relationship_type: 'connected_to' }), 400, 'VALIDATION_ERROR');
    expectError(await admin.post(url, { related_asset_id: randomId(), relationship_type: 'married_to' }), 400, 'VALIDATION_ERROR');
    expectError(await admin.post(url, { relationship_type: 'contains' }), 400, 'VALIDATION_ERROR');
    expectError(await admin.post(url, { related_asset_id: randomId(), relationship_type: 'contains' }), 404, 'NOT_FOUND');
    const other = await makeTenant(t);
    const theirs = await makeAsset(other.admin);
    expectError(await admin.post(url, { related_asset_id: theirs.asset_id, relationship_type: 'contains' }), 404, 'NOT_FOUND');
    expectError(await other.admin.post(`/api/v1/assets/${theirs.asset_id}/relationships`, { related_asset_id: a.asset_id, relationship_type: 'contains' }), 404, 'NOT_FOUND');
    expectError(await other.admin.get(url), 404, 'NOT_FOUND');
    expectError(await anonymous(t).get(url), 401, 'UNAUTHORIZED');
    const viewer = await makeUser(t, tenant, { role: 'Viewer' });
    const b = await makeAsset(admin);
    expectError(await viewer.api.post(url, { related_asset_id: b.asset_id, relationship_type: 'contains' }), 403, 'FORBIDDEN');
    const finance = await makeUser(t, tenant, { role: 'Finance' });
    expectError(await finance.api.get(url), 403, 'FORBIDDEN');
    const rel = (await admin.post(url, { related_asset_id: b.asset_id, relationship_type: 'contains' })).json().data;
    expectError(await other.admin.delete(`/api/v1/assets/relationships/${rel.relationship_id}`), 404, 'NOT_FOUND');
    expect((await admin.get(url)).json().data).toHaveLength(1);
  });
});
