import type { Kysely } from 'kysely';
import { runStatements } from './run-statements.ts';

/**
 * Unified search: one row per indexed record, written by the areas' indexers in the same transaction
 * as the record itself (src/modules/search/sync.ts).
 *
 * The weighted vector is a generated column (title A, subtitle and identifier B, body C), so no writer
 * can forget it and a re-index never computes it in application code. The body is capped before
 * parsing so one huge note cannot make a write slow. Access is carried on the row: `client_id` scopes
 * client-portal keys, `is_internal` hides internal comments from them, `visible_to_user_ids` narrows a
 * row to its assignees, `required_permission` adds a per-row permission where the type gate is not enough.
 *
 * `title_vector` and `subtitle_vector` (small, unindexed except the title's) let the ranker tell a
 * title or subtitle match from a body mention without decompressing and filtering the whole vector per
 * row (measured: that filter was ~45 % of a common-word query). `indexed_at` changes only when a row's content changes (the writer skips no-op updates), so a
 * search cursor can pin its snapshot to it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, `
    create extension if not exists pg_trgm;

    create table search_documents (
      tenant uuid not null references tenants (tenant_id),
      object_type text not null,
      object_id uuid not null,
      parent_type text,
      parent_id uuid,
      title text not null,
      subtitle text,
      body text,
      url text not null,
      identifier text,
      client_id uuid,
      is_internal boolean not null default false,
      visible_to_user_ids uuid[],
      required_permission text,
      updated_at timestamptz(3) not null,
      indexed_at timestamptz(3) not null,
      search_vector tsvector generated always as (
        setweight(to_tsvector('english'::regconfig, coalesce(title, '')), 'A') ||
        setweight(to_tsvector('english'::regconfig, coalesce(subtitle, '') || ' ' || coalesce(identifier, '')), 'B') ||
        setweight(to_tsvector('english'::regconfig, left(coalesce(body, ''), 100000)), 'C')
      ) stored,
      title_vector tsvector generated always as (to_tsvector('english'::regconfig, title)) stored,
      subtitle_vector tsvector generated always as (to_tsvector('english'::regconfig, coalesce(subtitle, '') || ' ' || coalesce(identifier, ''))) stored,
      primary key (tenant, object_type, object_id)
    );

    create index search_documents_vector on search_documents using gin (search_vector);
    create index search_documents_title_vector on search_documents using gin (title_vector);
    create index search_documents_title_trgm on search_documents using gin (title gin_trgm_ops);
    create index search_documents_identifier on search_documents (tenant, identifier text_pattern_ops) where identifier is not null;
    create index search_documents_parent on search_documents (tenant, parent_type, parent_id) where parent_id is not null;
    create index search_documents_recent on search_documents (tenant, updated_at desc, object_id);
  `);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, `drop table search_documents`);
}
