import type { Kysely } from 'kysely';
import { runStatements } from './run-statements.ts';
import { matchingFunction } from './2026_12_06_0034_search_pending_postings_matching.ts';
import { mergeFromRows } from './2026_12_07_0039_search_pending_rows_words.ts';

/**
 * The head postings without `client_id` and `is_internal` (bench/README.md, "Issue 23: the postings without the
 * client"). They were copied into every posting for a client-portal caller, but since that caller is searched by the
 * general engine (migration 0037) no statement reads them: 17 of each index entry's ~100 bytes, in an index of
 * ~22 million entries at 1M documents. The index is built anew beside the old one, so searches keep theirs
 * meanwhile; the table's rows keep the dropped columns' bytes until they are rewritten (only the index is read).
 */
const WITHOUT = [
  ['client_id uuid, is_internal boolean, ', ''],
  ['d.client_id, d.is_internal, ', ''],
  ['indexed_at, client_id, is_internal, restricted', 'indexed_at, restricted'],
] as const;

/** `text` with each of WITHOUT's replacements that occur in it made; throws if none does. */
function withoutClient(text: string): string {
  const out = WITHOUT.reduce((t, [from, to]) => t.replaceAll(from, to), text);
  if (out === text || out.includes('client_id')) throw new Error('migration 0041: a postings function no longer reads as expected');
  return out;
}

const INDEX = 'search_postings (tenant, term, object_type, tier, updated_at desc, object_id)';

export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, `
    select search_postings_merge(2147483647);
    create unique index search_postings_ranked_narrow on ${INDEX} include (indexed_at, restricted, required_permission);
    drop index search_postings_ranked;
    alter index search_postings_ranked_narrow rename to search_postings_ranked;
    alter table search_postings drop column client_id, drop column is_internal;
    drop function search_pending_postings(uuid, tsquery);
    ${withoutClient(matchingFunction)};
    ${withoutClient(mergeFromRows)};
  `);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, `
    select search_postings_merge(2147483647);
    alter table search_postings add column client_id uuid, add column is_internal boolean not null default false;
    update search_postings p set client_id = d.client_id, is_internal = d.is_internal from search_documents d
      where d.tenant = p.tenant and d.object_type = p.object_type and d.object_id = p.object_id;
    alter table search_postings alter column is_internal drop default;
    create unique index search_postings_ranked_wide on ${INDEX} include (indexed_at, client_id, is_internal, restricted, required_permission);
    drop index search_postings_ranked;
    alter index search_postings_ranked_wide rename to search_postings_ranked;
    drop function search_pending_postings(uuid, tsquery);
    ${matchingFunction};
    ${mergeFromRows};
  `);
}
