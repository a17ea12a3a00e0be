import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql, type Kysely, type Transaction } from 'kysely';
import { ASYNC_COMMIT } from '../../src/platform/db/async-commit.ts';
import { withTransaction } from '../../src/platform/db/executor.ts';
import { consuming, nextNumberInTrx, reservedSeq, withReservedNumber, type ReservedNumber } from '../../src/platform/db/numbering.ts';
import { newId } from '../../src/platform/ids.ts';
import type { DB } from '../../src/platform/db/schema.ts';
import { expectStatus, makeClient } from '../client-factories.ts';
import { makeTenant } from '../factories.ts';
import { buildTestApp, type TestApp } from '../harness.ts';
import { makeProject } from '../project-factories.ts';
import { makeTicket } from '../ticket-factories.ts';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => { await t.close(); });

const range = (n: number) => Array.from({ length: n }, (_, i) => i + 1);
const reservations = (tenant: string) =>
  t.database.db.selectFrom('number_reservations').select(['sequence', 'seq']).where('tenant', '=', tenant).orderBy('seq').execute();

describe('record numbers', () => {
  it('concurrent ticket creates get unique numbers with none skipped, and leave no reservation behind', async () => {
    const { admin, tenant } = await makeTenant(t);
    const client = await makeClient(admin);
    const created = await Promise.all(range(30).map(() => makeTicket(admin, client.client_id)));
    expect(created.map((x) => x.ticket_number).sort()).toEqual(range(30).map((n) => `T-${String(n).padStart(6, '0')}`));
    expect(await reservations(tenant)).toEqual([]);
  });

  it('a create that fails gives its number back to the next create', async () => {
    const { admin, tenant } = await makeTenant(t);
    const client = await makeClient(admin);
    expect((await makeTicket(admin, client.client_id)).ticket_number).toBe('T-000001');
    // Fails after the number was reserved (the board is checked in the transaction).
    const failed = await admin.post('/api/v1/tickets', { title: 'No such board', client_id: client.client_id, board_id: '01900000-0000-7000-8000-000000000000' });
    expectStatus(failed, 400);
    expect(await reservations(tenant)).toEqual([{ sequence: 'ticket', seq: 2 }]);
    expect((await makeTicket(admin, client.client_id)).ticket_number).toBe('T-000002');
    expect((await makeTicket(admin, client.client_id)).ticket_number).toBe('T-000003');
    expect(await reservations(tenant)).toEqual([]);
  });

  it('a reservation left by a create that died is reused once it expires, lowest first; a live one is not', async () => {
    const { admin, tenant } = await makeTenant(t);
    const client = await makeClient(admin);
    await makeTicket(admin, client.client_id);
    // As a crashed process would leave them: numbers 2 and 3 taken from the counter, never used.
    await t.database.db.updateTable('ticket_number_counters').set({ last_number: 3 }).where('tenant', '=', tenant).execute();
    await t.database.db.insertInto('number_reservations').values([
      { tenant, sequence: 'ticket', seq: 3, reserved_until: new Date(Date.now() - 1000) },
      { tenant, sequence: 'ticket', seq: 2, reserved_until: new Date(Date.now() + 60_000) },
    ]).execute();
    expect((await makeTicket(admin, client.client_id)).ticket_number).toBe('T-000003');
    expect((await makeTicket(admin, client.client_id)).ticket_number).toBe('T-000004');
    expect(await reservations(tenant)).toEqual([{ sequence: 'ticket', seq: 2 }]);
  });

  it('a number taken inside another write’s transaction shares the same counter', async () => {
    const { admin, tenant } = await makeTenant(t);
    const client = await makeClient(admin);
    await makeTicket(admin, client.client_id);
    expect(await withTransaction(t.database.db, (trx) => nextNumberInTrx(trx, tenant, 'ticket'))).toBe(2);
    expect((await makeTicket(admin, client.client_id)).ticket_number).toBe('T-000003');
  });

  it('the reservation commits without waiting for its flush, and only it: the create and the connection stay synchronous', async () => {
    const { tenant } = await makeTenant(t);
    const setting = async (db: Kysely<DB>) => (await sql<{ v: string }>`select current_setting('synchronous_commit') as v`.execute(db)).rows[0]!.v;
    // One connection throughout, so a setting the reservation left behind would show.
    await t.database.db.connection().execute(async (conn) => {
      expect(await withTransaction(conn, async (trx) => {
        await sql`select ${ASYNC_COMMIT}`.execute(trx);
        return setting(trx);
      })).toBe('off');
      expect(await setting(conn)).toBe('on');

      const inCreate = await withReservedNumber(conn, tenant, 'ticket', async (trx, reserved) => {
        await consuming(trx, reserved).selectFrom('reservation').select('seq').execute();
        return { seq: reserved.seq, commit: await setting(trx) };
      });
      expect(inCreate).toEqual({ seq: 1, commit: 'on' });
      expect(await setting(conn)).toBe('on');
    });
    expect(await reservations(tenant)).toEqual([]);
  });

  it('the insert consumes the reservation; one reassigned while the create ran is refused with 409, and a create that does not consume its reservation fails', async () => {
    const { admin, tenant } = await makeTenant(t);
    const client = await makeClient(admin);
    const { ticket_id } = await makeTicket(admin, client.client_id);
    const first = await t.database.db.selectFrom('tickets').selectAll().where('tenant', '=', tenant).where('ticket_id', '=', ticket_id).executeTakeFirstOrThrow();
    // A copy of the first ticket under the reserved number, as the tickets repo inserts one.
    const insertTicket = (trx: Transaction<DB>, reserved: ReservedNumber) => consuming(trx, reserved).insertInto('tickets')
      .values({ ...first, ticket_id: newId(), ticket_seq: reservedSeq, ticket_number: `T-${String(reserved.seq).padStart(6, '0')}` }).execute();

    const made = await withReservedNumber(t.database.db, tenant, 'ticket', async (trx, reserved) => {
      expect(await trx.selectFrom('number_reservations').select(['sequence', 'seq']).where('tenant', '=', tenant).execute()).toEqual([{ sequence: 'ticket', seq: 2 }]);
      await insertTicket(trx, reserved);
      return reserved.seq;
    });
    expect(made).toBe(2);
    expect(await reservations(tenant)).toEqual([]);

    // As when a create stalls past the reservation's lifetime and a later create reclaims its number (written
    // in the create's own transaction: PGlite has one connection).
    const stalled = withReservedNumber(t.database.db, tenant, 'ticket', async (trx, reserved) => {
      await trx.updateTable('number_reservations').set({ reserved_until: new Date(Date.now() + 1000) }).where('tenant', '=', tenant).execute();
      await insertTicket(trx, reserved);
    });
    await expect(stalled).rejects.toMatchObject({ statusCode: 409, code: 'CONFLICT', message: expect.stringMatching(/number was reassigned/) });
    expect(await t.database.db.selectFrom('tickets').select('ticket_seq').where('tenant', '=', tenant).orderBy('ticket_seq').execute()).toEqual([{ ticket_seq: 1 }, { ticket_seq: 2 }]);

    const forgetful = withReservedNumber(t.database.db, tenant, 'ticket', async () => 'no insert');
    await expect(forgetful).rejects.toThrow(/did not consume its reservation/);
    // Both gave number 3 back (the stalled create's own change rolled back with it), so the next create takes it.
    expect((await makeTicket(admin, client.client_id)).ticket_number).toBe('T-000003');
    expect((await makeTicket(admin, client.client_id)).ticket_number).toBe('T-000004');
    expect(await reservations(tenant)).toEqual([]);
  });

  it('projects are numbered the same way, separately from tickets', async () => {
    const { admin, tenant } = await makeTenant(t);
    const client = await makeClient(admin);
    const projects = await Promise.all(range(8).map(() => makeProject(admin, { client_id: client.client_id })));
    expect(projects.map((p) => p.project_number).sort()).toEqual(range(8).map((n) => `P-${String(n).padStart(6, '0')}`));
    expect((await makeTicket(admin, client.client_id)).ticket_number).toBe('T-000001');
    expect(await reservations(tenant)).toEqual([]);
  });
});
