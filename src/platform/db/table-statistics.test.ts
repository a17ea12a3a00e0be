import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, engine } from '../../../test/harness.ts';
import type { Database } from './database.ts';
import { newId } from '../ids.ts';
import { analyzeChangedTables } from './table-statistics.ts';

let database: Database;
beforeAll(async () => { database = await createTestDatabase(); });
afterAll(async () => database.close());

const lastAnalyze = async (table: string) =>
  (await sql<{ at: Date | null }>`select last_analyze as at from pg_stat_user_tables where relname = ${table}`.execute(database.db)).rows[0]?.at ?? null;

/** 300 new tenants, their counters reported to the server at once. */
async function addTenants(from: number): Promise<void> {
  await database.db.connection().execute(async (conn) => {
    await conn.insertInto('tenants').values(Array.from({ length: 300 }, (_, i) => ({ tenant_id: newId(), slug: `stats-${from + i}`, name: `Stats ${from + i}` }))).execute();
    // A backend reports its counters when idle, at most once a second unless told to now.
    if (engine === 'pg') await sql`select pg_stat_force_next_flush()`.execute(conn);
    await sql`select 1`.execute(conn);
  });
}

describe(`table statistics where autovacuum is off (${engine})`, () => {
  it('analyzes a table changed past the server threshold once, and only where the server would not', async () => {
    const { rows } = await sql<{ off: boolean }>`select current_setting('autovacuum') = 'off' as off`.execute(database.db);
    const autovacuumOff = rows[0]!.off;
    await addTenants(0);
    const before = await lastAnalyze('tenants');

    const analyzed = await analyzeChangedTables(database.db);

    expect(analyzed.includes('tenants')).toBe(autovacuumOff);
    if (autovacuumOff) {
      expect(before).toBeNull();
      expect(await lastAnalyze('tenants')).not.toBeNull();
      // Nothing changed since: the next run leaves it alone; nor, within autovacuum_naptime, after more changes.
      expect(await analyzeChangedTables(database.db)).not.toContain('tenants');
      await addTenants(300);
      expect(await analyzeChangedTables(database.db)).not.toContain('tenants');
    }
  });
});
