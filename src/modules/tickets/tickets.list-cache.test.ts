import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/harness.ts';
import { makeTenant, makeUser } from '../../../test/factories.ts';
import { expectStatus, makeClient, makeContact } from '../../../test/client-factories.ts';
import { makeTicket, type TicketJson } from '../../../test/ticket-factories.ts';
import { withTransaction } from '../../platform/db/executor.ts';
import { keptListPage } from '../../platform/http/list.ts';
import { toTicket } from './tickets.mapper.ts';
import { ticketList, type TicketViewRow } from './tickets.repo.ts';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => { await t.close(); });

/** A tenant with three tickets, the first with a contact, an assignee and tags. */
async function seeded() {
  const fx = await makeTenant(t);
  const client = await makeClient(fx.admin, { client_name: 'Acme' });
  const contact = await makeContact(fx.admin, { client_id: client.client_id, full_name: 'Ada', email: 'ada@acme.test' });
  const tech = await makeUser(t, fx.tenant, { role: 'Technician' });
  const first = await makeTicket(fx.admin, client.client_id, { title: 'one', contact_name_id: contact.contact_id, assigned_to: tech.userId, tags: ['b', 'a'] });
  await makeTicket(fx.admin, client.client_id, { title: 'two' });
  await makeTicket(fx.admin, client.client_id, { title: 'three' });
  return { ...fx, client, contact, tech, first };
}

describe('the ticket list keeps its mapped rows by version', () => {
  it('answers an unchanged page from the kept rows, mapping none of them, with the same bytes', async () => {
    const { tenant, admin } = await seeded();
    let mapped = 0;
    const map = (rows: TicketViewRow[]) => { mapped += rows.length; return rows.map(toTicket); };
    const read = () => keptListPage(t.database.db, {}, 'tickets-test', tenant, (i) => ticketList(t.database.db, i, {}), map);
    const first = await read();
    expect(mapped).toBe(3);
    const again = await read();
    expect(mapped).toBe(3);
    expect(again).toEqual(first);

    const a = await admin.get('/api/v1/tickets');
    const b = await admin.get('/api/v1/tickets');
    expectStatus(b, 200);
    expect(b.body).toBe(a.body);
    expect(b.json().data.map((x: TicketJson) => x.title)).toEqual(['one', 'two', 'three']);
  });

  it('shows at once every change to a ticket or to a row it shows a name of, through the API or not', async () => {
    const { tenant, admin, client, contact, tech, first } = await seeded();
    const db = t.database.db;
    // Read twice: a page that missed is read whole once, so the second read answers from the rows it kept, and
    // the first read after the next change starts from kept rows (a change the version missed would show there).
    const row = async () => {
      const read = async () => {
        const res = await admin.get('/api/v1/tickets');
        expectStatus(res, 200);
        return (res.json().data as TicketJson[]).find((x) => x.ticket_id === first.ticket_id)!;
      };
      const shown = await read();
      expect(await read()).toEqual(shown);
      return shown;
    };
    expect(await row()).toMatchObject({ board_name: 'General', client_name: 'Acme', contact_email: 'ada@acme.test', tags: ['a', 'b'] });

    await sql`update boards set board_name = 'Renamed board' where tenant = ${tenant} and board_id = ${first.board_id}`.execute(db);
    expect((await row()).board_name).toBe('Renamed board');
    await sql`update ticket_statuses set name = 'Renamed status' where tenant = ${tenant} and status_id = ${first.status_id}`.execute(db);
    expect((await row()).status_name).toBe('Renamed status');
    await sql`update ticket_priorities set priority_name = 'Renamed priority' where tenant = ${tenant} and priority_id = ${first.priority_id}`.execute(db);
    expect((await row()).priority_name).toBe('Renamed priority');
    expectStatus(await admin.put(`/api/v1/clients/${client.client_id}`, { client_name: 'Acme 2' }), 200);
    expect((await row()).client_name).toBe('Acme 2');
    await sql`update contacts set email = 'ada@new.test' where tenant = ${tenant} and contact_id = ${contact.contact_id}`.execute(db);
    expect((await row()).contact_email).toBe('ada@new.test');
    await sql`update users set first_name = 'Grace', last_name = 'Hopper' where tenant = ${tenant} and user_id = ${tech.userId}`.execute(db);
    expect((await row()).assigned_to_name).toBe('Grace Hopper');
    expectStatus(await admin.put(`/api/v1/tickets/${first.ticket_id}/tags`, { tags: ['c'] }), 200);
    expect((await row()).tags).toEqual(['c']);
    await sql`update tickets set title = 'retitled' where tenant = ${tenant} and ticket_id = ${first.ticket_id}`.execute(db);
    expect((await row()).title).toBe('retitled');
  });

  it('reads the total afresh on every page, and keeps each page of each filter apart', async () => {
    const { admin, client, first } = await seeded();
    const page = async (q: string) => (await admin.get(`/api/v1/tickets${q}`)).json();
    expect((await page('?limit=2')).pagination.total).toBe(3);
    expect((await page('?limit=2&page=2')).data.map((x: TicketJson) => x.title)).toEqual(['three']);
    await makeTicket(admin, client.client_id, { title: 'four' });
    const p1 = await page('?limit=2');
    expect(p1.data.map((x: TicketJson) => x.title)).toEqual(['one', 'two']);
    expect(p1.pagination).toMatchObject({ total: 4, totalPages: 2, hasNext: true });
    expect((await page('?limit=2&page=2')).data.map((x: TicketJson) => x.title)).toEqual(['three', 'four']);
    expect((await page(`?assigned_to=${first.assigned_to}`)).data.map((x: TicketJson) => x.title)).toEqual(['one']);
    expect((await page('?tag=a')).pagination.total).toBe(1);
    for (let i = 0; i < 2; i++) {
      const past = await page('?limit=2&page=5'); // no row to carry the total: it is counted
      expect(past.data).toEqual([]);
      expect(past.pagination).toMatchObject({ page: 5, total: 4, totalPages: 2, hasNext: false, hasPrev: true });
    }
  });

  it('keeps nothing for a list read inside a transaction', async () => {
    const { tenant } = await seeded();
    let mapped = 0;
    const map = (rows: TicketViewRow[]) => { mapped += rows.length; return rows.map(toTicket); };
    await withTransaction(t.database.db, async (trx) => {
      const read = () => keptListPage(trx, {}, 'tickets-trx', tenant, (i) => ticketList(trx, i, {}), map);
      expect((await read()).data).toHaveLength(3);
      expect((await read()).data).toHaveLength(3);
    });
    expect(mapped).toBe(6);
  });
});
