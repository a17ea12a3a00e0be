import type { Kysely } from 'kysely';
import { runStatements } from './run-statements.ts';

/**
 * Search at scale (bench/README.md, "Issue 23"): counts that stop at a cap and a first page read from an index.
 *
 * 1. `search_documents` is partitioned by record type, each partition with its own full-text GIN. Counting one
 *    type's matches up to the cap then reads only that type's posting lists and visits at most cap + 1 rows;
 *    with one GIN for all types it built every type's matches and visited them to find the type's own. The
 *    types that stay small (settings, catalogue rows, people) share the default partition. The title GIN
 *    goes: nothing filters by the title alone.
 * 2. `search_postings`: one row per document and distinct word of its title (tier 1) or subtitle and
 *    identifier (tier 2), with the best tier, recency and the access columns, kept in step by statement
 *    triggers on `search_documents`: every writer (the index writer, the re-index, a deleted parent's rows) goes
 *    through them, and an update's transition table holds the row version it really replaced. The key
 *    `(tenant, term, object_type, object_id)` with the rest included lets one index-only range scan over the
 *    words a query's prefix covers give the head matches of every type, their counts and their order. Rows
 *    with a per-user audience carry only a flag (`restricted`), so arrays never widen the index; the engine
 *    checks those few against the document.
 * Terms are the lexemes of the generated vectors, in "C" collation so a prefix is one index range.
 */
const OWN_PARTITIONS = [
  'client', 'contact', 'ticket', 'ticket_comment', 'project', 'project_task', 'project_task_comment', 'asset',
  'invoice', 'invoice_item', 'invoice_annotation', 'contract', 'client_contract', 'document', 'kb_article',
  'service_request_submission', 'workflow_task', 'interaction', 'schedule_entry', 'time_entry', 'opportunity',
] as const;

const COLUMNS = `tenant, object_type, object_id, parent_type, parent_id, title, subtitle, body, url, identifier, client_id,
  is_internal, visible_to_user_ids, required_permission, updated_at, indexed_at`;

/** The postings of the documents in `rows` (a relation with the search_documents columns), for an INSERT … SELECT. */
const postingsOf = (rows: string) => `
  select r.tenant, t.term, t.tier, r.object_type, r.object_id, r.updated_at, r.indexed_at, r.client_id, r.is_internal,
    r.visible_to_user_ids is not null, r.required_permission
  from ${rows} r cross join lateral (
    select w.term collate "C" as term, min(w.tier)::smallint as tier
    from (select unnest(tsvector_to_array(r.title_vector)) as term, 1 as tier
          union all select unnest(tsvector_to_array(r.subtitle_vector)), 2) w
    group by w.term
  ) t`;

/** Deletes the postings of the documents in `rows` by their own keys (the words their vectors had). */
const deletePostingsOf = (rows: string) => `
  delete from search_postings p using (
    select distinct r.tenant, w.term collate "C" as term, r.object_type, r.object_id
    from ${rows} r cross join lateral unnest(tsvector_to_array(r.title_vector) || tsvector_to_array(r.subtitle_vector)) w (term)
  ) o
  where p.tenant = o.tenant and p.term = o.term and p.object_type = o.object_type and p.object_id = o.object_id`;

const INSERT_POSTINGS = `insert into search_postings (tenant, term, tier, object_type, object_id, updated_at, indexed_at, client_id,
  is_internal, restricted, required_permission)`;

// One line: runStatements splits scripts on `;` at line ends. Each event's trigger runs only its own branch.
const triggerFunction = [
  'create function search_postings_sync() returns trigger language plpgsql as $$ begin',
  "if TG_OP in ('UPDATE', 'DELETE') then", `${deletePostingsOf('old_rows')};`, 'end if;',
  "if TG_OP in ('INSERT', 'UPDATE') then", `${INSERT_POSTINGS} ${postingsOf('new_rows')};`, 'end if;',
  'return null; end $$',
].join(' ').replace(/\s*\n\s*/g, ' ');

const TRIGGER_EVENTS = [
  ['insert', 'new table as new_rows'],
  ['update', 'old table as old_rows new table as new_rows'],
  ['delete', 'old table as old_rows'],
] as const;

/** The statement triggers that keep a table's postings in step (its transition tables feed search_postings_sync). */
export const postingsTriggers = (table: string) => TRIGGER_EVENTS.map(([event, transition]) =>
  `create trigger search_postings_${event} after ${event} on ${table} referencing ${transition}\n  for each statement execute function search_postings_sync();`).join('\n');

export const dropPostingsTriggers = (table: string) => TRIGGER_EVENTS.map(([event]) => `drop trigger search_postings_${event} on ${table};`).join('\n');

/**
 * Whether a document with a per-user audience is visible to a user: the search engine's check for a restricted
 * posting (search.word-engine.ts). PL/pgSQL, so it is called per row and never inlined into a join.
 */
const visibleToFunction = [
  'create function search_document_visible_to(p_tenant uuid, p_type text, p_id uuid, p_user uuid) returns boolean',
  'language plpgsql stable as $$ begin return exists (select 1 from search_documents d where d.tenant = p_tenant',
  'and d.object_type = p_type and d.object_id = p_id and p_user = any(d.visible_to_user_ids)); end $$',
].join(' ');

export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, `
    alter table search_documents rename to search_documents_unpartitioned;
    alter table search_documents_unpartitioned rename constraint search_documents_pkey to search_documents_unpartitioned_pkey;

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
    ) partition by list (object_type);
    ${OWN_PARTITIONS.map((t) => `create table search_documents_${t} partition of search_documents for values in ('${t}');`).join('\n')}
    create table search_documents_other partition of search_documents default;

    insert into search_documents (${COLUMNS}) select ${COLUMNS} from search_documents_unpartitioned;
    drop table search_documents_unpartitioned;

    create index search_documents_vector on search_documents using gin (search_vector);
    create index search_documents_identifier on search_documents (tenant, identifier text_pattern_ops) where identifier is not null;
    create index search_documents_parent on search_documents (tenant, parent_type, parent_id) where parent_id is not null;
    create index search_documents_recent on search_documents (tenant, updated_at desc, object_id);

    create table search_postings (
      tenant uuid not null,
      term text collate "C" not null,
      tier smallint not null,
      object_type text not null,
      object_id uuid not null,
      updated_at timestamptz(3) not null,
      indexed_at timestamptz(3) not null,
      client_id uuid,
      is_internal boolean not null,
      restricted boolean not null,
      required_permission text,
      primary key (tenant, term, object_type, object_id)
        include (tier, updated_at, indexed_at, client_id, is_internal, restricted, required_permission)
    );
    ${INSERT_POSTINGS} ${postingsOf('search_documents')};

    ${triggerFunction};
    ${visibleToFunction};
    ${postingsTriggers('search_documents')}
  `);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, `
    ${dropPostingsTriggers('search_documents')}
    drop table search_postings;
    drop function search_postings_sync();
    drop function search_document_visible_to(uuid, text, uuid, uuid);
    alter table search_documents rename to search_documents_partitioned;
    alter table search_documents_partitioned rename constraint search_documents_pkey to search_documents_partitioned_pkey;
    create table search_documents (like search_documents_partitioned including defaults including generated, primary key (tenant, object_type, object_id));
    alter table search_documents add foreign key (tenant) references tenants (tenant_id);
    insert into search_documents (${COLUMNS}) select ${COLUMNS} from search_documents_partitioned;
    drop table search_documents_partitioned;
    create index search_documents_vector on search_documents using gin (search_vector);
    create index search_documents_title_vector on search_documents using gin (title_vector);
    create index search_documents_identifier on search_documents (tenant, identifier text_pattern_ops) where identifier is not null;
    create index search_documents_parent on search_documents (tenant, parent_type, parent_id) where parent_id is not null;
    create index search_documents_recent on search_documents (tenant, updated_at desc, object_id);
  `);
}
