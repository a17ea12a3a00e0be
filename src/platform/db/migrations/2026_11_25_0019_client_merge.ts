import type { Kysely } from 'kysely';
import { runStatements } from './run-statements.ts';

/**
 * Client merge: who merged a client (`merged_by`, the user behind the key), a client hierarchy (`parent_client_id`, which a merge must not turn into a cycle), and the
 * billing profile a ticket belongs to. Tickets a merge moves keep the source's billing profile, so a contact
 * who manages that profile with can_view_profile_tickets still reads them in the portal while the target's
 * own contacts see nothing new.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, `
    alter table clients add column merged_by uuid;
    alter table clients add column parent_client_id uuid;
    alter table clients add constraint clients_parent_fk foreign key (tenant, parent_client_id) references clients (tenant, client_id) on delete restrict;
    alter table clients add constraint clients_parent_not_self check (parent_client_id is null or parent_client_id <> client_id);
    create index clients_parent_idx on clients (tenant, parent_client_id) where parent_client_id is not null;

    alter table tickets add column billing_profile_id uuid;
    alter table tickets add constraint tickets_billing_profile_fk foreign key (tenant, billing_profile_id) references client_billing_profiles (tenant, billing_profile_id) on delete restrict;
    create index tickets_billing_profile_idx on tickets (tenant, billing_profile_id) where billing_profile_id is not null;
  `);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, `
    alter table tickets drop column billing_profile_id;
    alter table clients drop column parent_client_id;
    alter table clients drop column merged_by;
  `);
}
