import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/harness.ts';
import { makeTenant, makeUser } from '../../../test/factories.ts';
import { expectStatus, makeClient, makeContact } from '../../../test/client-factories.ts';
import { makeTicket, type TicketJson } from '../../../test/ticket-factories.ts';
import { withTransaction } from '../../platform/db/executor.ts';
import { keepNamesWithin } from '../../platform/db/names-version.ts';
import { findTicketView } from './tickets.repo.ts';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => { await t.close(); });

/** A ticket that shows a name of every kind: category and subcategory, contact, assignee, team. */
async function seeded() {
  const fx = await makeTenant(t);
  const { admin } = fx;
  const client = await makeClient(admin, { client_name: 'Acme' });
  const contact = await makeContact(admin, { client_id: client.client_id, full_name: 'Ada', email: 'ada@acme.test' });
  const tech = await makeUser(t, fx.tenant, { role: 'Technician' });
  const team = (await admin.post('/api/v1/teams', { team_name: 'Desk', member_ids: [tech.userId] })).json().data;
  const category = (await admin.post('/api/v1/categories', { category_name: 'Hardware' })).json().data;
  const subcategory = (await admin.post('/api/v1/categories', { category_name: 'Printers', parent_category_id: category.category_id })).json().data;
  const ticket = await makeTicket(admin, client.client_id, {
    contact_name_id: contact.contact_id, assigned_to: tech.userId, assigned_team_id: team.team_id,
    category_id: category.category_id, subcategory_id: subcategory.category_id,
  });
  const read = async (): Promise<TicketJson> => {
    const res = await admin.get(`/api/v1/tickets/${ticket.ticket_id}`);
    expectStatus(res, 200);
    return res.json().data;
  };
  return { ...fx, client, contact, tech, team, ticket, read };
}

describe('the ticket read takes its names from those kept by names version', () => {
  it('shows every name change at once, made through the API or not', async () => {
    const { tenant, admin, client, contact, tech, team, ticket, read } = await seeded();
    const db = t.database.db;
    const first = await read();
    expect(first).toMatchObject({
      board_name: 'General', client_name: 'Acme', contact_name: 'Ada', contact_email: 'ada@acme.test', assigned_team_name: 'Desk',
      category_name: 'Hardware', subcategory_name: 'Printers',
    });
    expect(await read()).toEqual(first); // now from the kept names

    const renames: [string, () => Promise<unknown>, Partial<TicketJson>][] = [
      ['board', () => sql`update boards set board_name = 'B2' where tenant = ${tenant} and board_id = ${ticket.board_id}`.execute(db), { board_name: 'B2' }],
      ['status', () => sql`update ticket_statuses set name = 'S2' where tenant = ${tenant} and status_id = ${ticket.status_id}`.execute(db), { status_name: 'S2' }],
      ['priority', () => sql`update ticket_priorities set priority_name = 'P2' where tenant = ${tenant} and priority_id = ${ticket.priority_id}`.execute(db), { priority_name: 'P2' }],
      ['category', () => sql`update ticket_categories set category_name = 'C2' where tenant = ${tenant} and category_id = ${ticket.category_id}`.execute(db), { category_name: 'C2', subcategory_name: 'Printers' }],
      ['subcategory', () => sql`update ticket_categories set category_name = 'SC2' where tenant = ${tenant} and category_id = ${ticket.subcategory_id}`.execute(db), { subcategory_name: 'SC2' }],
      ['client', () => admin.put(`/api/v1/clients/${client.client_id}`, { client_name: 'Acme 2' }), { client_name: 'Acme 2' }],
      ['contact name', () => sql`update contacts set full_name = 'Ada L' where tenant = ${tenant} and contact_id = ${contact.contact_id}`.execute(db), { contact_name: 'Ada L' }],
      ['contact email', () => sql`update contacts set email = 'ada@new.test' where tenant = ${tenant} and contact_id = ${contact.contact_id}`.execute(db), { contact_email: 'ada@new.test' }],
      ['user', () => sql`update users set first_name = 'Grace', last_name = 'Hopper' where tenant = ${tenant} and user_id = ${tech.userId}`.execute(db), { assigned_to_name: 'Grace Hopper' }],
      ['username', () => sql`update users set first_name = null, last_name = null, username = 'gh' where tenant = ${tenant} and user_id = ${tech.userId}`.execute(db), { assigned_to_name: 'gh' }],
      ['team', () => sql`update teams set team_name = 'Desk 2' where tenant = ${tenant} and team_id = ${team.team_id}`.execute(db), { assigned_team_name: 'Desk 2' }],
      ['author', () => sql`update users set username = 'author2', first_name = null, last_name = null where tenant = ${tenant} and user_id = ${ticket.entered_by}`.execute(db), { entered_by_name: 'author2' }],
    ];
    for (const [what, rename, shown] of renames) {
      await rename();
      expect(await read(), what).toMatchObject(shown);
      expect(await read(), `${what}, read again`).toMatchObject(shown);
    }
    // A deleted contact leaves the ticket without one (the foreign key sets it null).
    expectStatus(await admin.delete(`/api/v1/contacts/${contact.contact_id}`), 204);
    expect(await read()).toMatchObject({ contact_name_id: null, contact_name: null, contact_email: null });
  });

  it('answers from the kept names: a name changed without counting the change is not read again', async () => {
    const { tenant, client, read } = await seeded();
    expect((await read()).client_name).toBe('Acme');
    // Triggers off for this one transaction (superuser): the change is invisible to the names version, so the
    // next read shows the name kept in memory, which proves the read does not join clients.
    await withTransaction(t.database.db, async (trx) => {
      await sql`set local session_replication_role = replica`.execute(trx);
      await sql`update clients set client_name = 'Uncounted' where tenant = ${tenant} and client_id = ${client.client_id}`.execute(trx);
    });
    expect((await read()).client_name).toBe('Acme');
    await sql`update clients set client_name = 'Counted' where tenant = ${tenant} and client_id = ${client.client_id}`.execute(t.database.db);
    expect((await read()).client_name).toBe('Counted');
  });

  it('reads a name or two not kept on their own (a ticket of another client), and keeps them', async () => {
    const { tenant, admin, read } = await seeded();
    await read();
    const other = await makeClient(admin, { client_name: 'Globex' });
    const tech = await makeUser(t, tenant, { role: 'Technician' });
    await sql`update users set first_name = 'Alan', last_name = 'Turing' where tenant = ${tenant} and user_id = ${tech.userId}`.execute(t.database.db);
    await read(); // the names of the new version
    const ticket = await makeTicket(admin, other.client_id, { assigned_to: tech.userId });
    const readOther = async () => (await admin.get(`/api/v1/tickets/${ticket.ticket_id}`)).json().data as TicketJson;
    expect(await readOther()).toMatchObject({ client_name: 'Globex', assigned_to_name: 'Alan Turing', board_name: 'General', contact_name: null });
    // Kept: a change the version does not count is not seen (as in the test above).
    await withTransaction(t.database.db, async (trx) => {
      await sql`set local session_replication_role = replica`.execute(trx);
      await sql`update clients set client_name = 'Uncounted' where tenant = ${tenant} and client_id = ${other.client_id}`.execute(trx);
    });
    expect((await readOther()).client_name).toBe('Globex');
  });

  describe('a kind read whole', () => {
    afterAll(() => keepNamesWithin(t.database.db, {}));

    /** A tenant with six clients, a ticket each; the first ticket read (its names with the joins). */
    async function sixClients() {
      const { tenant, admin } = await makeTenant(t);
      const clients: Awaited<ReturnType<typeof makeClient>>[] = [];
      for (let i = 1; i <= 6; i++) clients.push(await makeClient(admin, { client_name: `Client ${i}` }));
      const tickets: TicketJson[] = [];
      for (const client of clients) tickets.push(await makeTicket(admin, client.client_id));
      const clientOf = async (i: number) => {
        const res = await admin.get(`/api/v1/tickets/${tickets[i]!.ticket_id}`);
        expectStatus(res, 200);
        return (res.json().data as TicketJson).client_name;
      };
      const renameUncounted = (i: number) => withTransaction(t.database.db, async (trx) => {
        await sql`set local session_replication_role = replica`.execute(trx);
        await sql`update clients set client_name = ${`Uncounted ${i + 1}`} where tenant = ${tenant} and client_id = ${clients[i]!.client_id}`.execute(trx);
      });
      expect(await clientOf(0)).toBe('Client 1');
      return { clientOf, renameUncounted };
    }

    it('is read once enough of its names were missed, and every name of it is kept', async () => {
      keepNamesWithin(t.database.db, { fillAfter: 3 });
      const { clientOf, renameUncounted } = await sixClients();
      expect(await clientOf(1)).toBe('Client 2'); // missed: read alone
      await renameUncounted(2); // invisible to the names version
      expect(await clientOf(2)).toBe('Uncounted 3'); // missed again: read alone, so as it is now
      expect(await clientOf(3)).toBe('Client 4'); // the third miss: every client read, and kept
      await renameUncounted(4);
      await renameUncounted(5);
      expect(await clientOf(4)).toBe('Client 5'); // kept by that read: the uncounted renames are not seen
      expect(await clientOf(5)).toBe('Client 6');
    });

    it('is not kept when the kind has more names than half the budget', async () => {
      keepNamesWithin(t.database.db, { fillAfter: 1, names: 8 }); // at most 4 per kind; the tenant has 6 clients
      const { clientOf, renameUncounted } = await sixClients();
      expect(await clientOf(1)).toBe('Client 2');
      await renameUncounted(5);
      expect(await clientOf(5)).toBe('Uncounted 6'); // read alone: nothing was kept from the whole kind
    });
  });

  it('keeps nothing from a read inside a transaction, nor from one that rolled back', async () => {
    const { tenant, client, ticket, read } = await seeded();
    const db = t.database.db;
    // A rename rolled back: the transaction's own reads see its uncounted version, and must not be kept.
    await expect(withTransaction(db, async (trx) => {
      await sql`update clients set client_name = 'Rolled back' where tenant = ${tenant} and client_id = ${client.client_id}`.execute(trx);
      expect((await findTicketView(trx, tenant, ticket.ticket_id))?.client_name).toBe('Rolled back');
      throw new Error('roll back');
    })).rejects.toThrow('roll back');
    expect((await read()).client_name).toBe('Acme');
    // Another rename reaches the same version the rolled-back one had; the read shows it, not the rolled-back name.
    await sql`update clients set client_name = 'Committed' where tenant = ${tenant} and client_id = ${client.client_id}`.execute(db);
    expect((await read()).client_name).toBe('Committed');
  });

  it('gives an ETag kept by version that changes with everything the ticket shows, and If-Match accepts', async () => {
    const { tenant, admin, client, ticket } = await seeded();
    const db = t.database.db;
    const url = `/api/v1/tickets/${ticket.ticket_id}`;
    const etag = async () => {
      const res = await admin.get(url);
      expectStatus(res, 200);
      return String(res.headers.etag);
    };
    const seen = new Set<string>();
    const changes: [string, () => Promise<unknown>][] = [
      ['a name', () => sql`update clients set client_name = 'Acme 3' where tenant = ${tenant} and client_id = ${client.client_id}`.execute(db)],
      ['the row, outside the API', () => sql`update tickets set title = 'Retitled' where tenant = ${tenant} and ticket_id = ${ticket.ticket_id}`.execute(db)],
      ['a tag', () => admin.post(`${url}/tags`, { tag: 'vip' })],
      ['a field, through the API', () => admin.put(url, { description: 'More detail' })],
    ];
    for (const [what, change] of [['nothing', async () => undefined] as const, ...changes]) {
      await change();
      const current = await etag();
      expect(seen.has(current), `after ${what}: a new ETag`).toBe(false);
      seen.add(current);
      expect(await etag(), `after ${what}: read again`).toBe(current);
      expectStatus(await admin.get(url, { 'if-none-match': current }), 304);
    }
    // The kept ETag is the one the write path computes from the representation.
    const last = await etag();
    const res = await admin.put(url, { title: 'Checked' }, { 'if-match': last });
    expectStatus(res, 200);
    expect(await etag()).toBe(String(res.headers.etag));
  });

  it('is a 404 for another tenant\'s ticket and for one that does not exist', async () => {
    const { ticket } = await seeded();
    const other = await makeTenant(t);
    expectStatus(await other.admin.get(`/api/v1/tickets/${ticket.ticket_id}`), 404);
    expectStatus(await other.admin.get('/api/v1/tickets/00000000-0000-4000-8000-000000000000'), 404);
  });
});
