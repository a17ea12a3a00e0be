import type { Kysely } from 'kysely';
import { runStatements } from './run-statements.ts';

/**
 * Numbers (ticket and project numbers) taken from a counter but not yet used by a committed record:
 * reserved by a create in progress until `reserved_until`, free for the next create once that has passed
 * (src/platform/db/numbering.ts). The create's transaction deletes its row, so every number the counter
 * ever gave out is either on a record or here: numbers stay gapless while creates never hold the counter
 * row across their whole transaction.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, `
    create table number_reservations (
      tenant uuid not null references tenants (tenant_id),
      sequence text not null check (sequence in ('ticket', 'project')),
      seq integer not null,
      reserved_until timestamptz(3) not null,
      primary key (tenant, sequence, seq)
    );
  `);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, `drop table number_reservations;`);
}
