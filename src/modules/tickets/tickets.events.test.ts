import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/harness.ts';
import { makeTenant, makeUser } from '../../../test/factories.ts';
import { expectError, expectStatus, makeClient, makeContact, tombstone } from '../../../test/client-factories.ts';
import { defaultBoard, makeBoard, makeTicket, prioritiesOf, ticketEvents, type TicketEventRow, type TicketJson } from '../../../test/ticket-factories.ts';
import { TICKET_DATA_FIELDS } from './tickets.vocabulary.ts';
import { toTicketData } from './tickets.mapper.ts';
import type { TicketViewRow } from './tickets.repo.ts';

const PUBLIC_URL = 'https://psa.example.test';
let t: TestApp;
beforeAll(async () => { t = await buildTestApp({ config: { publicUrl: PUBLIC_URL } }); });
afterAll(async () => { await t.close(); });

const SORTED_FIELDS = [...TICKET_DATA_FIELDS].sort();
const types = (events: TicketEventRow[]) => events.map((e) => e.event_type);

/** The events a write added: everything after the first `before` events of the ticket. */
async function eventsAfter(tenant: string, ticketId: string, before: number): Promise<TicketEventRow[]> {
  return (await ticketEvents(t, tenant, ticketId)).slice(before);
}

/** Every ticket event carries exactly the curated data fields (plus `comment` on comment events). */
function expectCuratedData(event: TicketEventRow): void {
  const keys = Object.keys(event.payload.data).filter((k) => k !== 'comment').sort();
  expect(keys, event.event_type).toEqual(SORTED_FIELDS);
  expect(event.aggregate_type).toBe('ticket');
  expect(event.aggregate_id).toBe(event.payload.data.ticket_id);
  expect(Object.keys(event.payload).sort()).toEqual(event.event_type === 'ticket.updated' ? ['changes', 'data'] : ['data']);
}

async function setup() {
  const f = await makeTenant(t);
  const client = await makeClient(f.admin, { client_name: 'Acme' });
  const { board, statuses } = await defaultBoard(f.admin);
  return { ...f, client, board, statuses };
}

describe('the curated data builder', () => {
  it('builds exactly TICKET_DATA_FIELDS, in that order', () => {
    const at = new Date('2026-01-02T03:04:05.678Z');
    const row = {
      tenant: 't', ticket_id: 'id', ticket_seq: 1, ticket_number: 'T-000001', title: 'x', description: null, board_id: 'b', status_id: 's',
      priority_id: 'p', category_id: null, subcategory_id: null, client_id: 'c', contact_id: null, billing_profile_id: null, assigned_to: null, assigned_team_id: null,
      due_date: null, is_closed: false, entered_by: null, entered_at: at, updated_by: null, updated_at: at, closed_by: null, closed_at: null,
      board_name: 'B', status_name: 'S', priority_name: 'P', client_name: 'C', category_name: null, subcategory_name: null, contact_name: null,
      contact_email: null, assigned_to_name: null, assigned_team_name: null, entered_by_name: null, tags: [],
    } satisfies TicketViewRow;
    const data = toTicketData(row, { previousStatus: null, suppress: { contact: false, internal: false }, publicUrl: 'https://x' });
    expect(Object.keys(data)).toEqual([...TICKET_DATA_FIELDS]);
    expect(data).toMatchObject({ entered_at: '2026-01-02T03:04:05.678Z', url: 'https://x/api/v1/tickets/id' });
  });
});

describe('ticket.created', () => {
  it('is the only event of a create, with the ticket\'s data as committed', async () => {
    const { tenant, admin, client, board, statuses } = await setup();
    const contact = await makeContact(admin, { client_id: client.client_id, full_name: 'Ada Lovelace', email: 'ada@acme.test' });
    const tech = await makeUser(t, tenant, { role: 'Technician' });
    const team = (await admin.post('/api/v1/teams', { team_name: 'Desk' })).json().data;
    const category = (await admin.post('/api/v1/categories', { category_name: 'Hardware' })).json().data;
    const sub = (await admin.post('/api/v1/categories', { category_name: 'Printers', parent_category_id: category.category_id })).json().data;
    const ticket = await makeTicket(admin, client.client_id, {
      title: 'Printer',
      contact_name_id: contact.contact_id,
      assigned_to: tech.userId,
      assigned_team_id: team.team_id,
      category_id: category.category_id,
      subcategory_id: sub.category_id,
      due_date: '2027-02-03T04:05:06.007Z',
      tags: ['b', 'a'],
    });
    const events = await ticketEvents(t, tenant, ticket.ticket_id);
    expect(types(events)).toEqual(['ticket.created']);
    expectCuratedData(events[0]!);
    expect(events[0]!.payload.data).toEqual({
      ticket_id: ticket.ticket_id,
      ticket_number: 'T-000001',
      title: 'Printer',
      status_id: statuses.Open!.status_id,
      status_name: 'Open',
      previous_status_id: null,
      previous_status_name: null,
      priority_id: ticket.priority_id,
      priority_name: 'Medium',
      client_id: client.client_id,
      client_name: 'Acme',
      contact_name_id: contact.contact_id,
      contact_name: 'Ada Lovelace',
      contact_email: 'ada@acme.test',
      assigned_to: tech.userId,
      assigned_to_name: 'Test User',
      assigned_team_id: team.team_id,
      board_id: board.board_id,
      board_name: 'General',
      category_id: category.category_id,
      subcategory_id: sub.category_id,
      is_closed: false,
      entered_at: ticket.entered_at,
      updated_at: ticket.updated_at,
      closed_at: null,
      due_date: '2027-02-03T04:05:06.007Z',
      tags: ['a', 'b'],
      suppress_contact_notifications: false,
      suppress_internal_notifications: false,
      url: `${PUBLIC_URL}/api/v1/tickets/${ticket.ticket_id}`,
    });
  });

  it('carries the suppress flags of the request; suppressing internal notifications implies the contact flag', async () => {
    const { tenant, admin, client } = await setup();
    const all = await makeTicket(admin, client.client_id, { suppress_internal_notifications: true });
    const contactOnly = await makeTicket(admin, client.client_id, { suppress_contact_notifications: true });
    const [a] = await ticketEvents(t, tenant, all.ticket_id);
    const [c] = await ticketEvents(t, tenant, contactOnly.ticket_id);
    expect(a!.payload.data).toMatchObject({ suppress_contact_notifications: true, suppress_internal_notifications: true });
    expect(c!.payload.data).toMatchObject({ suppress_contact_notifications: true, suppress_internal_notifications: false });
    expect(Object.keys(all)).not.toContain('suppress_contact_notifications');
  });
});

describe('ticket updates', () => {
  it('a plain field change emits exactly ticket.updated with changes', async () => {
    const { tenant, admin, client } = await setup();
    const ticket = await makeTicket(admin, client.client_id, { title: 'Old' });
    const res = await admin.put(`/api/v1/tickets/${ticket.ticket_id}`, { title: 'New', description: 'Details' });
    expectStatus(res, 200);
    const events = await eventsAfter(tenant, ticket.ticket_id, 1);
    expect(types(events)).toEqual(['ticket.updated']);
    expectCuratedData(events[0]!);
    expect(events[0]!.payload.changes).toEqual({ title: { previous: 'Old', new: 'New' }, description: { previous: null, new: 'Details' } });
    expect(events[0]!.payload.data).toMatchObject({ title: 'New', updated_at: res.json().data.updated_at, previous_status_id: null, previous_status_name: null });
  });

  it('a move to a closed status emits exactly ticket.updated, ticket.status_changed and ticket.closed, each with its own id', async () => {
    const { tenant, admin, client, statuses } = await setup();
    const ticket = await makeTicket(admin, client.client_id);
    const res = await admin.put(`/api/v1/tickets/${ticket.ticket_id}`, { status_id: statuses.Closed!.status_id });
    expectStatus(res, 200);
    const events = await eventsAfter(tenant, ticket.ticket_id, 1);
    expect(types(events)).toEqual(['ticket.updated', 'ticket.status_changed', 'ticket.closed']);
    expect(new Set(events.map((e) => e.event_id)).size).toBe(3);
    for (const e of events) {
      expectCuratedData(e);
      expect(e.payload.data).toMatchObject({
        status_id: statuses.Closed!.status_id,
        status_name: 'Closed',
        previous_status_id: statuses.Open!.status_id,
        previous_status_name: 'Open',
        is_closed: true,
        closed_at: res.json().data.closed_at,
        updated_at: res.json().data.updated_at,
      });
    }
    expect(events[0]!.payload.changes).toEqual({ status_id: { previous: statuses.Open!.status_id, new: statuses.Closed!.status_id } });
  });

  it('PUT /status: an open-to-open move, a closed-to-closed move and a reopening emit no ticket.closed', async () => {
    const { tenant, admin, client, board, statuses } = await setup();
    const archived = (await admin.post(`/api/v1/boards/${board.board_id}/statuses`, { name: 'Archived', is_closed: true })).json().data;
    const ticket = await makeTicket(admin, client.client_id);
    const url = `/api/v1/tickets/${ticket.ticket_id}/status`;
    const steps: [string, string[]][] = [
      [statuses['In Progress']!.status_id, ['ticket.updated', 'ticket.status_changed']],
      [statuses.Closed!.status_id, ['ticket.updated', 'ticket.status_changed', 'ticket.closed']],
      [archived.status_id, ['ticket.updated', 'ticket.status_changed']],
      [statuses.Open!.status_id, ['ticket.updated', 'ticket.status_changed']],
      [statuses.Open!.status_id, []],
    ];
    let seen = 1;
    for (const [statusId, expected] of steps) {
      expectStatus(await admin.put(url, { status_id: statusId }), 200);
      const events = await eventsAfter(tenant, ticket.ticket_id, seen);
      expect(types(events), statusId).toEqual(expected);
      seen += events.length;
    }
    const reopened = (await ticketEvents(t, tenant, ticket.ticket_id)).slice(-2);
    expect(reopened[1]!.payload.data).toMatchObject({ previous_status_name: 'Archived', status_name: 'Open', is_closed: false, closed_at: null });
  });

  it('PUT /assignment emits ticket.updated and ticket.assigned, for the user and for the team', async () => {
    const { tenant, admin, client } = await setup();
    const tech = await makeUser(t, tenant, { role: 'Technician' });
    const team = (await admin.post('/api/v1/teams', { team_name: 'Desk' })).json().data;
    const ticket = await makeTicket(admin, client.client_id);
    const url = `/api/v1/tickets/${ticket.ticket_id}/assignment`;
    expectStatus(await admin.put(url, { assigned_to: tech.userId }), 200);
    let events = await eventsAfter(tenant, ticket.ticket_id, 1);
    expect(types(events)).toEqual(['ticket.updated', 'ticket.assigned']);
    expect(events[0]!.payload.changes).toEqual({ assigned_to: { previous: null, new: tech.userId } });
    expect(events[1]!.payload.data).toMatchObject({ assigned_to: tech.userId, assigned_to_name: 'Test User', previous_status_id: null });
    events.forEach(expectCuratedData);

    expectStatus(await admin.put(url, { assigned_team_id: team.team_id, assigned_to: tech.userId }), 200);
    events = await eventsAfter(tenant, ticket.ticket_id, 3);
    expect(types(events)).toEqual(['ticket.updated', 'ticket.assigned']);
    expect(events[0]!.payload.changes).toEqual({ assigned_team_id: { previous: null, new: team.team_id } });

    expectStatus(await admin.put(url, { assigned_to: tech.userId }), 200);
    expect(await eventsAfter(tenant, ticket.ticket_id, 5)).toEqual([]);
  });

  it('one PUT that closes, reassigns and renames emits the four events of that write with one data', async () => {
    const { tenant, admin, client, statuses } = await setup();
    const tech = await makeUser(t, tenant, { role: 'Technician' });
    const ticket = await makeTicket(admin, client.client_id, { title: 'A' });
    const res = await admin.put(`/api/v1/tickets/${ticket.ticket_id}`, {
      title: 'B',
      status_id: statuses.Closed!.status_id,
      assigned_to: tech.userId,
      suppress_contact_notifications: true,
    });
    expectStatus(res, 200);
    const events = await eventsAfter(tenant, ticket.ticket_id, 1);
    expect(types(events)).toEqual(['ticket.updated', 'ticket.status_changed', 'ticket.closed', 'ticket.assigned']);
    expect(Object.keys(events[0]!.payload.changes!).sort()).toEqual(['assigned_to', 'status_id', 'title']);
    for (const e of events) {
      expectCuratedData(e);
      expect(e.payload.data).toEqual(events[0]!.payload.data);
      expect(e.payload.data).toMatchObject({ previous_status_name: 'Open', suppress_contact_notifications: true, suppress_internal_notifications: false });
    }
  });

  it('changes name every field with raw values: ids, ISO timestamps, tag lists', async () => {
    const { tenant, admin, client, statuses } = await setup();
    const other = await makeClient(admin);
    const contact = await makeContact(admin, { client_id: other.client_id });
    const board = await makeBoard(admin);
    const priorities = await prioritiesOf(admin);
    const category = (await admin.post('/api/v1/categories', { category_name: 'Cat' })).json().data;
    const sub = (await admin.post('/api/v1/categories', { category_name: 'Sub', parent_category_id: category.category_id })).json().data;
    const ticket = await makeTicket(admin, client.client_id, { tags: ['keep', 'drop'], due_date: '2027-01-01T00:00:00Z' });
    const res = await admin.put(`/api/v1/tickets/${ticket.ticket_id}`, {
      client_id: other.client_id,
      contact_name_id: contact.contact_id,
      board_id: board.board_id,
      status_id: board.statuses.Open!.status_id,
      priority_id: priorities.High!.priority_id,
      category_id: category.category_id,
      subcategory_id: sub.category_id,
      due_date: '2027-06-30T17:00:00+02:00',
      tags: ['keep', 'new'],
    });
    expectStatus(res, 200);
    const [updated, statusChanged] = await eventsAfter(tenant, ticket.ticket_id, 1);
    expect(statusChanged!.event_type).toBe('ticket.status_changed');
    expect(updated!.payload.changes).toEqual({
      board_id: { previous: ticket.board_id, new: board.board_id },
      status_id: { previous: statuses.Open!.status_id, new: board.statuses.Open!.status_id },
      priority_id: { previous: ticket.priority_id, new: priorities.High!.priority_id },
      category_id: { previous: null, new: category.category_id },
      subcategory_id: { previous: null, new: sub.category_id },
      client_id: { previous: client.client_id, new: other.client_id },
      contact_name_id: { previous: null, new: contact.contact_id },
      due_date: { previous: '2027-01-01T00:00:00.000Z', new: '2027-06-30T15:00:00.000Z' },
      tags: { previous: ['drop', 'keep'], new: ['keep', 'new'] },
    });
    expect(updated!.payload.data).toMatchObject({ previous_status_name: 'Open', board_name: board.board_name, client_id: other.client_id, tags: ['keep', 'new'] });
  });
});

describe('tags and comments', () => {
  it('every tag endpoint that changes the tags emits ticket.updated with changes.tags; a no-op emits nothing', async () => {
    const { tenant, admin, client } = await setup();
    const ticket = await makeTicket(admin, client.client_id, { tags: ['one'] });
    const base = `/api/v1/tickets/${ticket.ticket_id}/tags`;
    expectStatus(await admin.post(base, { tag: 'two' }), 201);
    expectStatus(await admin.post(base, { tag: 'TWO' }), 200);
    expectStatus(await admin.put(base, { tags: ['three'], suppress_internal_notifications: true }), 200);
    expectStatus(await admin.put(base, { tags: ['three'] }), 200);
    expectStatus(await admin.delete(`${base}/THREE`), 204);
    const events = await eventsAfter(tenant, ticket.ticket_id, 1);
    expect(types(events)).toEqual(['ticket.updated', 'ticket.updated', 'ticket.updated']);
    events.forEach(expectCuratedData);
    expect(events.map((e) => e.payload.changes)).toEqual([
      { tags: { previous: ['one'], new: ['one', 'two'] } },
      { tags: { previous: ['one', 'two'], new: ['three'] } },
      { tags: { previous: ['three'], new: [] } },
    ]);
    expect(events[1]!.payload.data).toMatchObject({ tags: ['three'], suppress_contact_notifications: true, suppress_internal_notifications: true });
  });

  it('a comment emits ticket.comment.added with the comment (author, author_type, is_internal, timestamp) and bumps updated_at', async () => {
    const { tenant, admin, adminUserId, client } = await setup();
    const ticket = await makeTicket(admin, client.client_id);
    const portal = await makeUser(t, tenant, { role: 'Client User', userType: 'client', clientId: client.client_id });
    const internal = await admin.post(`/api/v1/tickets/${ticket.ticket_id}/comments`, { comment_text: 'Note to self', is_internal: true, suppress_contact_notifications: true });
    expectStatus(internal, 201);
    const reply = await portal.api.post(`/api/v1/tickets/${ticket.ticket_id}/comments`, { comment_text: 'Any news?' });
    expectStatus(reply, 201);
    const events = await eventsAfter(tenant, ticket.ticket_id, 1);
    expect(types(events)).toEqual(['ticket.comment.added', 'ticket.comment.added']);
    events.forEach(expectCuratedData);
    expect(Object.keys(events[0]!.payload.data).sort()).toEqual([...SORTED_FIELDS, 'comment'].sort());
    expect(events[0]!.payload.data.comment).toEqual({
      comment_id: internal.json().data.comment_id,
      text: 'Note to self',
      author: 'Admin',
      author_id: adminUserId,
      author_type: 'internal',
      is_internal: true,
      timestamp: internal.json().data.created_at,
    });
    expect(events[0]!.payload.data).toMatchObject({ suppress_contact_notifications: true, suppress_internal_notifications: false, updated_at: internal.json().data.created_at });
    expect(events[1]!.payload.data.comment).toMatchObject({ text: 'Any news?', author: 'Test User', author_id: portal.userId, author_type: 'client', is_internal: false });
    const after = (await admin.get(`/api/v1/tickets/${ticket.ticket_id}`)).json().data as TicketJson;
    expect(after.updated_at).toBe(reply.json().data.created_at);
    expect(after.updated_by).toBe(portal.userId);
  });
});

describe('writes that fail emit nothing', () => {
  it('a 412, a 400 after part of the body was accepted, and a 409 leave no event and no change', async () => {
    const { tenant, admin, client, statuses } = await setup();
    const other = await makeBoard(admin);
    const merged = await makeClient(admin);
    await tombstone(t, tenant, merged.client_id, client.client_id);
    const ticket = await makeTicket(admin, client.client_id, { title: 'Stable' });
    const url = `/api/v1/tickets/${ticket.ticket_id}`;
    const etag = String((await admin.get(url)).headers.etag);
    expectError(await admin.put(url, { title: 'Stale' }, { 'if-match': '"nope"' }), 412, 'PRECONDITION_FAILED');
    expectError(await admin.put(`${url}/status`, { status_id: statuses.Closed!.status_id }, { 'if-match': '"nope"' }), 412, 'PRECONDITION_FAILED');
    expectError(await admin.put(url, { title: 'Half', tags: ['x'], status_id: other.statuses.Open!.status_id }), 400, 'VALIDATION_ERROR');
    expectError(await admin.put(url, { title: 'Merged', client_id: merged.client_id }), 409, 'CONFLICT');
    expectError(await admin.put(`${url}/assignment`, { assigned_team_id: client.client_id }), 400, 'VALIDATION_ERROR');
    expectError(await admin.post(`${url}/comments`, { comment_text: '   ' }), 400, 'VALIDATION_ERROR');
    expectError(await admin.delete(url, { 'if-match': '"nope"' }), 412, 'PRECONDITION_FAILED');
    expect(types(await ticketEvents(t, tenant, ticket.ticket_id))).toEqual(['ticket.created']);
    const now = await admin.get(url);
    expect(now.headers.etag).toBe(etag);
    expect(now.json().data).toEqual(ticket);
  });

  it('a failed create takes no ticket number and emits nothing', async () => {
    const { tenant, admin, client } = await setup();
    const other = await makeBoard(admin);
    expectError(await admin.post('/api/v1/tickets', { title: 'x', client_id: client.client_id, status_id: other.statuses.Open!.status_id }), 400, 'VALIDATION_ERROR');
    const ticket = await makeTicket(admin, client.client_id);
    expect(ticket.ticket_number).toBe('T-000001');
    const all = await t.database.db.selectFrom('events').select('event_type').where('tenant', '=', tenant).where('aggregate_type', '=', 'ticket').execute();
    expect(all.map((e) => e.event_type)).toEqual(['ticket.created']);
  });
});
