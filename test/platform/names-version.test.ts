import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withTransaction } from '../../src/platform/db/executor.ts';
import { compactNameChanges, keepNamesWithin, keptNamesOf, namesVersion, type KindNames } from '../../src/platform/db/names-version.ts';
import { expectStatus, makeClient, makeContact } from '../client-factories.ts';
import { makeTenant } from '../factories.ts';
import { buildTestApp, type TestApp } from '../harness.ts';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => { await t.close(); });

const versionOf = async (tenant: string) =>
  (await sql<{ v: string }>`select ${namesVersion('x.tenant')} as v from (select ${tenant}::uuid as tenant) x`.execute(t.database.db)).rows[0]!.v;

describe('the names version', () => {
  it('moves with every change to a shown name or a delete, and with nothing else', async () => {
    const { tenant, admin } = await makeTenant(t);
    const other = await makeTenant(t);
    const db = t.database.db;
    const client = await makeClient(admin, { client_name: 'Acme' });
    const contact = await makeContact(admin, { client_id: client.client_id, full_name: 'Ada', email: 'a@x.test' });
    const start = await versionOf(tenant);
    const otherStart = await versionOf(other.tenant);

    // Inserts and updates that leave every shown name alone count nothing.
    await makeClient(admin);
    expectStatus(await admin.put(`/api/v1/clients/${client.client_id}`, { payment_terms: 'net_15' }), 200);
    await sql`update contacts set full_name = 'Ada', email = 'a@x.test' where tenant = ${tenant}`.execute(db);
    expect(await versionOf(tenant)).toBe(start);

    // One change per row whose name changed, whatever the statement.
    await sql`update clients set client_name = client_name || '!' where tenant = ${tenant}`.execute(db);
    expect(Number(await versionOf(tenant))).toBe(Number(start) + 2);
    await sql`update contacts set email = null where tenant = ${tenant} and contact_id = ${contact.contact_id}`.execute(db);
    expect(Number(await versionOf(tenant))).toBe(Number(start) + 3);
    expectStatus(await admin.delete(`/api/v1/contacts/${contact.contact_id}`), 204);
    expect(Number(await versionOf(tenant))).toBe(Number(start) + 4);
    expect(await versionOf(other.tenant)).toBe(otherStart);

    // Compaction folds a tenant's rows into one and keeps the sum.
    await compactNameChanges(db);
    const rows = await sql<{ n: number }>`select count(*)::int as n from name_changes where tenant = ${tenant}`.execute(db);
    expect(rows.rows[0]!.n).toBe(1);
    expect(Number(await versionOf(tenant))).toBe(Number(start) + 4);
  });

  it('counts a transaction\'s changes only once it commits', async () => {
    const { tenant, admin } = await makeTenant(t);
    const client = await makeClient(admin);
    const start = await versionOf(tenant);
    await expect(withTransaction(t.database.db, async (trx) => {
      await sql`update clients set client_name = 'x' where tenant = ${tenant} and client_id = ${client.client_id}`.execute(trx);
      throw new Error('roll back');
    })).rejects.toThrow('roll back');
    expect(await versionOf(tenant)).toBe(start);
  });
});

describe('kept names', () => {
  const handle = () => ({ isTransaction: false });

  it('are kept per handle, tenant and version; never in a transaction; an older version keeps nothing', () => {
    const db = handle();
    const kept = keptNamesOf(db)!;
    expect(keptNamesOf({ isTransaction: true })).toBeUndefined();
    kept.at('t1', '5').set('client', 'c1', 'Acme');
    kept.at('t1', '5').set('contact email', 'k1', null);
    expect(kept.at('t1', '5').get('client', 'c1')).toBe('Acme');
    expect(kept.at('t1', '5').get('contact email', 'k1')).toBeNull(); // a kept "no name"
    expect(kept.at('t1', '5').get('user', 'c1')).toBeUndefined(); // kinds apart
    expect(kept.at('t2', '5').get('client', 'c1')).toBeUndefined(); // tenants apart
    expect(keptNamesOf(handle())!.at('t1', '5').get('client', 'c1')).toBeUndefined(); // handles apart

    // A read that began before a change (an older version) neither sees nor drops the newer names.
    const older = kept.at('t1', '4');
    older.set('client', 'c1', 'Old');
    expect(older.get('client', 'c1')).toBeUndefined();
    expect(kept.at('t1', '5').get('client', 'c1')).toBe('Acme');
    // A newer version drops the tenant's names; '10' is newer than '9' (compared as numbers).
    kept.at('t1', '9').set('client', 'c1', 'Nine');
    expect(kept.at('t1', '10').get('client', 'c1')).toBeUndefined();
    expect(kept.at('t1', '9').get('client', 'c1')).toBeUndefined();
  });

  it('stay within their budget, dropping the least recently read tenants first', () => {
    const kept = keptNamesOf(handle())!;
    const fill = (tenant: string, n: number) => {
      const names = kept.at(tenant, '1');
      for (let i = 0; i < n; i++) names.set('client', `${tenant}-${i}`, `name ${i}`);
    };
    fill('a', 8_000);
    fill('b', 8_000);
    expect(kept.at('a', '1').get('client', 'a-0')).toBe('name 0'); // a is now the most recently read
    fill('c', 8_000); // past 20,000: b, the least recently read, goes
    expect(kept.at('b', '1').get('client', 'b-0')).toBeUndefined();
    expect(kept.at('a', '1').get('client', 'a-7999')).toBe('name 7999');
    expect(kept.at('c', '1').get('client', 'c-7999')).toBe('name 7999');
    fill('d', 25_000); // one tenant past the whole budget keeps what fits after a fresh start
    expect(kept.at('a', '1').get('client', 'a-0')).toBeUndefined();
    expect(kept.at('d', '1').get('client', 'd-24999')).toBe('name 24999');
  });

  describe('a kind read whole', () => {
    /** A read of the whole kind that counts its calls and answers `names` at `version`. */
    const reader = (version: string, names: KindNames['names']) => {
      const calls: number[] = [];
      return { calls, read: async (limit: number) => { calls.push(limit); return { version, names }; } };
    };
    const named = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `c${i}`, name: `Client ${i}` }));

    it('is read once the kind missed fillAfter names at a version, once for every caller, and kept', async () => {
      const db = handle();
      keepNamesWithin(db, { fillAfter: 3, names: 100 });
      const names = keptNamesOf(db)!.at('t', '7');
      const { calls, read } = reader('7', named(5));
      expect(names.missed('client', read)).toBeUndefined();
      expect(names.missed('client', read)).toBeUndefined();
      const first = names.missed('client', read); // the third miss
      const second = names.missed('client', read); // a caller while it runs: the same read
      expect(second).toBe(first);
      await first;
      expect(calls).toEqual([50]); // at most half the budget (the read asks for one more, to tell)
      expect(names.get('client', 'c4')).toBe('Client 4');
      expect(names.get('user', 'c4')).toBeUndefined(); // only that kind
      await names.missed('client', read); // done at this version: not read again
      expect(calls).toHaveLength(1);
    });

    it('keeps nothing read at another version, nor a kind over half the budget, which is not read again', async () => {
      const db = handle();
      keepNamesWithin(db, { fillAfter: 1, names: 8 });
      const kept = keptNamesOf(db)!;
      await kept.at('t', '7').missed('client', reader('8', named(2)).read); // a rename since: another version
      expect(kept.at('t', '7').get('client', 'c0')).toBeUndefined();

      const big = reader('9', named(5)); // 5 > 4, half of 8
      await kept.at('t', '9').missed('client', big.read);
      expect(kept.at('t', '9').get('client', 'c0')).toBeUndefined();
      expect(kept.at('t', '10').missed('client', big.read)).toBeUndefined(); // the tenant's next versions too
      expect(big.calls).toHaveLength(1);
      const users = reader('10', named(2));
      await kept.at('t', '10').missed('user', users.read); // another kind is read
      expect(kept.at('t', '10').get('user', 'c1')).toBe('Client 1');
    });

    it('reads nothing whole for a read older than the newest version seen', () => {
      const db = handle();
      keepNamesWithin(db, { fillAfter: 1 });
      const kept = keptNamesOf(db)!;
      kept.at('t', '9');
      const { calls, read } = reader('8', named(2));
      expect(kept.at('t', '8').missed('client', read)).toBeUndefined();
      expect(calls).toHaveLength(0);
    });
  });
});

