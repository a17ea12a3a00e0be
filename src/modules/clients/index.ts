import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Kysely } from 'kysely';
import type { DB } from '../../platform/db/schema.ts';
import { clientsRoutes } from './clients.routes.ts';
import { createClientsService } from './clients.service.ts';
import { billingProfilesRoutes } from './billing-profiles/billing-profiles.routes.ts';
import { createBillingProfilesService } from './billing-profiles/billing-profiles.service.ts';
import { locationsRoutes } from './locations/locations.routes.ts';
import { createLocationsService } from './locations/locations.service.ts';
import { notesRoutes } from './notes/notes.routes.ts';
import { createNotesService } from './notes/notes.service.ts';
import { CRUD } from '../../platform/auth/permissions.ts';
import { announced } from '../../platform/events/vocabulary.ts';
import { defineModule, V1 } from '../deps.ts';
import { upsertClientByExternalId } from './clients.inbound.ts';
import { clientSearchIndexer } from './clients.search.ts';

export {
  assertNotMerged,
  canSeeClient,
  findClientRow,
  isPortalActor,
  lockWritableClient,
  portalClientId,
  requireVisibleClient,
} from './clients.access.ts';
export type { ClientRow } from './clients.repo.ts';
export { CLIENT_DEPENDENTS } from './clients.dependents.ts';
export { billingProfileForContract, removeContactFromBillingProfiles } from './billing-profiles/billing-profiles.service.ts';
export { CreateClientBody, UpdateClientBody, BILLING_CYCLES, CLIENT_TYPES } from './clients.schemas.ts';
export type { ClientsService } from './clients.service.ts';

/** Clients with their locations, notes and billing profiles. */
export function createClientsModule(deps: { db: Kysely<DB> }) {
  const service = createClientsService(deps);
  const locations = createLocationsService(deps);
  const notes = createNotesService(deps);
  const billingProfiles = createBillingProfilesService(deps);
  const routes: FastifyPluginAsyncTypebox = async (app) => {
    await app.register(clientsRoutes(service));
    await app.register(locationsRoutes(locations));
    await app.register(notesRoutes(notes));
    await app.register(billingProfilesRoutes(billingProfiles));
  };
  return { service, locations, notes, billingProfiles, routes };
}

export type ClientsApi = ReturnType<typeof createClientsModule>;

export const clientsModule = defineModule({
  name: 'clients',
  permissions: [
    { resource: 'client', actions: CRUD, roles: { Manager: CRUD, Technician: ['read'], Finance: ['read', 'update'], 'Client Admin': ['read', 'update'], 'Client User': ['read'] } },
  ],
  events: {
    types: announced('client', [
      ['client.created', 'A client was created'],
      ['client.updated', 'A client changed'],
    ]),
  },
  searchIndexers: [clientSearchIndexer],
  build: (deps) => {
    const clients = createClientsModule(deps);
    return { api: clients, routes: [{ prefix: V1, plugin: clients.routes }], inboundActions: [upsertClientByExternalId(clients.service)] };
  },
});
