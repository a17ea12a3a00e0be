import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/harness.ts';
import { makeTenant } from '../../../test/factories.ts';
import { makeAsset, assetRow, type AssetJson } from '../../../test/asset-factories.ts';
import { defaultProfileId, eventsOf, expectStatus, makeClient } from '../../../test/client-factories.ts';
import { formBody } from '../../../test/multipart.ts';
import { search, uniqueWord } from '../../../test/search-kit.ts';
import type { MergeContext } from '../clients/index.ts';
import { assetsMergeParticipant } from './assets.merge.ts';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => { await t.close(); });

const participant = assetsMergeParticipant({ publicUrl: 'https://psa.test' });

/** count then move in one transaction, as the merge runs them. */
async function runMerge(ctx: MergeContext) {
  return t.database.db.transaction().execute(async (trx) => {
    const counts = await participant.count(trx, ctx);
    const moved = await participant.move(trx, ctx);
    return { counts, moved };
  });
}

describe('the assets merge participant', () => {
  it('moves every asset of the source to the target, with events and search (documents included)', async () => {
    const { tenant, admin } = await makeTenant(t);
    const [sw, tw] = [uniqueWord(), uniqueWord()];
    const source = await makeClient(admin, { client_name: `${sw} Ltd` });
    const target = await makeClient(admin, { client_name: `${tw} Holdings` });
    const other = await makeClient(admin);
    const ctx: MergeContext = {
      tenant, sourceId: source.client_id, targetId: target.client_id, cutoverDate: '2026-11-01',
      profileIds: [await defaultProfileId(admin, source.client_id)], actorUserId: null,
    };

    const a = await makeAsset(admin, { client_id: source.client_id });
    const b = await makeAsset(admin, { client_id: source.client_id });
    const own = await makeAsset(admin, { client_id: target.client_id });
    const elsewhere = await makeAsset(admin, { client_id: other.client_id });
    const { payload, contentType } = await formBody([{ name: 'file', data: Buffer.concat([Buffer.from('%PDF-1.7\n'), randomBytes(200)]), type: 'application/pdf', filename: 'warranty.pdf' }]);
    const upload = await admin.request({ method: 'POST', url: `/api/v1/assets/${a.asset_id}/documents`, payload, headers: { 'content-type': contentType } });
    expectStatus(upload, 201);
    const documentId = upload.json().data.document_id as string;
    const untouched = [own, elsewhere];
    const before = await Promise.all(untouched.map(async (x) => ({ row: await assetRow(t, tenant, x.asset_id), events: (await eventsOf(t, tenant, x.asset_id)).length })));

    const { counts, moved } = await runMerge(ctx);
    expect(counts).toEqual({ assets: 2 });
    expect(moved).toEqual(counts);

    for (const asset of [a, b]) {
      const res = await admin.get(`/api/v1/assets/${asset.asset_id}`);
      expectStatus(res, 200);
      expect(res.json().data as AssetJson).toMatchObject({ client_id: target.client_id, client_name: `${tw} Holdings` });
      const events = await eventsOf(t, tenant, asset.asset_id);
      expect(events.at(-1)).toMatchObject({
        event_type: 'asset.updated',
        payload: {
          changes: { client_id: { previous: source.client_id, new: target.client_id }, client_name: { previous: `${sw} Ltd`, new: `${tw} Holdings` } },
          merge: true,
          data: { asset_id: asset.asset_id, client_id: target.client_id, client_name: `${tw} Holdings` },
        },
      });
      expect(events.filter((e) => e.payload.merge === true)).toHaveLength(1);
    }

    const byTarget = await search(admin, { query: tw, types: 'asset', limit: 50 });
    expect(byTarget.results.map((r) => r.id).sort()).toEqual([a.asset_id, b.asset_id, own.asset_id].sort());
    expect(byTarget.results.find((r) => r.id === b.asset_id)!.subtitle).toBe(`${tw} Holdings | ${b.asset_tag}`);
    expect((await search(admin, { query: sw, types: 'asset' })).totalCount).toBe(0);
    const doc = await t.database.db.selectFrom('search_documents').select('client_id').where('tenant', '=', tenant)
      .where('object_type', '=', 'document').where('object_id', '=', documentId).executeTakeFirstOrThrow();
    expect(doc.client_id).toBe(target.client_id);

    for (const [i, x] of untouched.entries()) {
      expect(await assetRow(t, tenant, x.asset_id)).toEqual(before[i]!.row);
      expect(await eventsOf(t, tenant, x.asset_id)).toHaveLength(before[i]!.events);
    }

    expect(await runMerge(ctx)).toEqual({ counts: { assets: 0 }, moved: { assets: 0 } });
  });
});
