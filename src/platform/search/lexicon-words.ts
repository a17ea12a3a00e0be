import { sql } from 'kysely';
import type { Executor } from '../db/executor.ts';

/**
 * Rewrites a tenant's typo dictionary from its documents (drops words no document has any more, and duplicates).
 * The postings' merge keeps it in step between re-indexes (migration 0038, which also defines a document's words).
 */
export async function rebuildLexicon(db: Executor, tenant: string): Promise<void> {
  await sql`delete from search_lexicon where tenant = ${tenant}::uuid`.execute(db);
  await sql`
    insert into search_lexicon (tenant, word)
    select distinct ${tenant}::uuid, w.found
    from search_documents d cross join lateral search_document_words(d.title, d.subtitle, d.body) as w (found)
    where d.tenant = ${tenant}::uuid
  `.execute(db);
}
