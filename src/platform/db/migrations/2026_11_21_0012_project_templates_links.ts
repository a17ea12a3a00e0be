import type { Kysely } from 'kysely';
import { runStatements } from './run-statements.ts';

/** project templates and project-ticket links: tables are added by the area that owns this migration. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, ``);
}
