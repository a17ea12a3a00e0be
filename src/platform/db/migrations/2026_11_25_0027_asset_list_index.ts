import type { Kysely } from 'kysely';
import { runStatements } from './run-statements.ts';

/**
 * The asset list's default order (newest first, then asset_id) read from an index: without it every page
 * sorted all of the tenant's assets (and joined them to their clients) to return 25.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, `create index assets_created_idx on assets (tenant, created_at, asset_id);`);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, `drop index assets_created_idx;`);
}
