import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/harness.ts';
import { makeTenant, makeUser } from '../../../../test/factories.ts';
import { anonymous, expectError, randomId } from '../../../../test/client-factories.ts';
import { makeTicket, statusesOf } from '../../../../test/ticket-factories.ts';
import { makeAsset } from '../../../../test/asset-factories.ts';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => t.close());

describe('asset ticket links', () => {
  it('links a ticket (default affected), lists it with status, 409 on a repeat, unlinks; the summary counts open ones', async () => {
    const { admin } = await makeTenant(t);
    const asset = await makeAsset(admin);
    const ticket = await makeTicket(admin, asset.client_id);
    const res = await admin.post(`/api/v1/assets/${asset.asset_id}/tickets`, { ticket_id: ticket.ticket_id, notes: 'Fan noise' });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().data).toMatchObject({ ticket_id: ticket.ticket_id, ticket_number: ticket.ticket_number, title: ticket.title, status_id: ticket.status_id, is_closed: false, relationship_type: 'affected', notes: 'Fan noise' });
    expect(res.json().data.status_name).toEqual(expect.any(String));
    expectError(await admin.post(`/api/v1/assets/${asset.asset_id}/tickets`, { ticket_id: ticket.ticket_id }), 409, 'CONFLICT');
    const second = await makeTicket(admin, asset.client_id);
    await admin.post(`/api/v1/assets/${asset.asset_id}/tickets`, { ticket_id: second.ticket_id, relationship_type: 'caused_by' });
    const list = (await admin.get(`/api/v1/assets/${asset.asset_id}/tickets`)).json().data;
    expect(list.map((l: { ticket_id: string }) => l.ticket_id)).toEqual([second.ticket_id, ticket.ticket_id]);
    expect((await admin.get(`/api/v1/assets/${asset.asset_id}/summary`)).json().data.open_tickets_count).toBe(2);
    const closed = Object.values(await statusesOf(admin, ticket.board_id)).find((s) => s.is_closed)!;
    expect((await admin.put(`/api/v1/tickets/${second.ticket_id}/status`, { status_id: closed.status_id })).statusCode).toBe(200);
    expect((await admin.get(`/api/v1/assets/${asset.asset_id}/tickets?is_closed=true`)).json().data.map((l: { ticket_id: string }) => l.ticket_id)).toEqual([second.ticket_id]);
    expect((await admin.get(`/api/v1/assets/${asset.asset_id}/summary`)).json().data.open_tickets_count).toBe(1);
    expect((await admin.delete(`/api/v1/assets/${asset.asset_id}/tickets/${ticket.ticket_id}`)).statusCode).toBe(204);
    expectError(await admin.delete(`/api/v1/assets/${asset.asset_id}/tickets/${ticket.ticket_id}`), 404, 'NOT_FOUND');
    expect((await admin.get(`/api/v1/tickets/${ticket.ticket_id}`)).statusCode).toBe(200);
    // Deleting the asset drops its remaining links; the tickets stay.
    expect((await admin.delete(`/api/v1/assets/${asset.asset_id}`)).statusCode).toBe(204);
    expect((await admin.get(`/api/v1/tickets/${second.ticket_id}`)).statusCode).toBe(200);
    const left = await t.database.db.selectFrom('asset_ticket_links').select('ticket_id').where('ticket_id', '=', second.ticket_id).execute();
    expect(left).toEqual([]);
  });

  it('needs asset:read + ticket:read to list and asset:update to link (403); 400, 401, 404 for unknown or foreign records', async () => {
    const { tenant, admin } = await makeTenant(t);
    const asset = await makeAsset(admin);
    const ticket = await makeTicket(admin, asset.client_id);
    const url = `/api/v1/assets/${asset.asset_id}/tickets`;
    expectError(await admin.post(url, {}), 400, 'VALIDATION_ERROR');
    expectError(await admin.post(url, { ticket_id: ticket.ticket_id, relationship_type: 'blamed' }), 400, 'VALIDATION_ERROR');
    expectError(await anonymous(t).get(url), 401, 'UNAUTHORIZED');
    const assetsOnly = await admin.post('/api/v1/roles', { role_name: 'Assets only', permissions: ['asset:read', 'asset:update'] });
    expect(assetsOnly.statusCode, assetsOnly.body).toBe(201);
    const user = await makeUser(t, tenant, {});
    await admin.post(`/api/v1/users/${user.userId}/roles`, { role_ids: [assetsOnly.json().data.role_id] });
    const denied = await user.api.get(url);
    expectError(denied, 403, 'FORBIDDEN');
    expect(denied.json().error.details.required).toEqual(['ticket:read']);
    expectError(await user.api.post(url, { ticket_id: ticket.ticket_id }), 403, 'FORBIDDEN');
    const viewer = await makeUser(t, tenant, { role: 'Viewer' });
    expect((await viewer.api.get(url)).statusCode).toBe(200);
    expectError(await viewer.api.post(url, { ticket_id: ticket.ticket_id }), 403, 'FORBIDDEN');
    expectError(await viewer.api.delete(`${url}/${ticket.ticket_id}`), 403, 'FORBIDDEN');
    expectError(await admin.post(url, { ticket_id: randomId() }), 404, 'NOT_FOUND');
    expectError(await admin.post(`/api/v1/assets/${randomId()}/tickets`, { ticket_id: ticket.ticket_id }), 404, 'NOT_FOUND');
    const other = await makeTenant(t);
    const theirAsset = await makeAsset(other.admin);
    expectError(await other.admin.post(`/api/v1/assets/${theirAsset.asset_id}/tickets`, { ticket_id: ticket.ticket_id }), 404, 'NOT_FOUND');
    expectError(await other.admin.get(url), 404, 'NOT_FOUND');
    expect((await admin.post(url, { ticket_id: ticket.ticket_id })).statusCode).toBe(201);
    expectError(await other.admin.delete(`${url}/${ticket.ticket_id}`), 404, 'NOT_FOUND');
    expect((await admin.get(url)).json().data).toHaveLength(1);
  });
});
