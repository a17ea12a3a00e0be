import type { Kysely } from 'kysely';
import { runStatements } from './run-statements.ts';

/**
 * The tenant's names version (src/platform/db/names-version.ts): every change to a name that other records
 * show (a ticket shows its board, status, priority, categories, client, contact, assignee, team and author
 * by name; a project its status, client, contact, assignee and team) adds a row here, so the sum of a
 * tenant's rows moves whenever one of those names changes and never otherwise. A read that carries the sum
 * can then take the names from the process's memory instead of joining the tables that hold them.
 *
 * Row triggers with a WHEN clause: an update that leaves the names alone (the common write) runs no function
 * at all. Writers only INSERT (no counter row to wait on, no lock order to deadlock over); a scheduled
 * compaction folds the rows, as for list_counts. Inserts need no row: a new id has nothing kept under it.
 */
const SHOWN = [
  // table, the columns whose values other records show
  ['boards', ['board_name']],
  ['ticket_statuses', ['name']],
  ['ticket_priorities', ['priority_name']],
  ['ticket_categories', ['category_name']],
  ['clients', ['client_name']],
  ['contacts', ['full_name', 'email']],
  ['users', ['first_name', 'last_name', 'username']],
  ['teams', ['team_name']],
  ['project_statuses', ['name']],
] as const;

const changed = (columns: readonly string[]) => columns.map((c) => `old.${c} is distinct from new.${c}`).join(' or ');

export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, `
    create table name_changes (
      tenant uuid not null,
      changes bigint not null
    );
    create index name_changes_tenant_idx on name_changes (tenant);
    create function count_name_change() returns trigger language plpgsql as $$ begin insert into name_changes (tenant, changes) values (old.tenant, 1); return null; end $$;
  `);
  for (const [table, columns] of SHOWN) {
    await runStatements(db, `
      create trigger ${table}_name_update after update of ${columns.join(', ')} on ${table}
        for each row when (${changed(columns)}) execute function count_name_change();
      create trigger ${table}_name_delete after delete on ${table}
        for each row execute function count_name_change();
    `);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const [table] of SHOWN) {
    await runStatements(db, `
      drop trigger if exists ${table}_name_update on ${table};
      drop trigger if exists ${table}_name_delete on ${table};
    `);
  }
  await runStatements(db, `
    drop function count_name_change();
    drop table name_changes;
  `);
}
