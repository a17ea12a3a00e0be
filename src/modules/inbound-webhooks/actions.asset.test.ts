import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/harness.ts';
import { makeTenant, makeUser, type Api, type TenantFixture } from '../../../test/factories.ts';
import { eventsOf, expectError, expectStatus, makeClient } from '../../../test/client-factories.ts';
import { makeInbound, receive, signed, type InboundJson } from '../../../test/inbound-factories.ts';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => { await t.close(); });

const direct = (api: Api, action: string, fieldMapping: Record<string, string>): Promise<InboundJson> =>
  makeInbound(api, { handler_type: 'direct_action', handler_config: { action, field_mapping: fieldMapping } });

const send = (ten: TenantFixture, hook: InboundJson, body: unknown) => receive(t, ten.slug, hook.slug, signed(hook.secret!, body));

const assetCount = async (tenant: string) =>
  Number((await t.database.db.selectFrom('assets').select((eb) => eb.fn.countAll<number>().as('n')).where('tenant', '=', tenant).executeTakeFirstOrThrow()).n);

describe('upsert_asset_by_external_id', () => {
  it('creates, then updates the same asset through the assets service (asset.created, asset.updated)', async () => {
    const ten = await makeTenant(t);
    const client = await makeClient(ten.admin);
    const hook = await direct(ten.admin, 'upsert_asset_by_external_id', {
      external_id: 'device.id',
      asset_tag: 'device.tag',
      name: 'device.hostname',
      asset_type: '"workstation"',
      client_id: `"${client.client_id}"`,
      serial_number: 'device.serial',
      status: 'device.state',
      attributes: 'device.attrs',
    });
    const first = await send(ten, hook, { device: { id: 'RMM-1', tag: 'WS-77', hostname: 'pc-77', serial: 'S1', attrs: { os_type: 'windows', cpu_cores: 4 } } });
    expectStatus(first, 200);
    const created = first.json().result;
    expect(created).toMatchObject({ action: 'upsert_asset_by_external_id', entity_type: 'asset', external_id: 'RMM-1', operation: 'created' });
    const second = await send(ten, hook, { device: { id: 'RMM-1', tag: 'WS-77', hostname: 'pc-77-renamed', serial: 'S1', state: 'in_repair', attrs: { os_type: 'linux' } } });
    expectStatus(second, 200);
    expect(second.json().result).toMatchObject({ entity_id: created.entity_id, operation: 'updated' });
    const asset = (await ten.admin.get(`/api/v1/assets/${created.entity_id}`)).json().data;
    expect(asset).toMatchObject({ name: 'pc-77-renamed', asset_tag: 'WS-77', status: 'in_repair', client_id: client.client_id, serial_number: 'S1', attributes: { os_type: 'linux' } });
    const events = await eventsOf(t, ten.tenant, created.entity_id);
    expect(events.map((e) => e.event_type)).toEqual(['asset.created', 'asset.updated']);
    expect(events[1]!.payload.changes).toMatchObject({ name: { previous: 'pc-77', new: 'pc-77-renamed' }, status: { previous: 'active', new: 'in_repair' } });
    expect(await assetCount(ten.tenant)).toBe(1);
  });

  it('names the client by external id; invalid attributes, a missing type or an unknown client fail the delivery and write nothing', async () => {
    const ten = await makeTenant(t);
    const clients = await direct(ten.admin, 'upsert_client_by_external_id', { external_id: 'id', client_name: 'name' });
    const org = (await send(ten, clients, { id: 'ORG-1', name: 'Mapped Org' })).json().result;
    const hook = await direct(ten.admin, 'upsert_asset_by_external_id', { external_id: 'id', asset_tag: 'tag', name: 'name', asset_type: 'type', client_external_id: 'org', attributes: 'attrs' });
    const ok = await send(ten, hook, { id: 'D-1', tag: 'T-1', name: 'Switch', type: 'network_device', org: 'ORG-1' });
    expectStatus(ok, 200);
    expect((await ten.admin.get(`/api/v1/assets/${ok.json().result.entity_id}`)).json().data.client_id).toBe(org.entity_id);
    const badAttr = await send(ten, hook, { id: 'D-2', tag: 'T-2', name: 'Router', type: 'network_device', org: 'ORG-1', attrs: { port_count: 'many' } });
    expectError(badAttr, 422, 'UNPROCESSABLE');
    expect(JSON.stringify(badAttr.json().error.details)).toContain('port_count');
    expectError(await send(ten, hook, { id: 'D-3', tag: 'T-3', name: 'No type', org: 'ORG-1' }), 422, 'UNPROCESSABLE');
    const miss = await send(ten, hook, { id: 'D-4', tag: 'T-4', name: 'x', type: 'server', org: 'ORG-404' });
    expectError(miss, 422, 'UNPROCESSABLE');
    expect(miss.json().error.details).toMatchObject({ reason: 'lookup_failed', entity_type: 'client', external_id: 'ORG-404' });
    expect(await assetCount(ten.tenant)).toBe(1);
  });

  it('needs asset:create and asset:update: a configuration made by a key without them is refused', async () => {
    const ten = await makeTenant(t);
    const role = await ten.admin.post('/api/v1/roles', { role_name: 'Inbound only', permissions: ['inbound_webhook:create', 'inbound_webhook:read', 'asset:read'] });
    expect(role.statusCode, role.body).toBe(201);
    const viewer = await makeUser(t, ten.tenant, {});
    expectStatus(await ten.admin.post(`/api/v1/users/${viewer.userId}/roles`, { role_ids: [role.json().data.role_id] }), 200);
    const res = await viewer.api.post('/api/v1/inbound-webhooks', { name: 'Assets', slug: 'assets-in', auth_type: 'hmac_sha256', handler_type: 'direct_action', handler_config: { action: 'upsert_asset_by_external_id', field_mapping: { external_id: 'id', asset_tag: 't', name: 'n' } } });
    expect(res.statusCode, res.body).toBe(403);
    expect(res.body).toContain('asset:create');
  });
});
