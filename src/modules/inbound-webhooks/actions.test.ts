import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/harness.ts';
import { makeTenant, makeUser, type Api, type TenantFixture } from '../../../test/factories.ts';
import { eventsOf, expectError, expectStatus, makeClient } from '../../../test/client-factories.ts';
import { deliveryRows, eventsOfType, makeInbound, receive, signed, type InboundJson } from '../../../test/inbound-factories.ts';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => { await t.close(); });

async function direct(api: Api, action: string, fieldMapping: Record<string, string>, extra: Record<string, unknown> = {}): Promise<InboundJson> {
  return makeInbound(api, { handler_type: 'direct_action', handler_config: { action, field_mapping: fieldMapping }, ...extra });
}

const send = (ten: TenantFixture, hook: InboundJson, body: unknown, headers: Record<string, string> = {}) => {
  const s = signed(hook.secret!, body);
  return receive(t, ten.slug, hook.slug, { ...s, headers: { ...s.headers, ...headers } });
};

async function statusesOfDefaultBoard(api: Api): Promise<Record<string, { status_id: string; is_closed: boolean }>> {
  const boards = await api.get('/api/v1/boards?limit=100');
  const board = boards.json().data.find((b: { is_default: boolean }) => b.is_default);
  const res = await api.get(`/api/v1/boards/${board.board_id}/statuses?limit=100`);
  return Object.fromEntries(res.json().data.map((s: { name: string }) => [s.name, s]));
}

const countOf = async (table: 'tickets' | 'clients' | 'contacts' | 'events' | 'inbound_external_ids', tenant: string) =>
  Number((await t.database.db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).where('tenant', '=', tenant).executeTakeFirstOrThrow()).n);

describe('ticket actions', () => {
  it('create_ticket creates through the tickets service: ticket.created goes out, the external id is recorded', async () => {
    const ten = await makeTenant(t);
    const client = await makeClient(ten.admin);
    const hook = await direct(ten.admin, 'create_ticket', {
      title: '$uppercase(alert.name) & " on " & alert.host',
      description: '"Severity: " & $string(alert.severity)',
      client_id: `"${client.client_id}"`,
      tags: '[alert.labels.*]',
      due_date: 'alert.due',
      external_id: 'alert.id',
    });
    const res = await send(ten, hook, { alert: { id: 'A-1', name: 'disk full', host: 'db1', severity: 3, labels: { a: 'infra', b: 'disk' }, due: '2026-12-01T10:00:00Z' } });
    expectStatus(res, 200);
    const { result } = res.json();
    expect(result).toMatchObject({ action: 'create_ticket', entity_type: 'ticket', external_id: 'A-1', operation: 'created', ticket_number: expect.stringMatching(/^T-\d{6}$/) });
    const ticket = (await ten.admin.get(`/api/v1/tickets/${result.entity_id}`)).json().data;
    expect(ticket).toMatchObject({ title: 'DISK FULL on db1', description: 'Severity: 3', client_id: client.client_id, tags: ['disk', 'infra'], due_date: '2026-12-01T10:00:00.000Z', entered_by: ten.adminUserId });
    const events = await eventsOf(t, ten.tenant, result.entity_id);
    expect(events.map((e) => e.event_type)).toEqual(['ticket.created']);
    expect((events[0]!.payload.data as Record<string, unknown>).title).toBe('DISK FULL on db1');
    const mapping = await t.database.db.selectFrom('inbound_external_ids').selectAll().where('tenant', '=', ten.tenant).executeTakeFirstOrThrow();
    expect(mapping).toMatchObject({ entity_type: 'ticket', external_id: 'A-1', entity_id: result.entity_id, claim_token: null, inbound_webhook_id: hook.inbound_webhook_id });

    // The same external id again (another event, no idempotency key): refused, not duplicated.
    const again = await send(ten, hook, { alert: { id: 'A-1', name: 'disk full', host: 'db1', severity: 3, labels: {}, due: null } });
    expectError(again, 422, 'UNPROCESSABLE');
    expect(again.json().error.details).toMatchObject({ reason: 'already_exists', entity_id: result.entity_id, delivery_id: expect.any(String) });
    expect(await countOf('tickets', ten.tenant)).toBe(1);
  });

  it('update, comment and status actions find the ticket by external id and emit the ticket events', async () => {
    const ten = await makeTenant(t);
    const client = await makeClient(ten.admin);
    const statuses = await statusesOfDefaultBoard(ten.admin);
    const create = await direct(ten.admin, 'create_ticket', { title: 'title', client_id: `"${client.client_id}"`, external_id: 'id' });
    const created = (await send(ten, create, { id: 'INC-7', title: 'VPN flaky' })).json().result;

    const update = await direct(ten.admin, 'update_ticket_by_external_id', { external_id: 'ref', title: 'summary', description: 'details' });
    const updated = await send(ten, update, { ref: 'INC-7', summary: 'VPN down', details: 'All users' });
    expectStatus(updated, 200);
    expect(updated.json().result).toMatchObject({ action: 'update_ticket_by_external_id', entity_id: created.entity_id, operation: 'updated' });

    const comment = await direct(ten.admin, 'add_ticket_comment_by_external_id', { external_id: 'ref', comment_text: 'note', is_internal: 'internal' });
    const commented = await send(ten, comment, { ref: 'INC-7', note: 'Vendor notified', internal: 'yes' });
    expectStatus(commented, 200);
    expect(commented.json().result).toMatchObject({ operation: 'comment_added', comment_id: expect.any(String) });

    const status = await direct(ten.admin, 'change_ticket_status_by_external_id', {
      external_id: 'ref',
      status_id: `{"open": "${statuses.Open!.status_id}", "done": "${statuses.Closed!.status_id}"}.$lookup($, $$.state)`,
    });
    const closed = await send(ten, status, { ref: 'INC-7', state: 'done' });
    expectStatus(closed, 200);
    expect(closed.json().result).toMatchObject({ operation: 'status_changed', status_id: statuses.Closed!.status_id, is_closed: true });

    const ticket = (await ten.admin.get(`/api/v1/tickets/${created.entity_id}`)).json().data;
    expect(ticket).toMatchObject({ title: 'VPN down', description: 'All users', status_id: statuses.Closed!.status_id, is_closed: true });
    const comments = (await ten.admin.get(`/api/v1/tickets/${created.entity_id}/comments`)).json().data;
    expect(comments).toMatchObject([{ comment_text: 'Vendor notified', is_internal: true }]);
    const types = (await eventsOf(t, ten.tenant, created.entity_id)).map((e) => e.event_type);
    expect(types).toEqual(['ticket.created', 'ticket.updated', 'ticket.comment.added', 'ticket.updated', 'ticket.status_changed', 'ticket.closed']);
  });

  it('an unknown external id is a 422 lookup failure that writes nothing', async () => {
    const ten = await makeTenant(t);
    const hook = await direct(ten.admin, 'add_ticket_comment_by_external_id', { external_id: 'ref', comment_text: 'text' });
    const before = await countOf('events', ten.tenant);
    const res = await send(ten, hook, { ref: 'NOPE', text: 'hello' });
    expectError(res, 422, 'UNPROCESSABLE');
    expect(res.json().error.details).toEqual({ delivery_id: expect.any(String), reason: 'lookup_failed', entity_type: 'ticket', external_id: 'NOPE' });
    expect(await countOf('events', ten.tenant)).toBe(before);
    const [row] = await deliveryRows(t, ten.tenant, hook.inbound_webhook_id);
    expect(row).toMatchObject({ dispatch_status: 'failed', response_status: 422, request_body: '{"ref":"NOPE","text":"hello"}' });
  });

  it('a ticket deleted since is a lookup failure, and its stale mapping is dropped', async () => {
    const ten = await makeTenant(t);
    const client = await makeClient(ten.admin);
    const create = await direct(ten.admin, 'create_ticket', { title: 'title', client_id: `"${client.client_id}"`, external_id: 'id' });
    const created = (await send(ten, create, { id: 'X-1', title: 'Gone soon' })).json().result;
    expectStatus(await ten.admin.delete(`/api/v1/tickets/${created.entity_id}`), 204);
    const update = await direct(ten.admin, 'update_ticket_by_external_id', { external_id: 'id', title: 'title' });
    const res = await send(ten, update, { id: 'X-1', title: 'Back?' });
    expectError(res, 422, 'UNPROCESSABLE');
    expect(res.json().error.details.reason).toBe('lookup_failed');
    expect(await countOf('inbound_external_ids', ten.tenant)).toBe(0);
  });

  it('references by client and contact external ids, resolved through the map', async () => {
    const ten = await makeTenant(t);
    const clients = await direct(ten.admin, 'upsert_client_by_external_id', { external_id: 'id', client_name: 'name' });
    const contacts = await direct(ten.admin, 'upsert_contact_by_external_id', { external_id: 'id', full_name: 'name', client_external_id: 'org' });
    const tickets = await direct(ten.admin, 'create_ticket', { title: 'title', client_external_id: 'org', contact_external_id: 'person' });
    const client = (await send(ten, clients, { id: 'ORG-1', name: 'Mapped Org' })).json().result;
    const contact = (await send(ten, contacts, { id: 'P-1', name: 'Pat', org: 'ORG-1' })).json().result;
    const res = await send(ten, tickets, { title: 'Through the map', org: 'ORG-1', person: 'P-1' });
    expectStatus(res, 200);
    const ticket = (await ten.admin.get(`/api/v1/tickets/${res.json().result.entity_id}`)).json().data;
    expect(ticket).toMatchObject({ client_id: client.entity_id, contact_name_id: contact.entity_id });
    const miss = await send(ten, tickets, { title: 'x', org: 'ORG-404' });
    expectError(miss, 422, 'UNPROCESSABLE');
    expect(miss.json().error.details).toMatchObject({ reason: 'lookup_failed', entity_type: 'client', external_id: 'ORG-404' });
  });

  it('rules of the tickets service come back as 422 naming the problem', async () => {
    const ten = await makeTenant(t);
    const client = await makeClient(ten.admin);
    const hook = await direct(ten.admin, 'create_ticket', { title: 'title', client_id: `"${client.client_id}"`, board_id: 'board', tags: 'tags' });
    const badBoard = await send(ten, hook, { title: 'x', board: '01890000-0000-7000-8000-000000000001' });
    expectError(badBoard, 422, 'UNPROCESSABLE');
    expect(badBoard.json().error.details).toMatchObject({ reason: 'invalid_fields', code: 'VALIDATION_ERROR', problems: [{ path: 'body.board_id' }] });
    const badTags = await send(ten, hook, { title: 'x', tags: ['ok', 'x'.repeat(65)] });
    expectError(badTags, 422, 'UNPROCESSABLE');
    expect(badTags.json().error.details).toMatchObject({ reason: 'invalid_fields', problems: [{ path: 'tags.1' }] });
    const noClient = await direct(ten.admin, 'create_ticket', { title: 'title' });
    expect((await send(ten, noClient, { title: 'x' })).json().error.details).toMatchObject({ reason: 'invalid_fields', problems: [{ path: 'client_id' }] });
    expect(await countOf('tickets', ten.tenant)).toBe(0);
  });
});

describe('client and contact actions', () => {
  it('upsert_client_by_external_id creates, then updates the same client (client.created, client.updated)', async () => {
    const ten = await makeTenant(t);
    const hook = await direct(ten.admin, 'upsert_client_by_external_id', {
      external_id: 'account.id',
      client_name: '$trim(account.name)',
      client_type: 'account.kind',
      billing_cycle: 'account.billing',
      is_inactive: 'account.closed',
    });
    const first = await send(ten, hook, { account: { id: 1001, name: ' Acme ', kind: 'Company', closed: 'false' } });
    expectStatus(first, 200);
    const created = first.json().result;
    expect(created).toMatchObject({ entity_type: 'client', external_id: '1001', operation: 'created' });
    const second = await send(ten, hook, { account: { id: 1001, name: 'Acme Ltd', billing: 'quarterly', closed: true } });
    expect(second.json().result).toMatchObject({ entity_id: created.entity_id, operation: 'updated' });
    const client = (await ten.admin.get(`/api/v1/clients/${created.entity_id}`)).json().data;
    expect(client).toMatchObject({ client_name: 'Acme Ltd', client_type: 'company', billing_cycle: 'quarterly', is_inactive: true });
    expect((await eventsOf(t, ten.tenant, created.entity_id)).map((e) => e.event_type)).toEqual(['client.created', 'client.updated']);
    expect(await countOf('clients', ten.tenant)).toBe(1);
  });

  it('recreates a client whose mapped record was deleted', async () => {
    const ten = await makeTenant(t);
    const hook = await direct(ten.admin, 'upsert_client_by_external_id', { external_id: 'id', client_name: 'name' });
    const first = (await send(ten, hook, { id: 'c', name: 'Short Lived' })).json().result;
    expectStatus(await ten.admin.delete(`/api/v1/clients/${first.entity_id}`), 204);
    const again = (await send(ten, hook, { id: 'c', name: 'Born Again' })).json().result;
    expect(again).toMatchObject({ operation: 'created' });
    expect(again.entity_id).not.toBe(first.entity_id);
  });

  it('concurrent upserts of one external id create one client', async () => {
    const ten = await makeTenant(t);
    const hook = await direct(ten.admin, 'upsert_client_by_external_id', { external_id: 'id', client_name: '"Racy Co"', payment_terms: 'terms' });
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => send(ten, hook, { id: 'race-1', terms: `net ${i}` })));
    for (const r of results) expectStatus(r, 200);
    const ops = results.map((r) => r.json().result.operation);
    expect(ops.filter((o) => o === 'created')).toHaveLength(1);
    expect(new Set(results.map((r) => r.json().result.entity_id)).size).toBe(1);
    expect(await countOf('clients', ten.tenant)).toBe(1);
    expect(await eventsOfType(t, ten.tenant, 'client.created')).toHaveLength(1);
  });

  it('upsert_contact_by_external_id creates and updates a contact (contact.created, contact.updated)', async () => {
    const ten = await makeTenant(t);
    const client = await makeClient(ten.admin);
    const hook = await direct(ten.admin, 'upsert_contact_by_external_id', { external_id: 'person.id', full_name: 'person.first & " " & person.last', email: 'person.email', client_id: `"${client.client_id}"`, role: 'person.role' });
    const first = await send(ten, hook, { person: { id: 'u-1', first: 'Ada', last: 'Lovelace', email: 'ada@example.test' } });
    expectStatus(first, 200);
    const created = first.json().result;
    const second = await send(ten, hook, { person: { id: 'u-1', first: 'Ada', last: 'King', email: 'ada@example.test', role: 'CTO' } });
    expect(second.json().result).toMatchObject({ entity_id: created.entity_id, operation: 'updated' });
    const contact = (await ten.admin.get(`/api/v1/contacts/${created.entity_id}`)).json().data;
    expect(contact).toMatchObject({ full_name: 'Ada King', email: 'ada@example.test', client_id: client.client_id, role: 'CTO' });
    expect((await eventsOf(t, ten.tenant, created.entity_id)).map((e) => e.event_type)).toEqual(['contact.created', 'contact.updated']);
    const bad = await send(ten, hook, { person: { id: 'u-2', first: 'No', last: 'Mail', email: 'not-an-address' } });
    expectError(bad, 422, 'UNPROCESSABLE');
    expect(bad.json().error.details).toMatchObject({ reason: 'invalid_fields', problems: [{ path: 'email' }] });
    expect(await countOf('contacts', ten.tenant)).toBe(1);
  });
});

describe('mapping failures are 422 and write nothing', () => {
  it('runtime errors, type mismatches, missing required fields, and runaway expressions', async () => {
    const ten = await makeTenant(t);
    const hook = await direct(ten.admin, 'upsert_client_by_external_id', {
      external_id: 'id',
      client_name: 'name',
      is_inactive: 'flag',
      payment_terms: '$number(terms) + 1',
      client_type: 'kind',
    });
    const cases: [unknown, Record<string, unknown>][] = [
      [{ id: 'a', name: 'X', terms: 'abc' }, { reason: 'mapping_failed', field: 'payment_terms' }],
      [{ id: 'a', name: 'X', flag: 'maybe' }, { reason: 'invalid_field', field: 'is_inactive' }],
      [{ id: 'a', name: 'X', kind: 'alien' }, { reason: 'invalid_field', field: 'client_type' }],
      [{ id: 'a', name: { first: 'X' } }, { reason: 'invalid_field', field: 'client_name' }],
      [{ id: 'a', name: ['X', 'Y'] }, { reason: 'invalid_field', field: 'client_name' }],
      [{ id: 'a', name: '   ' }, { reason: 'missing_field', fields: ['client_name'] }],
      [{ name: 'X' }, { reason: 'missing_field', fields: ['external_id'] }],
      [{ id: 'a', name: 'x'.repeat(256) }, { reason: 'invalid_field', field: 'client_name' }],
    ];
    for (const [body, details] of cases) {
      const res = await send(ten, hook, body);
      expectError(res, 422, 'UNPROCESSABLE');
      expect(res.json().error.details, JSON.stringify(body)).toMatchObject({ delivery_id: expect.any(String), ...details });
    }
    const slow = await direct(ten.admin, 'upsert_client_by_external_id', { external_id: 'id', client_name: '$string($sum([1..90000].($ * 2)) + $count($map([1..90000], function($v) { $v * $v })))' });
    const timedOut = await send(ten, slow, { id: 'slow' });
    expectError(timedOut, 422, 'UNPROCESSABLE');
    expect(timedOut.json().error.details).toMatchObject({ reason: 'mapping_timeout', field: 'client_name' });
    const recursive = await direct(ten.admin, 'upsert_client_by_external_id', { external_id: 'id', client_name: '($f := function($n) { $n = 0 ? "done" : $f($n - 1) }; $f(100000))' });
    expectError(await send(ten, recursive, { id: 'deep' }), 422, 'UNPROCESSABLE');

    expect(await countOf('clients', ten.tenant)).toBe(0);
    expect(await countOf('inbound_external_ids', ten.tenant)).toBe(0);
    expect(await eventsOfType(t, ten.tenant, 'client.created')).toEqual([]);
    const rows = await deliveryRows(t, ten.tenant, hook.inbound_webhook_id);
    expect(rows.every((r) => r.dispatch_status === 'failed' && r.response_status === 422)).toBe(true);
  });

  it('mappings see the filtered headers as $headers', async () => {
    const ten = await makeTenant(t);
    const hook = await direct(ten.admin, 'upsert_client_by_external_id', { external_id: '$headers."x-account"', client_name: 'name & " via " & $headers."user-agent"' });
    const res = await send(ten, hook, { name: 'Header Co' }, { 'x-account': 'acc-1', 'user-agent': 'crm/2' });
    expectStatus(res, 200);
    expect((await ten.admin.get(`/api/v1/clients/${res.json().result.entity_id}`)).json().data.client_name).toBe('Header Co via crm/2');
  });
});

describe('actions run as the configuration\'s creator', () => {
  /** A tenant whose Integrator (a role that may create clients) made a client-upserting webhook. */
  async function integratorWebhook() {
    const ten = await makeTenant(t);
    const role = await ten.admin.post('/api/v1/roles', { role_name: 'Integrator', permissions: ['inbound_webhook:create', 'inbound_webhook:read', 'client:create', 'client:update', 'client:read'] });
    expectStatus(role, 201);
    const integrator = await makeUser(t, ten.tenant, { role: 'Integrator' });
    const hook = await direct(integrator.api, 'upsert_client_by_external_id', { external_id: 'id', client_name: 'name' });
    return { ten, roleId: role.json().data.role_id as string, integrator, hook };
  }

  it('a deactivated creator or one who lost the permission fails the delivery with 422', async () => {
    const { ten, roleId, integrator, hook } = await integratorWebhook();
    expect(hook.created_by_user_id).toBe(integrator.userId);
    const ok = await send(ten, hook, { id: '1', name: 'Owned Co' });
    expectStatus(ok, 200);
    expect((await eventsOf(t, ten.tenant, ok.json().result.entity_id))[0]!.event_type).toBe('client.created');

    expectStatus(await ten.admin.put(`/api/v1/roles/${roleId}`, { permissions: ['inbound_webhook:create', 'inbound_webhook:read', 'client:read', 'client:update'] }), 200);
    const denied = await send(ten, hook, { id: '2', name: 'Denied Co' });
    expectError(denied, 422, 'UNPROCESSABLE');
    expect(denied.json().error.details).toMatchObject({ reason: 'permission_denied', required: ['client:create'] });

    // Through the API, as an admin would: the cached owner goes with the change.
    expectStatus(await ten.admin.put(`/api/v1/users/${integrator.userId}`, { is_inactive: true }), 200);
    const inactive = await send(ten, hook, { id: '3', name: 'Nobody Co' });
    expectError(inactive, 422, 'UNPROCESSABLE');
    expect(inactive.json().error.details).toMatchObject({ reason: 'owner_inactive' });
    expect(await countOf('clients', ten.tenant)).toBe(1);
  });

  it('a role change another process notifies reaches the creator cached by earlier deliveries', async () => {
    const { ten, roleId, hook } = await integratorWebhook();
    expectStatus(await send(ten, hook, { id: '1', name: 'Owned Co' }), 200);
    // What another process's role change does: the rows change and the auth channel is notified on commit.
    await t.database.db.deleteFrom('role_permissions').where('tenant', '=', ten.tenant).where('role_id', '=', roleId).where('permission', '=', 'client:create').execute();
    await sql`select pg_notify('psa_auth_invalidate', ${ten.tenant})`.execute(t.database.db);
    let n = 1;
    await expect.poll(async () => (await send(ten, hook, { id: String(++n), name: `Co ${n}` })).json().error?.details?.reason).toBe('permission_denied');
  });
});
