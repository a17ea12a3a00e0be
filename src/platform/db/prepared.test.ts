import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, engine } from '../../../test/harness.ts';
import { openPostgres, type Database } from './database.ts';
import { everyColumn, PREPARE_MARK, preparedQuery, PREPARED_TEXTS } from './prepared.ts';

let database: Database;
beforeAll(async () => { database = await createTestDatabase(); });
afterAll(async () => database.close());

const tenantsBySlug = preparedQuery(['slug', 'name'], (db, v) =>
  db.selectFrom('tenants').select(['slug', 'name']).where('slug', '=', v.slug).where('name', '<>', v.name).orderBy('slug'),
);

describe('everyColumn', () => {
  it('returns the columns it is given; the type checker (npm run typecheck) rejects a list that misses one', () => {
    interface Table { a: string; b: number; c: Date | null }
    expect(everyColumn<Table>()(['a', 'b', 'c'])).toEqual(['a', 'b', 'c']);
    // @ts-expect-error: 'c' is missing, so the list could not stand for the whole row.
    expect(everyColumn<Table>()(['a', 'b'])).toEqual(['a', 'b']);
  });
});

describe('preparedQuery', () => {
  it('substitutes the named values on every call', async () => {
    await database.db.insertInto('tenants').values([
      { tenant_id: '01890000-0000-7000-8000-0000000000a1', slug: 'prep-a', name: 'A' },
      { tenant_id: '01890000-0000-7000-8000-0000000000a2', slug: 'prep-b', name: 'B' },
    ]).execute();
    expect(await tenantsBySlug(database.db, { slug: 'prep-a', name: 'nobody' })).toEqual([{ slug: 'prep-a', name: 'A' }]);
    expect(await tenantsBySlug(database.db, { slug: 'prep-b', name: 'nobody' })).toEqual([{ slug: 'prep-b', name: 'B' }]);
    expect(await tenantsBySlug(database.db, { slug: 'prep-b', name: 'B' })).toEqual([]);
    expect(PREPARED_TEXTS.size).toBeGreaterThan(0);
  });

  it(`runs as a named prepared statement on PostgreSQL, and as a plain query on PGlite (${engine})`, async () => {
    const prepared = await database.db.connection().execute(async (conn) => {
      await tenantsBySlug(conn, { slug: 'prep-a', name: 'x' });
      await tenantsBySlug(conn, { slug: 'prep-a', name: 'x' });
      const { rows } = await sql<{ n: number }>`select count(*)::int as n from pg_prepared_statements where statement like '%from "tenants"%'`.execute(conn);
      return rows[0]!.n;
    });
    expect(prepared).toBe(engine === 'pg' ? 1 : 0);
  });
});

describe('marked shapes and plans', () => {
  it(`runs a query ending with PREPARE_MARK as a named statement on PostgreSQL (${engine})`, async () => {
    const marked = sql<{ n: number }>`select count(*)::int as n from tenants where slug like ${'prep-%'}${sql.raw(PREPARE_MARK)}`;
    const prepared = await database.db.connection().execute(async (conn) => {
      await marked.execute(conn);
      const { rows } = await sql<{ n: number }>`select count(*)::int as n from pg_prepared_statements where statement like '%/* prepared */'`.execute(conn);
      return rows[0]!.n;
    });
    expect(prepared).toBe(engine === 'pg' ? 1 : 0);
  });

  it(`also when the mark is followed by the template's closing newline and indent (${engine})`, async () => {
    const marked = sql<{ n: number }>`
      select count(*)::int as trailing_n from tenants where slug like ${'mark-%'}${sql.raw(PREPARE_MARK)}
    `;
    const prepared = await database.db.connection().execute(async (conn) => {
      await marked.execute(conn);
      const { rows } = await sql<{ n: number }>`select count(*)::int as n from pg_prepared_statements where statement like '%trailing_n%'`.execute(conn);
      return rows[0]!.n;
    });
    expect(prepared).toBe(engine === 'pg' ? 1 : 0);
  });

  it.runIf(engine === 'pg')('a named statement settles on its generic plan; the others are planned with their values', async () => {
    // A list page's shape: the limit in the text, no offset (list.ts). After PostgreSQL's five custom plans it
    // keeps the generic one, so the statement is no longer planned per call.
    const page = sql<{ slug: string }>`select slug from tenants where slug like ${'prep-%'} order by slug limit 25${sql.raw(PREPARE_MARK)}`;
    const plans = await database.db.connection().execute(async (conn) => {
      for (let i = 0; i < 7; i++) await page.execute(conn);
      const { rows } = await sql<{ generic: number; custom: number; mode: string }>`
        select generic_plans::int as generic, custom_plans::int as custom, current_setting('plan_cache_mode') as mode
        from pg_prepared_statements where statement like '%limit 25 /* prepared */'`.execute(conn);
      return rows[0];
    });
    // The pool leaves plan_cache_mode alone: unnamed statements are planned with their values, not forced generic.
    expect(plans).toEqual({ generic: 2, custom: 5, mode: 'auto' });
  });

  it.runIf(engine === 'pg')('keeps the options the URL carries', async () => {
    const url = new URL(process.env.TEST_DATABASE_URL!);
    url.searchParams.set('options', '-c statement_timeout=12345');
    const other = await openPostgres(url.toString(), 1);
    try {
      const { rows } = await sql<{ timeout: string }>`select current_setting('statement_timeout') as timeout`.execute(other.db);
      expect(rows[0]).toEqual({ timeout: '12345ms' });
    } finally {
      await other.close();
    }
  });
});
