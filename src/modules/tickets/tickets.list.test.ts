import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/harness.ts';
import { makeTenant, makeUser, type Api } from '../../../test/factories.ts';
import { anonymous, expectError, expectStatus, makeClient, makeContact } from '../../../test/client-factories.ts';
import { defaultBoard, makeBoard, makeTicket, prioritiesOf, type TicketJson } from '../../../test/ticket-factories.ts';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => { await t.close(); });

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function titles(api: Api, query: string): Promise<string[]> {
  const res = await api.get(`/api/v1/tickets${query}`);
  expectStatus(res, 200);
  const body = res.json();
  expect(body.pagination.total, `total of ${query}`).toBe(body.data.length);
  return (body.data as TicketJson[]).map((x) => x.title);
}

describe('GET /api/v1/tickets', () => {
  it('lists by ticket number with the pagination envelope, each row with its names and tags', async () => {
    const { admin } = await makeTenant(t);
    const client = await makeClient(admin, { client_name: 'Acme' });
    const contact = await makeContact(admin, { client_id: client.client_id, full_name: 'Ada' });
    for (const title of ['one', 'two', 'three']) await makeTicket(admin, client.client_id, { title, contact_name_id: contact.contact_id, tags: [title] });
    const res = await admin.get('/api/v1/tickets');
    expectStatus(res, 200);
    expect(res.json().pagination).toEqual({ page: 1, limit: 25, total: 3, totalPages: 1, hasNext: false, hasPrev: false });
    expect(res.json().data.map((x: TicketJson) => [x.ticket_number, x.title])).toEqual([['T-000001', 'one'], ['T-000002', 'two'], ['T-000003', 'three']]);
    expect(res.json().data[0]).toMatchObject({ status_name: 'Open', priority_name: 'Medium', board_name: 'General', client_name: 'Acme', contact_name: 'Ada', tags: ['one'] });
    const page2 = await admin.get('/api/v1/tickets?limit=2&page=2&order=desc');
    expect(page2.json().data.map((x: TicketJson) => x.title)).toEqual(['one']);
    expect(page2.json().pagination).toEqual({ page: 2, limit: 2, total: 3, totalPages: 2, hasNext: false, hasPrev: true });
  });

  it('sorts by entered_at, updated_at, due_date (empty last) and priority', async () => {
    const { admin } = await makeTenant(t);
    const client = await makeClient(admin);
    const p = await prioritiesOf(admin);
    const a = await makeTicket(admin, client.client_id, { title: 'A', priority_id: p.High!.priority_id, due_date: '2027-03-01T00:00:00Z' });
    await makeTicket(admin, client.client_id, { title: 'B', priority_id: p.Low!.priority_id });
    await makeTicket(admin, client.client_id, { title: 'C', due_date: '2027-01-01T00:00:00Z' });
    expect(await titles(admin, '?sort=entered_at')).toEqual(['A', 'B', 'C']);
    expect(await titles(admin, '?sort=entered_at&order=desc')).toEqual(['C', 'B', 'A']);
    expect(await titles(admin, '?sort=due_date')).toEqual(['C', 'A', 'B']);
    expect(await titles(admin, '?sort=due_date&order=desc')).toEqual(['A', 'C', 'B']);
    expect(await titles(admin, '?sort=priority')).toEqual(['B', 'C', 'A']);
    expect(await titles(admin, '?sort=priority&order=desc')).toEqual(['A', 'C', 'B']);
    await sleep(5);
    expectStatus(await admin.put(`/api/v1/tickets/${a.ticket_id}`, { title: 'A2' }), 200);
    expect(await titles(admin, '?sort=updated_at&order=desc')).toEqual(['A2', 'C', 'B']);
  });

  it('filters by every reference, state, tag, search, updated_since and due_before, with matching totals', async () => {
    const { tenant, admin } = await makeTenant(t);
    const acme = await makeClient(admin);
    const globex = await makeClient(admin);
    const ada = await makeContact(admin, { client_id: acme.client_id });
    const tech = await makeUser(t, tenant, { role: 'Technician' });
    const team = (await admin.post('/api/v1/teams', { team_name: 'Desk' })).json().data;
    const { statuses } = await defaultBoard(admin);
    const board = await makeBoard(admin);
    const p = await prioritiesOf(admin);
    const cat = (await admin.post('/api/v1/categories', { category_name: 'Cat' })).json().data;
    const sub = (await admin.post('/api/v1/categories', { category_name: 'Sub', parent_category_id: cat.category_id })).json().data;

    await makeTicket(admin, acme.client_id, { title: 'VPN down', contact_name_id: ada.contact_id, tags: ['Network'], assigned_to: tech.userId });
    await makeTicket(admin, acme.client_id, { title: '100% CPU', priority_id: p.High!.priority_id, category_id: cat.category_id, subcategory_id: sub.category_id, due_date: '2027-01-01T00:00:00Z' });
    await makeTicket(admin, globex.client_id, { title: 'snake_case bug', status_id: statuses.Closed!.status_id, assigned_team_id: team.team_id, tags: ['network', 'bug'] });
    await makeTicket(admin, globex.client_id, { title: 'snakeXcase', board_id: board.board_id, due_date: '2027-06-01T00:00:00Z' });

    expect(await titles(admin, `?client_id=${acme.client_id}`)).toEqual(['VPN down', '100% CPU']);
    expect(await titles(admin, `?board_id=${board.board_id}`)).toEqual(['snakeXcase']);
    expect(await titles(admin, `?status_id=${statuses.Closed!.status_id}`)).toEqual(['snake_case bug']);
    expect(await titles(admin, `?priority_id=${p.High!.priority_id}`)).toEqual(['100% CPU']);
    expect(await titles(admin, `?category_id=${cat.category_id}`)).toEqual(['100% CPU']);
    expect(await titles(admin, `?subcategory_id=${sub.category_id}`)).toEqual(['100% CPU']);
    expect(await titles(admin, `?contact_name_id=${ada.contact_id}`)).toEqual(['VPN down']);
    expect(await titles(admin, `?assigned_to=${tech.userId}`)).toEqual(['VPN down']);
    expect(await titles(admin, `?assigned_team_id=${team.team_id}`)).toEqual(['snake_case bug']);
    expect(await titles(admin, '?is_closed=true')).toEqual(['snake_case bug']);
    expect(await titles(admin, '?is_closed=false')).toEqual(['VPN down', '100% CPU', 'snakeXcase']);
    expect(await titles(admin, '?tag=NETWORK')).toEqual(['VPN down', 'snake_case bug']);
    expect(await titles(admin, '?tag=bug&is_closed=false')).toEqual([]);
    expect(await titles(admin, '?search=vpn')).toEqual(['VPN down']);
    expect(await titles(admin, '?search=%25')).toEqual(['100% CPU']);
    expect(await titles(admin, '?search=e_c')).toEqual(['snake_case bug']);
    expect(await titles(admin, '?search=T-000004')).toEqual(['snakeXcase']);
    expect(await titles(admin, '?search=%20%20')).toHaveLength(4);
    expect(await titles(admin, `?due_before=${encodeURIComponent('2027-03-01T00:00:00Z')}`)).toEqual(['100% CPU']);

    await sleep(5);
    const touched = await admin.put(`/api/v1/tickets/${(await admin.get('/api/v1/tickets?search=CPU')).json().data[0].ticket_id}`, { title: '99% CPU' });
    expect(await titles(admin, `?updated_since=${encodeURIComponent(touched.json().data.updated_at)}`)).toEqual(['99% CPU']);
  });

  it('answers 400 for unknown parameters and out-of-range or malformed values', async () => {
    const { admin } = await makeTenant(t);
    for (const q of ['?limit=101', '?page=0', '?sort=title', '?order=up', '?status=open', '?is_closed=maybe', '?client_id=x', '?due_before=tomorrow', `?search=${'x'.repeat(201)}`, `?tag=${'x'.repeat(65)}`]) {
      expectError(await admin.get(`/api/v1/tickets${q}`), 400, 'VALIDATION_ERROR');
    }
  });

  it('answers 401 without a key and 403 without ticket:read', async () => {
    const { tenant } = await makeTenant(t);
    expectError(await anonymous(t).get('/api/v1/tickets'), 401, 'UNAUTHORIZED');
    const narrowed = await makeUser(t, tenant, { role: 'Admin', scopes: ['client:read'] });
    const res = await narrowed.api.get('/api/v1/tickets');
    expectError(res, 403, 'FORBIDDEN');
    expect(res.json().error.details).toEqual({ required: ['ticket:read'] });
  });
});
