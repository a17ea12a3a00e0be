import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/harness.ts';
import { apiFor, makeTenant, makeUser } from '../../../test/factories.ts';
import { anonymous, expectError, expectStatus, makeClient, makeContact, randomId, tombstone } from '../../../test/client-factories.ts';
import { defaultBoard, makeBoard, makeTicket, prioritiesOf, ticketEvents, type TicketJson } from '../../../test/ticket-factories.ts';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => { await t.close(); });

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const rows = (table: 'ticket_comments' | 'ticket_tags', tenant: string, ticketId: string) =>
  t.database.db.selectFrom(table).selectAll().where('tenant', '=', tenant).where('ticket_id', '=', ticketId).execute();

async function getTicket(api: ReturnType<typeof apiFor>, id: string): Promise<TicketJson> {
  const res = await api.get(`/api/v1/tickets/${id}`);
  expectStatus(res, 200);
  return res.json().data as TicketJson;
}

describe('tenant ticket defaults', () => {
  it('a new tenant has the board General (Open, In Progress, Closed) and the priorities Low, Medium, High', async () => {
    const { admin } = await makeTenant(t);
    const { board, statuses } = await defaultBoard(admin);
    expect(board).toMatchObject({ board_name: 'General', is_default: true, is_active: true });
    expect(Object.values(statuses).map((s) => [s.name, s.is_closed, s.is_default, s.order_number])).toEqual([
      ['Open', false, true, 1],
      ['In Progress', false, false, 2],
      ['Closed', true, false, 3],
    ]);
    const priorities = await prioritiesOf(admin);
    expect(Object.values(priorities).map((p) => [p.priority_name, p.is_default])).toEqual([['Low', false], ['Medium', true], ['High', false]]);
  });
});

describe('POST /api/v1/tickets', () => {
  it('takes each missing default from the tenant, and names the one it lacks (default status, default priority) in a 422', async () => {
    const { tenant, admin } = await makeTenant(t);
    const client = await makeClient(admin);
    const { board, statuses } = await defaultBoard(admin);
    const priorities = await prioritiesOf(admin);
    const other = await makeBoard(admin, { board_name: 'Projects desk' });
    const onOther = await admin.post('/api/v1/tickets', { title: 'On the other board', client_id: client.client_id, board_id: other.board_id });
    expectStatus(onOther, 201);
    expect(onOther.json().data).toMatchObject({ board_id: other.board_id, priority_id: priorities.Medium!.priority_id, status_name: 'Open' });
    expect(onOther.json().data.status_id).not.toBe(statuses.Open!.status_id);

    const db = t.database.db;
    await db.updateTable('ticket_priorities').set({ is_default: false }).where('tenant', '=', tenant).execute();
    for (const body of [{}, { board_id: other.board_id }]) {
      const res = await admin.post('/api/v1/tickets', { title: 'No priority', client_id: client.client_id, ...body });
      expectError(res, 422, 'UNPROCESSABLE');
      expect(res.json().error.message).toMatch(/no default priority/);
    }
    const withPriority = await admin.post('/api/v1/tickets', { title: 'Named priority', client_id: client.client_id, priority_id: priorities.High!.priority_id });
    expectStatus(withPriority, 201);
    expect(withPriority.json().data).toMatchObject({ board_id: board.board_id, status_id: statuses.Open!.status_id, priority_name: 'High' });

    await db.updateTable('ticket_statuses').set({ is_default: false }).where('tenant', '=', tenant).where('board_id', '=', board.board_id).execute();
    const noStatus = await admin.post('/api/v1/tickets', { title: 'No status', client_id: client.client_id, priority_id: priorities.High!.priority_id });
    expectError(noStatus, 422, 'UNPROCESSABLE');
    expect(noStatus.json().error.message).toBe(`Board '${board.board_id}' has no default status; send status_id`);
    const withStatus = await admin.post('/api/v1/tickets', { title: 'Named status', client_id: client.client_id, priority_id: priorities.High!.priority_id, status_id: statuses.Closed!.status_id });
    expectStatus(withStatus, 201);
    expect(withStatus.json().data).toMatchObject({ board_id: board.board_id, status_name: 'Closed', is_closed: true });
  });

  it('creates a ticket from a title and a client, with the tenant\'s defaults, a ticket number, Location and ETag', async () => {
    const { adminUserId, admin } = await makeTenant(t);
    const client = await makeClient(admin, { client_name: 'Acme' });
    const { board, statuses } = await defaultBoard(admin);
    const priorities = await prioritiesOf(admin);
    const res = await admin.post('/api/v1/tickets', { title: '  Printer on fire  ', client_id: client.client_id });
    expectStatus(res, 201);
    const ticket = res.json().data as TicketJson;
    expect(res.headers.location).toBe(`/api/v1/tickets/${ticket.ticket_id}`);
    expect(res.headers.etag).toBeTruthy();
    expect(ticket).toMatchObject({
      ticket_number: 'T-000001',
      title: 'Printer on fire',
      description: null,
      board_id: board.board_id,
      board_name: 'General',
      status_id: statuses.Open!.status_id,
      status_name: 'Open',
      is_closed: false,
      priority_id: priorities.Medium!.priority_id,
      priority_name: 'Medium',
      category_id: null,
      subcategory_id: null,
      client_id: client.client_id,
      client_name: 'Acme',
      contact_name_id: null,
      assigned_to: null,
      assigned_team_id: null,
      due_date: null,
      tags: [],
      entered_by: adminUserId,
      entered_by_name: 'Admin',
      updated_by: adminUserId,
      closed_at: null,
      closed_by: null,
    });
    expect(ticket.entered_at).toMatch(ISO_MS);
    expect(ticket.updated_at).toBe(ticket.entered_at);
    expect(await getTicket(admin, ticket.ticket_id)).toEqual(ticket);
    expect((await makeTicket(admin, client.client_id)).ticket_number).toBe('T-000002');
  });

  it('takes every optional field and shows the names it refers to', async () => {
    const { tenant, admin } = await makeTenant(t);
    const client = await makeClient(admin);
    const contact = await makeContact(admin, { client_id: client.client_id, full_name: 'Ada Lovelace', email: 'ada@acme.test' });
    const tech = await makeUser(t, tenant, { role: 'Technician' });
    const team = (await admin.post('/api/v1/teams', { team_name: 'Desk' })).json().data;
    const board = await makeBoard(admin, { board_name: 'Projects' });
    const priorities = await prioritiesOf(admin);
    const category = (await admin.post('/api/v1/categories', { category_name: 'Hardware' })).json().data;
    const sub = (await admin.post('/api/v1/categories', { category_name: 'Printers', parent_category_id: category.category_id })).json().data;
    const ticket = await makeTicket(admin, client.client_id, {
      description: '# Steps\n\n  1. turn it off',
      board_id: board.board_id,
      status_id: board.statuses['In Progress']!.status_id,
      priority_id: priorities.High!.priority_id,
      category_id: category.category_id,
      subcategory_id: sub.category_id,
      contact_name_id: contact.contact_id,
      assigned_to: tech.userId,
      assigned_team_id: team.team_id,
      due_date: '2027-01-15T09:30:00Z',
      tags: [' vpn ', 'Urgent', 'VPN', 'alpha'],
    });
    expect(ticket).toMatchObject({
      description: '# Steps\n\n  1. turn it off',
      board_name: board.board_name,
      status_name: 'In Progress',
      priority_name: 'High',
      category_name: 'Hardware',
      subcategory_name: 'Printers',
      contact_name: 'Ada Lovelace',
      contact_email: 'ada@acme.test',
      assigned_to: tech.userId,
      assigned_to_name: 'Test User',
      assigned_team_id: team.team_id,
      assigned_team_name: 'Desk',
      due_date: '2027-01-15T09:30:00.000Z',
      tags: ['alpha', 'Urgent', 'vpn'],
    });
  });

  it('creates a ticket directly in a closed status as closed', async () => {
    const { adminUserId, admin } = await makeTenant(t);
    const client = await makeClient(admin);
    const { statuses } = await defaultBoard(admin);
    const ticket = await makeTicket(admin, client.client_id, { status_id: statuses.Closed!.status_id });
    expect(ticket).toMatchObject({ is_closed: true, closed_by: adminUserId, closed_at: ticket.entered_at });
  });

  it('numbers concurrent creates without collisions, and grows past six digits (sorting numerically)', async () => {
    const { tenant, admin } = await makeTenant(t);
    const client = await makeClient(admin);
    const made = await Promise.all(Array.from({ length: 8 }, () => makeTicket(admin, client.client_id)));
    expect(new Set(made.map((m) => m.ticket_number)).size).toBe(8);
    expect(made.map((m) => m.ticket_number).sort()).toEqual(['T-000001', 'T-000002', 'T-000003', 'T-000004', 'T-000005', 'T-000006', 'T-000007', 'T-000008']);
    await t.database.db.updateTable('ticket_number_counters').set({ last_number: 999_999 }).where('tenant', '=', tenant).execute();
    const big = await makeTicket(admin, client.client_id);
    expect(big.ticket_number).toBe('T-1000000');
    const last = await admin.get('/api/v1/tickets?sort=ticket_number&order=desc&limit=1');
    expect(last.json().data[0].ticket_number).toBe('T-1000000');
  });

  it('answers 400 naming the field for missing, malformed or unknown input', async () => {
    const { admin } = await makeTenant(t);
    const client = await makeClient(admin);
    const cases: [Record<string, unknown>, string][] = [
      [{ client_id: client.client_id }, 'body.title'],
      [{ title: '   ', client_id: client.client_id }, 'body.title'],
      [{ title: 'x'.repeat(256), client_id: client.client_id }, 'body.title'],
      [{ title: 'No client' }, 'body.client_id'],
      [{ title: 'x', client_id: client.client_id, status: 'open' }, 'body.status'],
      [{ title: 'x', client_id: 'nope' }, 'body.client_id'],
      [{ title: 'x', client_id: client.client_id, due_date: '2027-01-01' }, 'body.due_date'],
      [{ title: 'x', client_id: client.client_id, tags: ['ok', ' '] }, 'body.tags[1]'],
      [{ title: 'x', client_id: client.client_id, tags: ['x'.repeat(65)] }, 'body.tags.0'],
      [{ title: 'x', client_id: client.client_id, tags: Array.from({ length: 51 }, (_, i) => `t${i}`) }, 'body.tags'],
    ];
    for (const [body, path] of cases) {
      const res = await admin.post('/api/v1/tickets', body);
      expectError(res, 400, 'VALIDATION_ERROR');
      expect(res.json().error.details.map((d: { path: string }) => d.path), JSON.stringify(body)).toContain(path);
    }
  });

  it('answers 400 naming the field for references that do not exist in the tenant or do not fit together', async () => {
    const { tenant, admin } = await makeTenant(t);
    const other = await makeTenant(t);
    const client = await makeClient(admin);
    const elsewhere = await makeClient(admin);
    const foreignClient = await makeClient(other.admin);
    const strangerContact = await makeContact(admin, { client_id: elsewhere.client_id });
    const portalUser = await makeUser(t, tenant, { role: 'Client User', userType: 'client', clientId: client.client_id });
    const board = await makeBoard(admin);
    const inactive = await makeBoard(admin, { is_active: false });
    const { statuses } = await defaultBoard(admin);
    const parent = (await admin.post('/api/v1/categories', { category_name: 'Parent' })).json().data;
    const child = (await admin.post('/api/v1/categories', { category_name: 'Child', parent_category_id: parent.category_id })).json().data;
    const scoped = (await admin.post('/api/v1/categories', { category_name: 'Scoped', board_id: board.board_id })).json().data;
    const unrelated = (await admin.post('/api/v1/categories', { category_name: 'Unrelated' })).json().data;
    const base = { title: 'x', client_id: client.client_id };
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [{ ...base, client_id: randomId() }, 'body.client_id', /no client/],
      [{ ...base, client_id: foreignClient.client_id }, 'body.client_id', /no client/],
      [{ ...base, board_id: randomId() }, 'body.board_id', /no board/],
      [{ ...base, board_id: inactive.board_id }, 'body.board_id', /inactive/],
      [{ ...base, status_id: randomId() }, 'body.status_id', /no status/],
      [{ ...base, status_id: board.statuses.Open!.status_id }, 'body.status_id', /does not belong to board/],
      [{ ...base, board_id: board.board_id, status_id: statuses.Open!.status_id }, 'body.status_id', /does not belong to board/],
      [{ ...base, priority_id: randomId() }, 'body.priority_id', /no priority/],
      [{ ...base, category_id: randomId() }, 'body.category_id', /no category/],
      [{ ...base, category_id: child.category_id }, 'body.category_id', /is a subcategory/],
      [{ ...base, category_id: scoped.category_id }, 'body.category_id', /belongs to board/],
      [{ ...base, subcategory_id: child.category_id }, 'body.subcategory_id', /needs its parent/],
      [{ ...base, category_id: unrelated.category_id, subcategory_id: child.category_id }, 'body.subcategory_id', /not a subcategory/],
      [{ ...base, contact_name_id: randomId() }, 'body.contact_name_id', /no contact/],
      [{ ...base, contact_name_id: strangerContact.contact_id }, 'body.contact_name_id', /does not belong to client/],
      [{ ...base, assigned_to: randomId() }, 'body.assigned_to', /no user/],
      [{ ...base, assigned_to: portalUser.userId }, 'body.assigned_to', /client-portal user/],
      [{ ...base, assigned_team_id: randomId() }, 'body.assigned_team_id', /no team/],
    ];
    for (const [body, path, message] of cases) {
      const res = await admin.post('/api/v1/tickets', body);
      expectError(res, 400, 'VALIDATION_ERROR');
      expect(res.json().error.details, JSON.stringify(body)).toEqual([{ path, message: expect.stringMatching(message) }]);
    }
    const list = await admin.get('/api/v1/tickets');
    expect(list.json().pagination.total).toBe(0);
    // The refused creates used up no number: the first ticket made is still T-000001, and nothing stays reserved.
    expect((await makeTicket(admin, client.client_id)).ticket_number).toBe('T-000001');
    expect(await t.database.db.selectFrom('number_reservations').selectAll().where('tenant', '=', tenant).execute()).toEqual([]);
  });

  it('accepts a board-scoped category on its board and an inactive user is refused', async () => {
    const { tenant, admin } = await makeTenant(t);
    const client = await makeClient(admin);
    const board = await makeBoard(admin);
    const scoped = (await admin.post('/api/v1/categories', { category_name: 'Scoped', board_id: board.board_id })).json().data;
    const ticket = await makeTicket(admin, client.client_id, { board_id: board.board_id, category_id: scoped.category_id });
    expect(ticket).toMatchObject({ board_id: board.board_id, status_name: 'Open', category_name: 'Scoped' });
    const tech = await makeUser(t, tenant, { role: 'Technician' });
    await t.database.db.updateTable('users').set({ is_inactive: true }).where('tenant', '=', tenant).where('user_id', '=', tech.userId).execute();
    const res = await admin.post('/api/v1/tickets', { title: 'x', client_id: client.client_id, assigned_to: tech.userId });
    expectError(res, 400, 'VALIDATION_ERROR');
    expect(res.json().error.details[0]).toMatchObject({ path: 'body.assigned_to', message: expect.stringMatching(/inactive/) });
  });

  it('answers 409 for a merged client', async () => {
    const { tenant, admin } = await makeTenant(t);
    const source = await makeClient(admin);
    const target = await makeClient(admin);
    await tombstone(t, tenant, source.client_id, target.client_id);
    const res = await admin.post('/api/v1/tickets', { title: 'x', client_id: source.client_id });
    expectError(res, 409, 'CONFLICT');
    expect(res.json().error.message).toMatch(/merged into client/);
  });

  it('answers 401 without a key and 403 to a Viewer', async () => {
    const { tenant, admin } = await makeTenant(t);
    const client = await makeClient(admin);
    expectError(await anonymous(t).post('/api/v1/tickets', { title: 'x', client_id: client.client_id }), 401, 'UNAUTHORIZED');
    const viewer = await makeUser(t, tenant, { role: 'Viewer' });
    const res = await viewer.api.post('/api/v1/tickets', { title: 'x', client_id: client.client_id });
    expectError(res, 403, 'FORBIDDEN');
    expect(res.json().error.details).toEqual({ required: ['ticket:create'] });
  });
});

describe('GET /api/v1/tickets/{ticketId}', () => {
  it('returns the ticket with an ETag and answers 304 to If-None-Match', async () => {
    const { admin } = await makeTenant(t);
    const client = await makeClient(admin);
    const ticket = await makeTicket(admin, client.client_id);
    const res = await admin.get(`/api/v1/tickets/${ticket.ticket_id}`);
    expectStatus(res, 200);
    expect(res.json().data).toEqual(ticket);
    expect(res.json().data.updated_at).toMatch(ISO_MS);
    expectStatus(await admin.get(`/api/v1/tickets/${ticket.ticket_id}`, { 'if-none-match': String(res.headers.etag) }), 304);
  });

  it('answers 400 for a malformed id, 401, 403 without ticket:read, and 404 for an unknown or foreign ticket', async () => {
    const a = await makeTenant(t);
    const b = await makeTenant(t);
    const ticket = await makeTicket(a.admin, (await makeClient(a.admin)).client_id);
    const url = `/api/v1/tickets/${ticket.ticket_id}`;
    expectError(await a.admin.get('/api/v1/tickets/not-a-uuid'), 400, 'VALIDATION_ERROR');
    expectError(await a.admin.get(`${url}?expand=1`), 400, 'VALIDATION_ERROR');
    expectError(await anonymous(t).get(url), 401, 'UNAUTHORIZED');
    const narrowed = await makeUser(t, a.tenant, { role: 'Admin', scopes: ['client:read'] });
    expectError(await narrowed.api.get(url), 403, 'FORBIDDEN');
    expectError(await a.admin.get(`/api/v1/tickets/${randomId()}`), 404, 'NOT_FOUND');
    expectError(await b.admin.get(url), 404, 'NOT_FOUND');
  });
});

describe('PUT /api/v1/tickets/{ticketId}', () => {
  it('updates the given fields, bumps updated_at and updated_by, and keeps the rest', async () => {
    const { tenant, admin } = await makeTenant(t);
    const client = await makeClient(admin);
    const ticket = await makeTicket(admin, client.client_id, { description: 'old', tags: ['a'] });
    const tech = await makeUser(t, tenant, { role: 'Technician' });
    const priorities = await prioritiesOf(admin);
    const res = await tech.api.put(`/api/v1/tickets/${ticket.ticket_id}`, {
      title: 'New title',
      description: '  ',
      priority_id: priorities.Low!.priority_id,
      due_date: '2027-03-01T12:00:00.000Z',
      tags: ['b', 'A'],
    });
    expectStatus(res, 200);
    const updated = res.json().data as TicketJson;
    expect(updated).toMatchObject({
      title: 'New title',
      description: null,
      priority_name: 'Low',
      due_date: '2027-03-01T12:00:00.000Z',
      tags: ['A', 'b'],
      updated_by: tech.userId,
      entered_at: ticket.entered_at,
      status_id: ticket.status_id,
    });
    expect(updated.updated_at > ticket.updated_at).toBe(true);
    expect(res.headers.etag).toBeTruthy();
    expect(await getTicket(admin, ticket.ticket_id)).toEqual(updated);
  });

  it('changes nothing, not even updated_at, when the body matches the ticket', async () => {
    const { tenant, admin } = await makeTenant(t);
    const client = await makeClient(admin);
    const ticket = await makeTicket(admin, client.client_id, { tags: ['x', 'Y'], due_date: '2027-01-01T00:00:00Z' });
    const res = await admin.put(`/api/v1/tickets/${ticket.ticket_id}`, {
      title: ticket.title,
      status_id: ticket.status_id,
      tags: ['Y', 'x'],
      due_date: '2027-01-01T00:00:00.000+00:00',
      assigned_to: null,
      suppress_internal_notifications: true,
    });
    expectStatus(res, 200);
    expect(res.json().data).toEqual(ticket);
    expect((await ticketEvents(t, tenant, ticket.ticket_id)).map((e) => e.event_type)).toEqual(['ticket.created']);
  });

  it('closes with closed_at and closed_by set by the server, and reopening clears them', async () => {
    const { tenant, adminUserId, admin } = await makeTenant(t);
    const client = await makeClient(admin);
    const { statuses } = await defaultBoard(admin);
    const ticket = await makeTicket(admin, client.client_id);
    const closed = await admin.put(`/api/v1/tickets/${ticket.ticket_id}`, { status_id: statuses.Closed!.status_id });
    expectStatus(closed, 200);
    expect(closed.json().data).toMatchObject({ is_closed: true, status_name: 'Closed', closed_by: adminUserId });
    expect(closed.json().data.closed_at).toBe(closed.json().data.updated_at);
    const tech = await makeUser(t, tenant, { role: 'Technician' });
    const reopened = await tech.api.put(`/api/v1/tickets/${ticket.ticket_id}`, { status_id: statuses['In Progress']!.status_id });
    expectStatus(reopened, 200);
    expect(reopened.json().data).toMatchObject({ is_closed: false, closed_at: null, closed_by: null, updated_by: tech.userId });
  });

  it('moves a ticket to another board only with a status of that board', async () => {
    const { tenant, admin } = await makeTenant(t);
    const client = await makeClient(admin);
    const ticket = await makeTicket(admin, client.client_id, { title: 'Keep me' });
    const board = await makeBoard(admin);
    const url = `/api/v1/tickets/${ticket.ticket_id}`;
    const missing = await admin.put(url, { board_id: board.board_id, title: 'Changed' });
    expectError(missing, 400, 'VALIDATION_ERROR');
    expect(missing.json().error.details).toEqual([{ path: 'body.status_id', message: expect.stringMatching(/send a status_id of board/) }]);
    const wrong = await admin.put(url, { status_id: board.statuses.Open!.status_id });
    expectError(wrong, 400, 'VALIDATION_ERROR');
    expect(wrong.json().error.details[0].path).toBe('body.status_id');
    expect((await getTicket(admin, ticket.ticket_id)).title).toBe('Keep me');
    expect((await ticketEvents(t, tenant, ticket.ticket_id)).map((e) => e.event_type)).toEqual(['ticket.created']);
    const moved = await admin.put(url, { board_id: board.board_id, status_id: board.statuses['In Progress']!.status_id });
    expectStatus(moved, 200);
    expect(moved.json().data).toMatchObject({ board_id: board.board_id, board_name: board.board_name, status_name: 'In Progress' });
  });

  it('moves a ticket to another client only with a contact of that client (or none)', async () => {
    const { admin } = await makeTenant(t);
    const a = await makeClient(admin);
    const b = await makeClient(admin);
    const contactA = await makeContact(admin, { client_id: a.client_id });
    const contactB = await makeContact(admin, { client_id: b.client_id });
    const ticket = await makeTicket(admin, a.client_id, { contact_name_id: contactA.contact_id });
    const url = `/api/v1/tickets/${ticket.ticket_id}`;
    const res = await admin.put(url, { client_id: b.client_id });
    expectError(res, 400, 'VALIDATION_ERROR');
    expect(res.json().error.details[0].path).toBe('body.contact_name_id');
    expectError(await admin.put(url, { contact_name_id: contactB.contact_id }), 400, 'VALIDATION_ERROR');
    const moved = await admin.put(url, { client_id: b.client_id, contact_name_id: contactB.contact_id });
    expectStatus(moved, 200);
    expect(moved.json().data).toMatchObject({ client_id: b.client_id, client_name: b.client_name, contact_name_id: contactB.contact_id });
    const cleared = await admin.put(url, { client_id: a.client_id, contact_name_id: null });
    expectStatus(cleared, 200);
    expect(cleared.json().data).toMatchObject({ client_id: a.client_id, contact_name_id: null, contact_name: null });
  });

  it('keeps category and subcategory consistent with the board and each other', async () => {
    const { admin } = await makeTenant(t);
    const client = await makeClient(admin);
    const board = await makeBoard(admin);
    const { statuses } = await defaultBoard(admin);
    const hw = (await admin.post('/api/v1/categories', { category_name: 'Hardware' })).json().data;
    const printers = (await admin.post('/api/v1/categories', { category_name: 'Printers', parent_category_id: hw.category_id })).json().data;
    const sw = (await admin.post('/api/v1/categories', { category_name: 'Software' })).json().data;
    const scoped = (await admin.post('/api/v1/categories', { category_name: 'Scoped', board_id: board.board_id })).json().data;
    const ticket = await makeTicket(admin, client.client_id, { category_id: hw.category_id, subcategory_id: printers.category_id });
    const url = `/api/v1/tickets/${ticket.ticket_id}`;
    const orphaned = await admin.put(url, { category_id: sw.category_id });
    expectError(orphaned, 400, 'VALIDATION_ERROR');
    expect(orphaned.json().error.details[0]).toMatchObject({ path: 'body.subcategory_id', message: expect.stringMatching(/send subcategory_id/) });
    expectStatus(await admin.put(url, { category_id: sw.category_id, subcategory_id: null }), 200);
    expectStatus(await admin.put(url, { board_id: board.board_id, status_id: board.statuses.Open!.status_id, category_id: scoped.category_id }), 200);
    const back = await admin.put(url, { board_id: ticket.board_id, status_id: statuses.Open!.status_id });
    expectError(back, 400, 'VALIDATION_ERROR');
    expect(back.json().error.details[0]).toMatchObject({ path: 'body.category_id', message: expect.stringMatching(/send category_id/) });
  });

  it('answers 400 for an empty body, an unknown field, a blank title or a malformed id', async () => {
    const { admin } = await makeTenant(t);
    const ticket = await makeTicket(admin, (await makeClient(admin)).client_id);
    const url = `/api/v1/tickets/${ticket.ticket_id}`;
    expectError(await admin.put(url, {}), 400, 'VALIDATION_ERROR');
    expectError(await admin.put(url, { ticket_number: 'T-9' }), 400, 'VALIDATION_ERROR');
    expectError(await admin.put(url, { title: ' ' }), 400, 'VALIDATION_ERROR');
    expectError(await admin.put(url, { client_id: null }), 400, 'VALIDATION_ERROR');
    expectError(await admin.put('/api/v1/tickets/not-a-uuid', { title: 'x' }), 400, 'VALIDATION_ERROR');
  });

  it('honours If-Match: 412 on a stale ETag (nothing written), 200 on the current one', async () => {
    const { tenant, admin } = await makeTenant(t);
    const ticket = await makeTicket(admin, (await makeClient(admin)).client_id);
    const url = `/api/v1/tickets/${ticket.ticket_id}`;
    const etag = String((await admin.get(url)).headers.etag);
    const first = await admin.put(url, { title: 'First' }, { 'if-match': etag });
    expectStatus(first, 200);
    const stale = await admin.put(url, { title: 'Second' }, { 'if-match': etag });
    expectError(stale, 412, 'PRECONDITION_FAILED');
    expect(stale.json().error.details.current_etag).toBe(first.headers.etag);
    expect((await getTicket(admin, ticket.ticket_id)).title).toBe('First');
    expect((await ticketEvents(t, tenant, ticket.ticket_id)).map((e) => e.event_type)).toEqual(['ticket.created', 'ticket.updated']);
  });

  it('answers 401, 403 to a Viewer, and 404 for an unknown or foreign ticket', async () => {
    const a = await makeTenant(t);
    const b = await makeTenant(t);
    const ticket = await makeTicket(a.admin, (await makeClient(a.admin)).client_id);
    const url = `/api/v1/tickets/${ticket.ticket_id}`;
    expectError(await apiFor(t, 'psa_nope').put(url, { title: 'x' }), 401, 'UNAUTHORIZED');
    const viewer = await makeUser(t, a.tenant, { role: 'Viewer' });
    expectError(await viewer.api.put(url, { title: 'x' }), 403, 'FORBIDDEN');
    expectError(await a.admin.put(`/api/v1/tickets/${randomId()}`, { title: 'x' }), 404, 'NOT_FOUND');
    expectError(await b.admin.put(url, { title: 'x' }), 404, 'NOT_FOUND');
  });
});

describe('PUT /api/v1/tickets/{ticketId}/status and /assignment', () => {
  it('moves the ticket to a status of its board', async () => {
    const { admin } = await makeTenant(t);
    const { statuses } = await defaultBoard(admin);
    const other = await makeBoard(admin);
    const ticket = await makeTicket(admin, (await makeClient(admin)).client_id);
    const url = `/api/v1/tickets/${ticket.ticket_id}/status`;
    const res = await admin.put(url, { status_id: statuses['In Progress']!.status_id });
    expectStatus(res, 200);
    expect(res.json().data).toMatchObject({ status_name: 'In Progress', is_closed: false });
    expect(res.headers.etag).toBeTruthy();
    const wrong = await admin.put(url, { status_id: other.statuses.Open!.status_id });
    expectError(wrong, 400, 'VALIDATION_ERROR');
    expect(wrong.json().error.details[0].path).toBe('body.status_id');
    expectError(await admin.put(url, {}), 400, 'VALIDATION_ERROR');
    expectError(await admin.put(url, { status_id: statuses.Open!.status_id, board_id: other.board_id }), 400, 'VALIDATION_ERROR');
  });

  it('assigns and unassigns a user and a team', async () => {
    const { tenant, admin } = await makeTenant(t);
    const tech = await makeUser(t, tenant, { role: 'Technician' });
    const team = (await admin.post('/api/v1/teams', { team_name: 'Desk' })).json().data;
    const ticket = await makeTicket(admin, (await makeClient(admin)).client_id);
    const url = `/api/v1/tickets/${ticket.ticket_id}/assignment`;
    const res = await admin.put(url, { assigned_to: tech.userId, assigned_team_id: team.team_id });
    expectStatus(res, 200);
    expect(res.json().data).toMatchObject({ assigned_to: tech.userId, assigned_to_name: 'Test User', assigned_team_id: team.team_id, assigned_team_name: 'Desk' });
    const unassigned = await admin.put(url, { assigned_to: null });
    expectStatus(unassigned, 200);
    expect(unassigned.json().data).toMatchObject({ assigned_to: null, assigned_to_name: null, assigned_team_id: team.team_id });
    const none = await admin.put(url, { suppress_contact_notifications: true });
    expectError(none, 400, 'VALIDATION_ERROR');
    expect(none.json().error.message).toMatch(/assigned_to, assigned_team_id or both/);
    expectError(await admin.put(url, { assigned_to: randomId() }), 400, 'VALIDATION_ERROR');
  });

  it('answers 403 to a Viewer and 404 for a foreign ticket', async () => {
    const a = await makeTenant(t);
    const b = await makeTenant(t);
    const { statuses } = await defaultBoard(a.admin);
    const ticket = await makeTicket(a.admin, (await makeClient(a.admin)).client_id);
    const viewer = await makeUser(t, a.tenant, { role: 'Viewer' });
    expectError(await viewer.api.put(`/api/v1/tickets/${ticket.ticket_id}/status`, { status_id: statuses.Closed!.status_id }), 403, 'FORBIDDEN');
    expectError(await viewer.api.put(`/api/v1/tickets/${ticket.ticket_id}/assignment`, { assigned_to: null }), 403, 'FORBIDDEN');
    expectError(await b.admin.put(`/api/v1/tickets/${ticket.ticket_id}/status`, { status_id: statuses.Closed!.status_id }), 404, 'NOT_FOUND');
    expectError(await b.admin.put(`/api/v1/tickets/${ticket.ticket_id}/assignment`, { assigned_to: null }), 404, 'NOT_FOUND');
  });
});

describe('DELETE /api/v1/tickets/{ticketId}', () => {
  it('deletes the ticket with its comments and tags and emits the internal ticket.deleted', async () => {
    const { tenant, admin } = await makeTenant(t);
    const ticket = await makeTicket(admin, (await makeClient(admin)).client_id, { tags: ['a', 'b'] });
    expectStatus(await admin.post(`/api/v1/tickets/${ticket.ticket_id}/comments`, { comment_text: 'hello' }), 201);
    const res = await admin.delete(`/api/v1/tickets/${ticket.ticket_id}`);
    expectStatus(res, 204);
    expect(res.body).toBe('');
    expectError(await admin.get(`/api/v1/tickets/${ticket.ticket_id}`), 404, 'NOT_FOUND');
    expect(await rows('ticket_comments', tenant, ticket.ticket_id)).toEqual([]);
    expect(await rows('ticket_tags', tenant, ticket.ticket_id)).toEqual([]);
    const last = (await ticketEvents(t, tenant, ticket.ticket_id)).at(-1)!;
    expect(last).toMatchObject({ event_type: 'ticket.deleted', aggregate_type: 'ticket', payload: { ticket_id: ticket.ticket_id, ticket_number: ticket.ticket_number } });
  });

  it('honours If-Match and answers 403 to a Technician (no ticket:delete), 404 for unknown or foreign', async () => {
    const a = await makeTenant(t);
    const b = await makeTenant(t);
    const ticket = await makeTicket(a.admin, (await makeClient(a.admin)).client_id);
    const url = `/api/v1/tickets/${ticket.ticket_id}`;
    const etag = String((await a.admin.get(url)).headers.etag);
    expectStatus(await a.admin.put(url, { title: 'changed' }), 200);
    expectError(await a.admin.delete(url, { 'if-match': etag }), 412, 'PRECONDITION_FAILED');
    const tech = await makeUser(t, a.tenant, { role: 'Technician' });
    expectError(await tech.api.delete(url), 403, 'FORBIDDEN');
    expectError(await anonymous(t).delete(url), 401, 'UNAUTHORIZED');
    expectError(await a.admin.delete(`/api/v1/tickets/${randomId()}`), 404, 'NOT_FOUND');
    expectError(await b.admin.delete(url), 404, 'NOT_FOUND');
    expectStatus(await a.admin.delete(url, { 'if-match': String((await a.admin.get(url)).headers.etag) }), 204);
  });
});

describe('tickets and the records they point at', () => {
  it('a client with tickets cannot be deleted (409 counting them)', async () => {
    const { admin } = await makeTenant(t);
    const client = await makeClient(admin);
    await makeTicket(admin, client.client_id);
    await makeTicket(admin, client.client_id);
    const res = await admin.delete(`/api/v1/clients/${client.client_id}`);
    expectError(res, 409, 'CONFLICT');
    expect(res.json().error.details).toEqual({ tickets: 2 });
  });

  it('deleting a contact, an assignee or a team leaves the ticket without that reference', async () => {
    const { tenant, admin } = await makeTenant(t);
    const client = await makeClient(admin);
    const contact = await makeContact(admin, { client_id: client.client_id });
    const tech = await makeUser(t, tenant, { role: 'Technician' });
    const team = (await admin.post('/api/v1/teams', { team_name: 'Gone' })).json().data;
    const ticket = await makeTicket(admin, client.client_id, { contact_name_id: contact.contact_id, assigned_to: tech.userId, assigned_team_id: team.team_id });
    expectStatus(await admin.delete(`/api/v1/contacts/${contact.contact_id}`), 204);
    expectStatus(await admin.delete(`/api/v1/users/${tech.userId}`), 204);
    expectStatus(await admin.delete(`/api/v1/teams/${team.team_id}`), 204);
    expect(await getTicket(admin, ticket.ticket_id)).toMatchObject({ contact_name_id: null, assigned_to: null, assigned_team_id: null, title: ticket.title });
  });
});

describe('client-portal keys', () => {
  it('see and create only their own client\'s tickets, with their client and contact as defaults', async () => {
    const { tenant, admin } = await makeTenant(t);
    const own = await makeClient(admin);
    const other = await makeClient(admin);
    const me = await makeContact(admin, { client_id: own.client_id, full_name: 'Portal Person' });
    const portal = await makeUser(t, tenant, { role: 'Client User', userType: 'client', clientId: own.client_id });
    await t.database.db.updateTable('users').set({ contact_id: me.contact_id }).where('tenant', '=', tenant).where('user_id', '=', portal.userId).execute();
    const mine = await makeTicket(admin, own.client_id);
    const theirs = await makeTicket(admin, other.client_id);

    const created = await portal.api.post('/api/v1/tickets', { title: 'Help' });
    expectStatus(created, 201);
    expect(created.json().data).toMatchObject({ client_id: own.client_id, contact_name_id: me.contact_id, contact_name: 'Portal Person', entered_by: portal.userId });
    const forOther = await portal.api.post('/api/v1/tickets', { title: 'x', client_id: other.client_id });
    expectError(forOther, 400, 'VALIDATION_ERROR');
    expect(forOther.json().error.details[0]).toMatchObject({ path: 'body.client_id', message: expect.stringMatching(/own client/) });

    expectStatus(await portal.api.get(`/api/v1/tickets/${mine.ticket_id}`), 200);
    expectError(await portal.api.get(`/api/v1/tickets/${theirs.ticket_id}`), 404, 'NOT_FOUND');
    const list = await portal.api.get('/api/v1/tickets');
    expect(list.json().data.map((x: TicketJson) => x.ticket_id).sort()).toEqual([mine.ticket_id, created.json().data.ticket_id].sort());
    expect(list.json().pagination.total).toBe(2);
    const filtered = await portal.api.get(`/api/v1/tickets?client_id=${other.client_id}`);
    expect(filtered.json()).toMatchObject({ data: [], pagination: { total: 0 } });
  });

  it('cannot assign tickets, and a Client Admin updates only their own client\'s tickets', async () => {
    const { tenant, admin } = await makeTenant(t);
    const own = await makeClient(admin);
    const other = await makeClient(admin);
    const tech = await makeUser(t, tenant, { role: 'Technician' });
    const user = await makeUser(t, tenant, { role: 'Client User', userType: 'client', clientId: own.client_id });
    const portalAdmin = await makeUser(t, tenant, { role: 'Client Admin', userType: 'client', clientId: own.client_id });
    expectError(await user.api.post('/api/v1/tickets', { title: 'x', assigned_to: tech.userId }), 403, 'FORBIDDEN');
    const mine = await makeTicket(admin, own.client_id);
    const theirs = await makeTicket(admin, other.client_id);
    expectError(await user.api.put(`/api/v1/tickets/${mine.ticket_id}`, { title: 'x' }), 403, 'FORBIDDEN');
    const res = await portalAdmin.api.put(`/api/v1/tickets/${mine.ticket_id}`, { title: 'Renamed by the client' });
    expectStatus(res, 200);
    expect(res.json().data.title).toBe('Renamed by the client');
    expectError(await portalAdmin.api.put(`/api/v1/tickets/${theirs.ticket_id}`, { title: 'x' }), 404, 'NOT_FOUND');
    expectError(await portalAdmin.api.put(`/api/v1/tickets/${mine.ticket_id}/assignment`, { assigned_to: tech.userId }), 403, 'FORBIDDEN');
    expectError(await portalAdmin.api.put(`/api/v1/tickets/${mine.ticket_id}`, { client_id: other.client_id }), 400, 'VALIDATION_ERROR');
  });
});
