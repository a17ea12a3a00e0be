import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/harness.ts';
import { makeTenant, makeUser } from '../../../../test/factories.ts';
import { anonymous, eventsOf, expectError, randomId } from '../../../../test/client-factories.ts';
import { assetRow, makeAsset } from '../../../../test/asset-factories.ts';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => t.close());

describe('PUT /api/v1/assets/bulk-status', () => {
  it('sets the status of every asset and emits asset.updated for each one that changed', async () => {
    const { tenant, admin } = await makeTenant(t);
    const a = await makeAsset(admin);
    const b = await makeAsset(admin, { client_id: a.client_id, status: 'retired' });
    const res = await admin.put('/api/v1/assets/bulk-status', { asset_ids: [b.asset_id, a.asset_id], status: 'retired' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.map((x: { asset_id: string; status: string }) => [x.asset_id, x.status])).toEqual([[b.asset_id, 'retired'], [a.asset_id, 'retired']]);
    expect(res.json().meta).toEqual({ updated: 1 });
    expect((await eventsOf(t, tenant, a.asset_id)).at(-1)).toMatchObject({ event_type: 'asset.updated', payload: { changes: { status: { previous: 'active', new: 'retired' } } } });
    expect((await eventsOf(t, tenant, b.asset_id)).map((e) => e.event_type)).toEqual(['asset.created']);
  });

  it('all or nothing: an unknown or foreign id is a 404 naming it and nothing changes; 400, 401, 403', async () => {
    const { tenant, admin } = await makeTenant(t);
    const a = await makeAsset(admin);
    const other = await makeTenant(t);
    const theirs = await makeAsset(other.admin);
    const missing = randomId();
    const res = await admin.put('/api/v1/assets/bulk-status', { asset_ids: [a.asset_id, missing, theirs.asset_id], status: 'lost' });
    expectError(res, 404, 'NOT_FOUND');
    expect(res.json().error.details.missing_asset_ids).toEqual([missing, theirs.asset_id]);
    expect((await assetRow(t, tenant, a.asset_id))!.status).toBe('active');
    expectError(await admin.put('/api/v1/assets/bulk-status', { asset_ids: [], status: 'lost' }), 400, 'VALIDATION_ERROR');
    expectError(await admin.put('/api/v1/assets/bulk-status', { asset_ids: [a.asset_id, a.asset_id], status: 'lost' }), 400, 'VALIDATION_ERROR');
    expectError(await admin.put('/api/v1/assets/bulk-status', { asset_ids: Array.from({ length: 101 }, randomId), status: 'lost' }), 400, 'VALIDATION_ERROR');
    expectError(await admin.put('/api/v1/assets/bulk-status', { asset_ids: [a.asset_id], status: 'vanished' }), 400, 'VALIDATION_ERROR');
    expectError(await anonymous(t).put('/api/v1/assets/bulk-status', { asset_ids: [a.asset_id], status: 'lost' }), 401, 'UNAUTHORIZED');
    const viewer = await makeUser(t, tenant, { role: 'Viewer' });
    expectError(await viewer.api.put('/api/v1/assets/bulk-status', { asset_ids: [a.asset_id], status: 'lost' }), 403, 'FORBIDDEN');
    expect((await assetRow(t, tenant, a.asset_id))!.status).toBe('active');
  });
});

describe('PUT /api/v1/assets/bulk-update', () => {
  it('applies each entry\'s changes; one invalid entry (400 naming it) or a taken tag (409) rolls everything back', async () => {
    const { tenant, admin } = await makeTenant(t);
    const a = await makeAsset(admin);
    const b = await makeAsset(admin, { client_id: a.client_id });
    const ok = await admin.put('/api/v1/assets/bulk-update', { assets: [{ asset_id: a.asset_id, data: { location: 'Room 1' } }, { asset_id: b.asset_id, data: { name: 'Bee', attributes: { os_type: 'macos' } } }] });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json().data.map((x: { location: string | null; name: string }) => [x.location, x.name])).toEqual([['Room 1', a.name], [null, 'Bee']]);
    expect(ok.json().meta.updated).toBe(2);
    expect((await eventsOf(t, tenant, b.asset_id)).at(-1)!.payload.changes).toMatchObject({ name: { previous: b.name, new: 'Bee' } });

    const bad = await admin.put('/api/v1/assets/bulk-update', { assets: [{ asset_id: a.asset_id, data: { location: 'Room 2' } }, { asset_id: b.asset_id, data: { attributes: { warp: 9 } } }] });
    expectError(bad, 400, 'VALIDATION_ERROR');
    expect(bad.json().error.message).toContain('body.assets[1].data.attributes.warp');
    const taken = await admin.put('/api/v1/assets/bulk-update', { assets: [{ asset_id: a.asset_id, data: { location: 'Room 3' } }, { asset_id: b.asset_id, data: { asset_tag: a.asset_tag } }] });
    expectError(taken, 409, 'CONFLICT');
    expect((await assetRow(t, tenant, a.asset_id))!.location).toBe('Room 1');
    const dup = await admin.put('/api/v1/assets/bulk-update', { assets: [{ asset_id: a.asset_id, data: { location: 'X' } }, { asset_id: a.asset_id, data: { name: 'Y' } }] });
    expectError(dup, 400, 'VALIDATION_ERROR');
    expectError(await admin.put('/api/v1/assets/bulk-update', { assets: [{ asset_id: a.asset_id, data: {} }] }), 400, 'VALIDATION_ERROR');
    expectError(await admin.put('/api/v1/assets/bulk-update', { assets: [{ asset_id: randomId(), data: { name: 'X' } }] }), 404, 'NOT_FOUND');
    expectError(await anonymous(t).put('/api/v1/assets/bulk-update', { assets: [{ asset_id: a.asset_id, data: { name: 'X' } }] }), 401, 'UNAUTHORIZED');
    const viewer = await makeUser(t, tenant, { role: 'Viewer' });
    expectError(await viewer.api.put('/api/v1/assets/bulk-update', { assets: [{ asset_id: a.asset_id, data: { name: 'X' } }] }), 403, 'FORBIDDEN');
  });
});
