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
import { ClientMerges } from './merge/merge.participants.ts';
import { mergeRoutes } from './merge/merge.routes.ts';
import { createMergeService } from './merge/merge.service.ts';

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
export type { MergeBlocker, MergeContext, MergeParticipant } from './merge/merge.participants.ts';

/** Clients with their locations, notes and billing profiles. */
export function createClientsModule(deps: { db: Kysely<DB> }) {
  const service = createClientsService(deps);
  const locations = createLocationsService(deps);
  const notes = createNotesService(deps);
  const billingProfiles = createBillingProfilesService(deps);
  /** Areas whose records name a client register their part of a merge here when built. */
  const merges = new ClientMerges();
  const merge = createMergeService({ ...deps, merges });
  const routes: FastifyPluginAsyncTypebox = async (app) => {
    await app.register(mergeRoutes(merge));
    await app.register(clientsRoutes(service));
    await app.register(locationsRoutes(locations));
    await app.register(notesRoutes(notes));
    await app.register(billingProfilesRoutes(billingProfiles));
  };
  return { service, locations, notes, billingProfiles, merges, merge, routes };
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
      ['client.merged', 'A client was merged into another (payload: target_client_id, cutover_date, counts of moved records, merged_by)'],
    ]),
  },
  searchIndexers: [clientSearchIndexer],
  build: (deps) => {
    const clients = createClientsModule(deps);
    return { api: clients, routes: [{ prefix: V1, plugin: clients.routes }], inboundActions: [upsertClientByExternalId(clients.service)] };
  },
});
