import type { Kysely } from 'kysely';
import { runStatements } from './run-statements.ts';

/**
 * The head postings keyed in ranking order within each word and type (bench/README.md, "Issue 23"):
 * `(tenant, term, object_type, tier, updated_at desc, object_id)`. With the type before the rank, a type's
 * count stops at the cap after cap + 1 index entries, and a page of a word's best matches is the first entries
 * of each type's range, so a frequent word no longer reads (and de-duplicates) every one of its postings.
 * Same entries, same columns, same writes: only the key's order changes. The old key is a primary key; this one
 * has a descending column, which a primary key cannot, so it is a unique index.
 *
 * The triggers delete a document's postings by this whole key: the old row's words and tiers come from its
 * vectors and its recency from the row itself, so each delete is one index probe rather than a scan of the
 * word's range for the document's id.
 */

/** Each word of the row `r` with its best tier (1 title, 2 subtitle and identifier), as `t`. */
const wordsOfRow = `lateral (
    select w.term collate "C" as term, min(w.tier)::smallint as tier
    from (select unnest(tsvector_to_array(r.title_vector)) as term, 1 as tier
          union all select unnest(tsvector_to_array(r.subtitle_vector)), 2) w
    group by w.term
  ) t`;

const deletePostingsOf = (rows: string) => `
  delete from search_postings p using (
    select r.tenant, t.term, t.tier, r.object_type, r.object_id, r.updated_at from ${rows} r cross join ${wordsOfRow}
  ) o
  where p.tenant = o.tenant and p.term = o.term and p.object_type = o.object_type and p.tier = o.tier
    and p.updated_at = o.updated_at and p.object_id = o.object_id`;

const insertPostingsOf = (rows: string) => `
  insert into search_postings (tenant, term, tier, object_type, object_id, updated_at, indexed_at, client_id, is_internal, restricted,
    required_permission)
  select r.tenant, t.term, t.tier, r.object_type, r.object_id, r.updated_at, r.indexed_at, r.client_id, r.is_internal,
    r.visible_to_user_ids is not null, r.required_permission
  from ${rows} r cross join ${wordsOfRow}`;

// One line: runStatements splits scripts on `;` at line ends.
const triggerFunction = (deleteBy: string) => [
  'create or replace function search_postings_sync() returns trigger language plpgsql as $$ begin',
  "if TG_OP in ('UPDATE', 'DELETE') then", `${deleteBy};`, 'end if;',
  "if TG_OP in ('INSERT', 'UPDATE') then", `${insertPostingsOf('new_rows')};`, 'end if;',
  'return null; end $$',
].join(' ').replace(/\s*\n\s*/g, ' ');

/** Migration 0028's delete, by the old key's columns. */
const deleteByDocumentKey = `
  delete from search_postings p using (
    select distinct r.tenant, w.term collate "C" as term, r.object_type, r.object_id
    from old_rows r cross join lateral unnest(tsvector_to_array(r.title_vector) || tsvector_to_array(r.subtitle_vector)) w (term)
  ) o
  where p.tenant = o.tenant and p.term = o.term and p.object_type = o.object_type and p.object_id = o.object_id`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, `
    alter table search_postings drop constraint search_postings_pkey;
    create unique index search_postings_ranked on search_postings (tenant, term, object_type, tier, updated_at desc, object_id)
      include (indexed_at, client_id, is_internal, restricted, required_permission);
    ${triggerFunction(deletePostingsOf('old_rows'))};
  `);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, `
    drop index search_postings_ranked;
    alter table search_postings add primary key (tenant, term, object_type, object_id)
      include (tier, updated_at, indexed_at, client_id, is_internal, restricted, required_permission);
    ${triggerFunction(deleteByDocumentKey)};
  `);
}
