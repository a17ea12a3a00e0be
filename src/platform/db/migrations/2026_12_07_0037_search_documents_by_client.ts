import type { Kysely } from 'kysely';
import { runStatements } from './run-statements.ts';

/**
 * A client's documents, on every partition of `search_documents`: what a client-portal search (one client's rows)
 * reads its matches through, as the intersection of this index's bitmap with the full-text index's. Without it a
 * portal user's search visited every match of the whole tenant to keep its client's: 0.25–0.57 s for a frequent
 * word at 1M rows (bench/README.md, "Issue 23: client-portal searches").
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, `create index search_documents_by_client on search_documents (tenant, client_id) where client_id is not null;`);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, `drop index search_documents_by_client;`);
}
