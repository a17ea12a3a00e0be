import type { Kysely } from 'kysely';
import type { DB } from '../../platform/db/schema.ts';
import { contactsRoutes } from './contacts.routes.ts';
import { createContactsService } from './contacts.service.ts';

export { CreateContactBody, UpdateContactBody } from './contacts.schemas.ts';
export type { ContactsService } from './contacts.service.ts';

/** Contacts: people at clients (or unattached), and a client's contact list. */
export function createContactsModule(deps: { db: Kysely<DB> }) {
  const service = createContactsService(deps);
  return { service, routes: contactsRoutes(service) };
}
