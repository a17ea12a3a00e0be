import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/harness.ts';
import { makeTenant, makeUser, type Api } from '../../../../test/factories.ts';
import { makeClient } from '../../../../test/client-factories.ts';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => t.close());

const found = async (api: Api, query: string, types = 'invoice,invoice_item,invoice_annotation') => {
  const res = await api.get(`/api/v1/search?query=${encodeURIComponent(query)}&types=${types}`);
  expect(res.statusCode, res.body).toBe(200);
  return (res.json().data.results as { type: string; id: string }[]).map((r) => `${r.type}:${r.id}`).sort();
};

describe('invoice search', () => {
  it('indexes invoices, items and notes; needs invoice:read; the portal sees its finalized invoices and client-visible notes only', async () => {
    const { admin, tenant } = await makeTenant(t);
    const mine = await makeClient(admin, { client_name: 'Quokka Dental' });
    const other = await makeClient(admin, { client_name: 'Wombat Legal' });
    const make = async (clientId: string, description: string) =>
      (await admin.post('/api/v1/invoices', { client_id: clientId, items: [{ description, quantity: 1, unit_price_cents: 100 }] })).json().data;
    const final = await make(mine.client_id, 'Firewall appliance');
    const draft = await make(mine.client_id, 'Firewall licence');
    const theirs = await make(other.client_id, 'Firewall rules');
    for (const inv of [final, theirs]) expect((await admin.post(`/api/v1/invoices/${inv.invoice_id}/finalize`)).statusCode).toBe(200);
    const internal = (await admin.post(`/api/v1/invoices/${final.invoice_id}/annotations`, { content: 'Zebracorn internal escalation' })).json().data;
    const visible = (await admin.post(`/api/v1/invoices/${final.invoice_id}/annotations`, { content: 'Zebracorn thanks you', is_internal: false })).json().data;

    expect(await found(admin, 'firewall')).toEqual(
      [`invoice_item:${final.items[0].item_id}`, `invoice_item:${draft.items[0].item_id}`, `invoice_item:${theirs.items[0].item_id}`].sort(),
    );
    expect(await found(admin, 'INV-0001', 'invoice')).toEqual([`invoice:${final.invoice_id}`]);
    expect(await found(admin, 'zebracorn')).toEqual([`invoice_annotation:${internal.annotation_id}`, `invoice_annotation:${visible.annotation_id}`].sort());

    const portal = (await makeUser(t, tenant, { role: 'Client Admin', userType: 'client', clientId: mine.client_id })).api;
    expect(await found(portal, 'firewall')).toEqual([`invoice_item:${final.items[0].item_id}`]);
    expect(await found(portal, 'zebracorn')).toEqual([`invoice_annotation:${visible.annotation_id}`]);
    const tech = (await makeUser(t, tenant, { role: 'Technician' })).api;
    expect(await found(tech, 'firewall')).toEqual([]);

    // Finalizing the draft makes it (and its item) visible to the portal; deleting a draft removes its rows.
    await admin.post(`/api/v1/invoices/${draft.invoice_id}/finalize`);
    expect(await found(portal, 'firewall')).toEqual([`invoice_item:${final.items[0].item_id}`, `invoice_item:${draft.items[0].item_id}`].sort());
    const gone = await make(mine.client_id, 'Firewall spare');
    await admin.delete(`/api/v1/invoices/${gone.invoice_id}`);
    expect(await found(admin, 'spare')).toEqual([]);
  });
});
