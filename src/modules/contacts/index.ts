import type { Kysely } from 'kysely';
import type { DB } from '../../platform/db/schema.ts';
import { contactsRoutes } from './contacts.routes.ts';
import { createContactsService } from './contacts.service.ts';
import { CRUD } from '../../platform/auth/permissions.ts';
import { announced } from '../../platform/events/vocabulary.ts';
import type { ClientsApi } from '../clients/index.ts';
import { defineModule, V1 } from '../deps.ts';
import { upsertContactByExternalId } from './contacts.inbound.ts';
import { contactSearchIndexer } from './contacts.search.ts';
import { contactsMergeParticipant } from './contacts.merge.ts';

export { CreateContactBody, UpdateContactBody } from './contacts.schemas.ts';
export type { ContactsService } from './contacts.service.ts';

/** Contacts: people at clients (or unattached), and a client's contact list. */
export function createContactsModule(deps: { db: Kysely<DB> }) {
  const service = createContactsService(deps);
  return { service, routes: contactsRoutes(service) };
}

export type ContactsApi = ReturnType<typeof createContactsModule>;

export const contactsModule = defineModule({
  name: 'contacts',
  permissions: [
    {
      resource: 'contact',
      actions: CRUD,
      roles: { Manager: CRUD, Technician: ['read', 'create', 'update'], Finance: ['read'], 'Client Admin': ['read', 'create', 'update'], 'Client User': ['read'] },
    },
  ],
  events: {
    types: announced('contact', [
      ['contact.created', 'A contact was created'],
      ['contact.updated', 'A contact changed'],
    ]),
  },
  searchIndexers: [contactSearchIndexer],
  build: (deps) => {
    const contacts = createContactsModule(deps);
    const clients = deps.services<ClientsApi>('clients');
    // A client merge moves the source's contacts to the target (contacts.merge.ts).
    clients.merges.participate(contactsMergeParticipant());
    return { api: contacts, routes: [{ prefix: V1, plugin: contacts.routes }], inboundActions: [upsertContactByExternalId(contacts.service, clients.service)] };
  },
});
