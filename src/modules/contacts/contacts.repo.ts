import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import type { Executor } from '../../platform/db/executor.ts';
import type { ContactsTable } from '../../platform/db/schema.ts';
import { likePattern } from '../../platform/db/like.ts';
import type { ContactSortField } from './contacts.schemas.ts';

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
  updatedSince?: Date;
  sort: ContactSortField;
  order: 'asc' | 'desc';
  limit: number;
  offset: number;
}

export async function listContacts(db: Executor, tenant: string, f: ContactListFilter): Promise<{ rows: ContactRow[]; total: number }> {
  let base = db.selectFrom('contacts').where('tenant', '=', tenant);
  if (f.clientId !== undefined) base = base.where('client_id', '=', f.clientId);
  if (f.isInactive !== undefined) base = base.where('is_inactive', '=', f.isInactive);
  if (f.updatedSince !== undefined) base = base.where('updated_at', '>=', f.updatedSince);
  if (f.search !== undefined) {
    const p = likePattern(f.search);
    base = base.where((eb) => eb.or([eb('full_name', 'ilike', p), eb('email', 'ilike', p)]));
  }
  const page = (f.sort === 'full_name' ? base.orderBy(sql`lower(full_name)`, f.order) : base.orderBy(f.sort, f.order))
    .orderBy('contact_id', f.order)
    .selectAll()
    .limit(f.limit)
    .offset(f.offset);
  const count = base.select((eb) => eb.fn.countAll<number>().as('n'));
  const [rows, n] = await Promise.all([page.execute(), count.executeTakeFirstOrThrow()]);
  return { rows, total: Number(n.n) };
}
