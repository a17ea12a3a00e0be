import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Kysely } from 'kysely';
import type { DB } from '../../platform/db/schema.ts';
import { assetsRoutes } from './assets.routes.ts';
import { createAssetsService } from './assets.service.ts';
import { bulkRoutes } from './bulk/bulk.routes.ts';
import { createBulkService } from './bulk/bulk.service.ts';
import { documentsRoutes } from './documents/documents.routes.ts';
import { createDocumentsService } from './documents/documents.service.ts';
import { maintenanceRoutes } from './maintenance/maintenance.routes.ts';
import { createMaintenanceService } from './maintenance/maintenance.service.ts';
import { assetNotesRoutes } from './notes/notes.routes.ts';
import { createAssetNotesService } from './notes/notes.service.ts';
import { relationshipsRoutes } from './relationships/relationships.routes.ts';
import { createRelationshipsService } from './relationships/relationships.service.ts';
import { reportsRoutes } from './reports/reports.routes.ts';
import { createReportsService } from './reports/reports.service.ts';
import { ticketLinksRoutes } from './ticket-links/ticket-links.routes.ts';
import { createTicketLinksService } from './ticket-links/ticket-links.service.ts';
import { assetTypesRoutes } from './types/types.routes.ts';
import { createAssetTypesService } from './types/types.service.ts';
import { CRUD } from '../../platform/auth/permissions.ts';
import { announced } from '../../platform/events/vocabulary.ts';
import type { ClientsApi } from '../clients/index.ts';
import { defineModule, V1 } from '../deps.ts';
import { upsertAssetByExternalId } from './assets.inbound.ts';
import { assetIndexer } from './assets.search.ts';
import { documentIndexer } from './documents/documents.search.ts';
import { assetsMergeParticipant } from './assets.merge.ts';

export { requireVisibleAsset, findAssetRow, type AssetRow } from './assets.access.ts';
export { recordAssetHistory } from './history/history.service.ts';
export type { HistoryRow, HistoryEntry } from './history/history.repo.ts';
export { seedAssetTypes } from './types/types.defaults.ts';
export { CreateAssetBody, UpdateAssetBody, ASSET_STATUSES } from './assets.schemas.ts';
export { WARRANTY_EXPIRING_SOON_DAYS } from './assets.warranty.ts';
export type { AssetsService } from './assets.service.ts';
// Transaction-level write (what PUT /assets/{id} does, in the caller's transaction): automation actions.
export { updateAssetInTrx } from './assets.service.ts';

/**
 * Assets with their type registry, notes, documents, maintenance and history, relationships, ticket
 * links, bulk changes and reports. `publicUrl` makes the `url` of asset events.
 */
export function createAssetsModule(deps: { db: Kysely<DB>; publicUrl: string }) {
  const service = createAssetsService(deps);
  const types = createAssetTypesService(deps);
  const notes = createAssetNotesService(deps);
  const documents = createDocumentsService(deps);
  const maintenance = createMaintenanceService(deps);
  const relationships = createRelationshipsService(deps);
  const ticketLinks = createTicketLinksService(deps);
  const bulk = createBulkService(deps);
  const reports = createReportsService(deps);
  const routes: FastifyPluginAsyncTypebox = async (app) => {
    await app.register(assetTypesRoutes(types));
    await app.register(assetsRoutes(service));
    await app.register(assetNotesRoutes(notes));
    await app.register(documentsRoutes(documents));
    await app.register(maintenanceRoutes(maintenance));
    await app.register(relationshipsRoutes(relationships));
    await app.register(ticketLinksRoutes(ticketLinks));
    await app.register(bulkRoutes(bulk));
    await app.register(reportsRoutes(reports));
  };
  return { service, types, notes, documents, maintenance, relationships, ticketLinks, bulk, reports, routes };
}

export const assetsModule = defineModule({
  name: 'assets',
  permissions: [
    { resource: 'asset', actions: CRUD, roles: { Manager: CRUD, Technician: ['read', 'create', 'update'], 'Client Admin': ['read'] } },
  ],
  events: {
    types: announced('asset', [
      ['asset.created', 'An asset was created'],
      ['asset.updated', 'An asset changed'],
      ['asset.maintenance.scheduled', 'Maintenance was scheduled for an asset'],
      ['asset.maintenance.completed', 'Maintenance of an asset was recorded'],
    ]),
  },
  searchIndexers: [assetIndexer, documentIndexer],
  build: (deps) => {
    const assets = createAssetsModule({ db: deps.db, publicUrl: deps.config.publicUrl });
    const clients = deps.services<ClientsApi>('clients');
    // A client merge moves the source's assets to the target (assets.merge.ts).
    clients.merges.participate(assetsMergeParticipant({ publicUrl: deps.config.publicUrl }));
    return { api: assets, routes: [{ prefix: V1, plugin: assets.routes }], inboundActions: [upsertAssetByExternalId(assets.service, clients.service)] };
  },
});
