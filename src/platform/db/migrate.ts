import { Migrator, type Kysely } from 'kysely';
import type { DB } from './schema.ts';
import { migrations } from './migrations/index.ts';

/**
 * Applies pending migrations. Kysely's PostgreSQL adapter takes a transaction-scoped advisory lock,
 * so concurrent starters (several api processes) migrate once and the others wait.
 */
export async function migrateToLatest(db: Kysely<DB>): Promise<string[]> {
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
