import type { Kysely } from 'kysely';
import { runStatements } from './run-statements.ts';

/**
 * The title and subtitle vectors read from the document's full-text vector instead of being stored beside it
 * (bench/README.md, "Issue 23: a fast machine, the write cost measured"). `search_vector` is the title's vector
 * weighted A, then the subtitle's (with the identifier) weighted B, then the body's weighted C, so
 * `ts_filter(search_vector, '{a}')` holds exactly the title's lexemes and `'{b}'` the subtitle's, at the same
 * relative positions (phrases match the same). The two generated columns made every write parse the title and
 * subtitle a second time and widened every row by ~100–150 bytes (of 400–1,600) that the full-text counts read
 * from the heap.
 *
 * The postings triggers now take a document's words from `ts_filter`: the same lexemes, so postings written before
 * are found and deleted by the same keys.
 */

/** Each word of the row `r` with its best tier (1 title, 2 subtitle and identifier), as `t`. */
const wordsOfRow = (title: string, subtitle: string) => `lateral (
    select w.term collate "C" as term, min(w.tier)::smallint as tier
    from (select unnest(tsvector_to_array(${title})) as term, 1 as tier
          union all select unnest(tsvector_to_array(${subtitle})), 2) w
    group by w.term
  ) t`;

const triggerFunction = (title: string, subtitle: string) => {
  const words = wordsOfRow(title, subtitle);
  return [
    'create or replace function search_postings_sync() returns trigger language plpgsql as $$ begin',
    "if TG_OP in ('UPDATE', 'DELETE') then",
    `delete from search_postings p using (
      select r.tenant, t.term, t.tier, r.object_type, r.object_id, r.updated_at from old_rows r cross join ${words}
    ) o
    where p.tenant = o.tenant and p.term = o.term and p.object_type = o.object_type and p.tier = o.tier
      and p.updated_at = o.updated_at and p.object_id = o.object_id;`,
    'end if;',
    "if TG_OP in ('INSERT', 'UPDATE') then",
    `insert into search_postings (tenant, term, tier, object_type, object_id, updated_at, indexed_at, client_id, is_internal, restricted,
      required_permission)
    select r.tenant, t.term, t.tier, r.object_type, r.object_id, r.updated_at, r.indexed_at, r.client_id, r.is_internal,
      r.visible_to_user_ids is not null, r.required_permission
    from new_rows r cross join ${words};`,
    'end if;',
    'return null; end $$',
  ].join(' ').replace(/\s*\n\s*/g, ' ');
};

/** The postings trigger this migration installs (migration 0032's `down` restores it). */
export const postingsTriggerFunction = triggerFunction("ts_filter(r.search_vector, '{a}')", "ts_filter(r.search_vector, '{b}')");

export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, `
    ${postingsTriggerFunction};
    alter table search_documents drop column title_vector, drop column subtitle_vector;
  `);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, `
    alter table search_documents
      add column title_vector tsvector generated always as (to_tsvector('english'::regconfig, title)) stored,
      add column subtitle_vector tsvector generated always as (to_tsvector('english'::regconfig, coalesce(subtitle, '') || ' ' || coalesce(identifier, ''))) stored;
    ${triggerFunction('r.title_vector', 'r.subtitle_vector')};
  `);
}
