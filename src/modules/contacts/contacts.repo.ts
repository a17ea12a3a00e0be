import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import type { Executor } from '../../platform/db/executor.ts';
import type { ContactsTable } from '../../platform/db/schema.ts';
import { likePattern } from '../../platform/db/like.ts';
import { rowVersion } from '../../platform/http/list-cache.ts';
import { defineList, whenUnfiltered } from '../../platform/http/list.ts';

export type ContactRow = Selectable<ContactsTable>;

export async function findContact(db: Executor, tenant: string, contactId: string, lock = false): Promise<ContactRow | undefined> {
  let q = db.selectFrom('contacts').selectAll().where('tenant', '=', tenant).where('contact_id', '=', contactId);
  if (lock) q = q.forUpdate();
  return q.executeTakeFirst();
}

export async function insertContact(db: Executor, row: Insertable<ContactsTable>): Promise<ContactRow> {
  return db.insertInto('contacts').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function updateContact(db: Executor, tenant: string, contactId: string, set: Updateable<ContactsTable>): Promise<ContactRow> {
  return db.updateTable('contacts').set(set).where('tenant', '=', tenant).where('contact_id', '=', contactId).returningAll().executeTakeFirstOrThrow();
}

export async function deleteContact(db: Executor, tenant: string, contactId: string): Promise<void> {
  await db.deleteFrom('contacts').where('tenant', '=', tenant).where('contact_id', '=', contactId).execute();
}

export interface ContactListFilter {
  clientId?: string;
  isInactive?: boolean;
  search?: string;
}

/** Ties break on contact_id in the requested direction. */
export function contactList(db: Executor, tenant: string, f: ContactListFilter) {
  let base = db.selectFrom('contacts').where('tenant', '=', tenant);
  if (f.clientId !== undefined) base = base.where('client_id', '=', f.clientId);
  if (f.isInactive !== undefined) base = base.where('is_inactive', '=', f.isInactive);
  if (f.search !== undefined) {
    const p = likePattern(f.search);
    base = base.where((eb) => eb.or([eb('full_name', 'ilike', p), eb('email', 'ilike', p)]));
  }
  return defineList({
    from: base,
    page: base.selectAll(),
    sorts: { full_name: [sql`lower(full_name)`], created_at: ['created_at'], updated_at: ['updated_at'] },
    defaultSort: 'full_name',
    defaultOrder: 'asc',
    tieBreaker: 'contact_id',
    updatedAt: 'updated_at',
    counter: whenUnfiltered(f, { tenant, list: 'contacts' }),
    version: rowVersion('contacts.tenant', ['contacts']),
  });
}
