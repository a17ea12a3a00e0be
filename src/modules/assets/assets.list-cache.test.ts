import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/harness.ts';
import { makeTenant } from '../../../test/factories.ts';
import { expectStatus, makeClient } from '../../../test/client-factories.ts';
import { makeAsset, type AssetJson } from '../../../test/asset-factories.ts';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => { await t.close(); });

// The asset list keeps its rows by version (keptListPage): a page repeats until something it shows changes.
describe('GET /api/v1/assets, repeated', () => {
  it('shows at once what changes in an asset or in its client, and never mixes filters', async () => {
    const { tenant, admin } = await makeTenant(t);
    const client = await makeClient(admin, { client_name: 'Acme' });
    const asset = await makeAsset(admin, { client_id: client.client_id, name: 'Laptop' });
    await makeAsset(admin, { asset_type: 'server' });
    const names = async (q = '') => {
      const res = await admin.get(`/api/v1/assets${q}`);
      expectStatus(res, 200);
      return (res.json().data as AssetJson[]).map((a) => `${a.name}@${a.client_name}`);
    };
    const first = await admin.get('/api/v1/assets');
    expect((await admin.get('/api/v1/assets')).body).toBe(first.body);
    expect(await names()).toHaveLength(2);
    expect(await names('?asset_type=workstation')).toEqual(['Laptop@Acme']);

    await sql`update clients set client_name = 'Acme 2' where tenant = ${tenant} and client_id = ${client.client_id}`.execute(t.database.db);
    expect(await names('?asset_type=workstation')).toEqual(['Laptop@Acme 2']);
    expectStatus(await admin.put(`/api/v1/assets/${asset.asset_id}`, { name: 'Desktop' }), 200);
    expect(await names('?asset_type=workstation')).toEqual(['Desktop@Acme 2']);
    expect((await names()).length).toBe(2);
  });
});
