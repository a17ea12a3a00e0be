import { sql, type Kysely } from 'kysely';
import { runStatements } from './run-statements.ts';
import { dropPostingsTriggers, postingsTriggers } from './2026_11_28_0028_search_postings.ts';

/**
 * The postings' statement triggers (migrations 0028, 0032) on every partition of `search_documents` too, so the
 * index writer can write a document straight into its type's partition (platform/search/partitions.ts): through
 * the partitioned parent, PostgreSQL routes each statement's rows and sets up the partition's insert and
 * `on conflict` state anew, ~45 µs of a record's ~470 µs index write (bench/README.md, "Issue 23: writes into the
 * partitions"). A statement fires the statement triggers of the table it names only: one written through the
 * parent (a delete of a record's documents) fires the parent's, one written into a partition the partition's, so
 * every write adds its pending rows once. A partition added later needs them too (the writer's test checks it).
 */
async function partitions(db: Kysely<unknown>): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`
    select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid
    where i.inhparent = 'search_documents'::regclass order by c.relname`.execute(db);
  return rows.map((r) => r.name);
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, (await partitions(db)).map(postingsTriggers).join('\n'));
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, (await partitions(db)).map(dropPostingsTriggers).join('\n'));
}
