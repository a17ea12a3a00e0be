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

/**
 * One trigger function per list, its scope written into static SQL: PL/pgSQL plans it once per session, where
 * a shared function taking the scope as an argument would parse and plan an EXECUTE in every write
 * statement. Adds the rows a statement inserted, subtracts those it deleted, and both for an update (net per
 * tenant); only the branch of the firing event runs, so each names only the transition table it has.
 */
const listCountFunction = (list: string, counts: string) => [
  `create function list_count_${list}() returns trigger language plpgsql as $$ begin`,
  "if TG_OP = 'INSERT' then",
  `insert into list_counts (tenant, list, delta) select tenant, '${list}', count(*) from new_rows where ${counts} group by tenant;`,
  "elsif TG_OP = 'DELETE' then",
  `insert into list_counts (tenant, list, delta) select tenant, '${list}', -count(*) from old_rows where ${counts} group by tenant;`,
  'else',
  `insert into list_counts (tenant, list, delta) select tenant, '${list}', sum(d) from (select tenant, 1 as d from new_rows where ${counts} union all select tenant, -1 from old_rows where ${counts}) x group by tenant having sum(d) <> 0;`,
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
  `);
  for (const [table, list, counts, updates] of COUNTED) {
    await runStatements(db, `
      insert into list_counts (tenant, list, delta) select tenant, '${list}', count(*) from ${table} where ${counts} group by tenant;
      ${listCountFunction(list, counts)};
      create trigger ${table}_list_count_insert after insert on ${table} referencing new table as new_rows
        for each statement execute function list_count_${list}();
      create trigger ${table}_list_count_delete after delete on ${table} referencing old table as old_rows
        for each statement execute function list_count_${list}();
    `);
    if (updates) {
      await runStatements(db, `
        create trigger ${table}_list_count_update after update on ${table} referencing new table as new_rows old table as old_rows
          for each statement execute function list_count_${list}();
      `);
    }
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const [table, list] of COUNTED) {
    await runStatements(db, `
      drop trigger if exists ${table}_list_count_insert on ${table};
      drop trigger if exists ${table}_list_count_delete on ${table};
      drop trigger if exists ${table}_list_count_update on ${table};
      drop function list_count_${list}();
    `);
  }
  await runStatements(db, `drop table list_counts;`);
}
