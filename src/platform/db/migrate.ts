import { Migrator, sql, type Kysely, type MigrationResultSet } from 'kysely';
import type { DB } from './schema.ts';
import { migrations } from './migrations/index.ts';

/** Whether the database has applied exactly the migrations this code knows (the usual case on a restart). */
async function upToDate(db: Kysely<DB>): Promise<boolean> {
  const table = await sql<{ present: boolean }>`select to_regclass('kysely_migration') is not null as present`.execute(db);
  if (!table.rows[0]?.present) return false;
  const applied = await sql<{ name: string }>`select name from kysely_migration`.execute(db);
  const known = Object.keys(migrations);
  return applied.rows.length === known.length && applied.rows.every((r) => Object.hasOwn(migrations, r.name));
}

/**
 * Applies pending migrations. Kysely's PostgreSQL adapter takes a transaction-scoped advisory lock,
 * so concurrent starters (several api processes) migrate once and the others wait. A database that is
 * already up to date is recognised with two reads, without the migrator's lock, table checks and
 * transaction (most starts).
 */
export async function migrateToLatest(db: Kysely<DB>): Promise<string[]> {
  if (await upToDate(db)) return [];
  return applied(await migrator(db).migrateToLatest());
}

/** Migrates up or down to `name` (its `down` functions run for every later migration): for benchmarks of an older schema. */
export async function migrateTo(db: Kysely<DB>, name: keyof typeof migrations): Promise<string[]> {
  return applied(await migrator(db).migrateTo(name));
}

const migrator = (db: Kysely<DB>) => new Migrator({ db, provider: { getMigrations: async () => migrations } });

function applied({ error, results }: MigrationResultSet): string[] {
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
