import { sql, type Insertable, type Selectable } from 'kysely';
import type { Executor } from '../../../platform/db/executor.ts';
import type { ClientBillingProfilesTable } from '../../../platform/db/schema.ts';

export type BillingProfileRow = Selectable<ClientBillingProfilesTable>;

export interface ProfileContactRow {
  contact_id: string;
  full_name: string;
  email: string | null;
  can_view_profile_tickets: boolean;
}

export async function insertBillingProfile(db: Executor, row: Insertable<ClientBillingProfilesTable>): Promise<BillingProfileRow> {
  return db.insertInto('client_billing_profiles').values(row).returningAll().executeTakeFirstOrThrow();
}

/** Default first, then by name. */
export async function listBillingProfiles(db: Executor, tenant: string, clientId: string): Promise<BillingProfileRow[]> {
  return db
    .selectFrom('client_billing_profiles')
    .selectAll()
    .where('tenant', '=', tenant)
    .where('client_id', '=', clientId)
    .orderBy('is_default', 'desc')
    .orderBy('name', 'asc')
    .orderBy('billing_profile_id', 'asc')
    .execute();
}

export async function findBillingProfile(db: Executor, tenant: string, clientId: string, profileId: string, lock = false): Promise<BillingProfileRow | undefined> {
  let q = db
    .selectFrom('client_billing_profiles')
    .selectAll()
    .where('tenant', '=', tenant)
    .where('client_id', '=', clientId)
    .where('billing_profile_id', '=', profileId);
  if (lock) q = q.forUpdate();
  return q.executeTakeFirst();
}

export async function touchBillingProfile(db: Executor, tenant: string, profileId: string, now: Date): Promise<void> {
  await db
    .updateTable('client_billing_profiles')
    .set({ updated_at: now })
    .where('tenant', '=', tenant)
    .where('billing_profile_id', '=', profileId)
    .execute();
}

/** Renames the default profile along with the client, unless someone gave it a name of its own. */
export async function renameDefaultProfile(db: Executor, tenant: string, clientId: string, oldName: string, newName: string, now: Date): Promise<void> {
  await db
    .updateTable('client_billing_profiles')
    .set({ name: newName, updated_at: now })
    .where('tenant', '=', tenant)
    .where('client_id', '=', clientId)
    .where('is_default', '=', true)
    .where('name', '=', oldName)
    .execute();
}

export async function listProfileContacts(db: Executor, tenant: string, profileId: string): Promise<ProfileContactRow[]> {
  return db
    .selectFrom('billing_profile_contacts as bpc')
    .innerJoin('contacts as ct', (j) => j.onRef('ct.tenant', '=', 'bpc.tenant').onRef('ct.contact_id', '=', 'bpc.contact_id'))
    .select(['ct.contact_id', 'ct.full_name', 'ct.email', 'bpc.can_view_profile_tickets'])
    .where('bpc.tenant', '=', tenant)
    .where('bpc.billing_profile_id', '=', profileId)
    .orderBy(sql`lower(ct.full_name)`, 'asc')
    .orderBy('ct.contact_id', 'asc')
    .execute();
}

/** Of `contactIds`, those that are contacts of `clientId` in this tenant. Locks them against a concurrent move or delete. */
export async function contactsOfClient(db: Executor, tenant: string, clientId: string, contactIds: string[]): Promise<Set<string>> {
  if (contactIds.length === 0) return new Set();
  const rows = await db
    .selectFrom('contacts')
    .select('contact_id')
    .where('tenant', '=', tenant)
    .where('client_id', '=', clientId)
    .where('contact_id', 'in', contactIds)
    .forShare()
    .execute();
  return new Set(rows.map((r) => r.contact_id));
}

/** Makes the profile's contact list exactly `contacts`, keeping created_at of those that stay. */
export async function replaceProfileContacts(
  db: Executor,
  tenant: string,
  profileId: string,
  contacts: { contact_id: string; can_view_profile_tickets: boolean }[],
): Promise<void> {
  let del = db.deleteFrom('billing_profile_contacts').where('tenant', '=', tenant).where('billing_profile_id', '=', profileId);
  if (contacts.length > 0) del = del.where('contact_id', 'not in', contacts.map((c) => c.contact_id));
  await del.execute();
  if (contacts.length === 0) return;
  await db
    .insertInto('billing_profile_contacts')
    .values(contacts.map((c) => ({ tenant, billing_profile_id: profileId, ...c })))
    .onConflict((oc) =>
      oc.columns(['tenant', 'billing_profile_id', 'contact_id']).doUpdateSet((eb) => ({ can_view_profile_tickets: eb.ref('excluded.can_view_profile_tickets') })),
    )
    .execute();
}

/** Takes a contact off every billing profile's list (when it moves to another client). */
export async function removeContactFromProfiles(db: Executor, tenant: string, contactId: string): Promise<void> {
  await db.deleteFrom('billing_profile_contacts').where('tenant', '=', tenant).where('contact_id', '=', contactId).execute();
}
