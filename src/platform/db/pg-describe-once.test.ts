import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, engine } from '../../../test/harness.ts';
import type { Database } from './database.ts';
import { preparedQuery } from './prepared.ts';

/** A client of the test server, counting the descriptions the server sends it. */
async function countingClient() {
  const client = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
  await client.connect();
  const seen = { rowDescription: 0, noData: 0 };
  const connection = (client as unknown as { connection: NodeJS.EventEmitter }).connection;
  connection.on('rowDescription', () => (seen.rowDescription += 1));
  connection.on('noData', () => (seen.noData += 1));
  return { client, seen };
}

// On PostgreSQL, opening the database (openPostgres) installs describeOncePerStatement on pg; PGlite has no pg client.
describe.runIf(engine === 'pg')('describeOncePerStatement (named statements on a pg connection)', () => {
  let database: Database;
  const clients: pg.Client[] = [];
  beforeAll(async () => { database = await createTestDatabase(); });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.end()));
    await database.close();
  });
  const connect = async () => {
    const c = await countingClient();
    clients.push(c.client);
    return c;
  };

  it('describes a named statement once per connection and reads every execution the same way', async () => {
    const { client, seen } = await connect();
    const statement = { name: 'describe_once_read', text: 'select $1::int + 1 as n, $2::text as s, $3::timestamptz as at, null::text as missing' };
    for (const [n, s] of [[1, 'a'], [41, 'b'], [-3, 'c']] as const) {
      const r = await client.query({ ...statement, values: [n, s, '2026-12-06T10:00:00Z'] });
      expect(r.rows).toEqual([{ n: n + 1, s, at: new Date('2026-12-06T10:00:00Z'), missing: null }]);
      expect(r.fields.map((f) => f.name)).toEqual(['n', 's', 'at', 'missing']);
    }
    expect(seen.rowDescription).toBe(1);

    const other = await connect(); // another connection parses and describes for itself
    const r = await other.client.query({ ...statement, values: [1, 'x', '2026-12-06T10:00:00Z'] });
    expect(r.rows[0]).toMatchObject({ n: 2, s: 'x' });
    expect(other.seen.rowDescription).toBe(1);
  });

  it('remembers a statement that returns no rows (NoData) and still reports each command', async () => {
    const { client, seen } = await connect();
    await client.query('create temporary table describe_once_rows (n int)');
    for (const n of [1, 2, 3]) {
      const r = await client.query({ name: 'describe_once_insert', text: 'insert into describe_once_rows (n) values ($1)', values: [n] });
      expect(r.rowCount).toBe(1);
      expect(r.command).toBe('INSERT');
    }
    expect(seen.noData).toBe(1);
    expect((await client.query('select array_agg(n order by n) as ns from describe_once_rows')).rows[0].ns).toEqual([1, 2, 3]);
  });

  it('leaves unnamed statements alone: each is described', async () => {
    const { client, seen } = await connect();
    for (const n of [1, 2, 3]) expect((await client.query('select $1::int as n', [n])).rows).toEqual([{ n }]);
    expect(seen.rowDescription).toBe(3);
  });

  it('keeps a failed execution to itself: the next ones read their rows', async () => {
    const { client, seen } = await connect();
    const statement = { name: 'describe_once_divide', text: 'select 10 / $1::int as q' };
    await expect(client.query({ ...statement, values: [0] })).rejects.toThrow(/division by zero/);
    expect((await client.query({ ...statement, values: [5] })).rows).toEqual([{ q: 2 }]);
    expect((await client.query({ ...statement, values: [2] })).rows).toEqual([{ q: 5 }]);
    expect(seen.rowDescription).toBe(1);
  });

  it('never reads rows with an outdated description: PostgreSQL refuses a statement whose columns changed', async () => {
    const { client } = await connect();
    await client.query('create temporary table describe_once_shape (a int)');
    await client.query('insert into describe_once_shape values (1)');
    const statement = { name: 'describe_once_shape', text: 'select * from describe_once_shape' };
    expect((await client.query(statement)).rows).toEqual([{ a: 1 }]);
    await client.query('alter table describe_once_shape add column b int');
    await expect(client.query(statement)).rejects.toThrow(/cached plan must not change result type/);
  });
});

describe(`prepared statements run again and again through the database (${engine})`, () => {
  let database: Database;
  beforeAll(async () => { database = await createTestDatabase(); });
  afterAll(async () => database.close());

  const read = preparedQuery(['n', 's'], (db, v) => ({
    compile: () => sql<{ n: number; s: string; at: Date; missing: null }>`select ${v.n}::int + 1 as n, ${v.s}::text as s,
      '2026-12-06T10:00:00Z'::timestamptz as at, null::text as missing`.compile(db),
  }));
  const insert = preparedQuery(['n'], (db, v) => ({ compile: () => sql`insert into describe_once_kept (n) values (${v.n}::int)`.compile(db) }));

  it('read each execution\'s rows with their types, on every connection of the pool', async () => {
    // More executions at once than the pool has connections: each connection's first describes, the rest do not.
    const runs = Array.from({ length: 24 }, (_, i) => read(database.db, { n: i, s: `s${i}` }));
    for (const [i, rows] of (await Promise.all(runs)).entries()) {
      expect(rows).toEqual([{ n: i + 1, s: `s${i}`, at: new Date('2026-12-06T10:00:00Z'), missing: null }]);
    }
  });

  it('write with a statement that returns no rows, every time', async () => {
    await sql`create table describe_once_kept (n int)`.execute(database.db);
    await Promise.all(Array.from({ length: 12 }, (_, i) => insert(database.db, { n: i })));
    const { rows } = await sql<{ ns: number[] }>`select array_agg(n order by n) as ns from describe_once_kept`.execute(database.db);
    expect(rows[0]!.ns).toEqual(Array.from({ length: 12 }, (_, i) => i));
  });
});
