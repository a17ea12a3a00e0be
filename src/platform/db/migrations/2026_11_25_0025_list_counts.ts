import type { Kysely } from 'kysely';
import { runStatements } from './run-statements.ts';

/**
 * Maintained totals for the unfiltered lists integrators page through most (clients, contacts, tickets,
 * assets, projects), so `pagination.total` stays exact without counting every row on every page.
 *
 * Writers only ever INSERT a delta row (statement-level triggers over the transition tables, one row per
 * tenant a statement touches), so concurrent writers never wait for each other on a counter row; a reader
 * sums the deltas, and a scheduled compaction folds them into one row per (tenant, list). The trigger
 * function is one line: runStatements splits scripts on `;` at line ends.
 */
const COUNTED = [
  // table, list, rows that count (the list's unfiltered scope), whether an UPDATE can change that
  ['clients', 'clients', 'merged_into_client_id is null', true],
  ['contacts', 'contacts', 'true', false],
  ['tickets', 'tickets', 'true', false],
  ['assets', 'assets', 'true', false],
  ['projects', 'projects', 'true', false],
] as const;

/** Adds the rows a statement inserted, subtracts those it deleted, and both for an update (net per tenant). */
const LIST_COUNT_CHANGES = [
  'create function list_count_changes() returns trigger language plpgsql as $$ begin',
  "if TG_OP = 'INSERT' then",
  "execute format('insert into list_counts (tenant, list, delta) select tenant, %L, count(*) from new_rows where %s group by tenant', TG_ARGV[0], TG_ARGV[1]);",
  "elsif TG_OP = 'DELETE' then",
  "execute format('insert into list_counts (tenant, list, delta) select tenant, %L, -count(*) from old_rows where %s group by tenant', TG_ARGV[0], TG_ARGV[1]);",
  'else',
  "execute format('insert into list_counts (tenant, list, delta) select tenant, %L, sum(d) from (select tenant, 1 as d from new_rows where %s union all select tenant, -1 from old_rows where %s) x group by tenant having sum(d) <> 0', TG_ARGV[0], TG_ARGV[1], TG_ARGV[1]);",
  'end if; return null; end $$',
].join(' ');

export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, `
    create table list_counts (
      tenant uuid not null,
      list text not null,
      delta bigint not null
    );
    create index list_counts_tenant_list_idx on list_counts (tenant, list);

    ${LIST_COUNT_CHANGES};
  `);
  for (const [table, list, counts, updates] of COUNTED) {
    await runStatements(db, `
      insert into list_counts (tenant, list, delta) select tenant, '${list}', count(*) from ${table} where ${counts} group by tenant;
      create trigger ${table}_list_count_insert after insert on ${table} referencing new table as new_rows
        for each statement execute function list_count_changes('${list}', '${counts}');
      create trigger ${table}_list_count_delete after delete on ${table} referencing old table as old_rows
        for each statement execute function list_count_changes('${list}', '${counts}');
    `);
    if (updates) {
      await runStatements(db, `
        create trigger ${table}_list_count_update after update on ${table} referencing new table as new_rows old table as old_rows
          for each statement execute function list_count_changes('${list}', '${counts}');
      `);
    }
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const [table] of COUNTED) {
    await runStatements(db, `
      drop trigger if exists ${table}_list_count_insert on ${table};
      drop trigger if exists ${table}_list_count_delete on ${table};
      drop trigger if exists ${table}_list_count_update on ${table};
    `);
  }
  await runStatements(db, `
    drop function list_count_changes();
    drop table list_counts;
  `);
}
