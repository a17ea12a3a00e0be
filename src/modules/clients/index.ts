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

export {
  assertNotMerged,
  canSeeClient,
  isPortalActor,
  lockWritableClient,
  portalClientId,
  requireVisibleClient,
} from './clients.access.ts';
export { findClientRow, type ClientRow } from './clients.repo.ts';
export { CLIENT_DEPENDENTS } from './clients.dependents.ts';
export { removeContactFromBillingProfiles } from './billing-profiles/billing-profiles.repo.ts';
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
