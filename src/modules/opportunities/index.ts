import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Kysely } from 'kysely';
import { CRUD } from '../../platform/auth/permissions.ts';
import type { DB } from '../../platform/db/schema.ts';
import { defineModule, V1 } from '../deps.ts';
import { INTERACTION_EVENT_TYPES, OPPORTUNITY_EVENT_TYPES } from './opportunities.events.ts';
import { opportunitiesRoutes } from './opportunities.routes.ts';
import { commitmentsPlugin } from './commitments/commitments.routes.ts';
import { managementPlugin } from './management/management.routes.ts';
import { createOpportunityClose } from './opportunities.close.ts';
import { opportunityProgressRoutes } from './opportunities.progress.routes.ts';
import { createOpportunityProgress } from './opportunities.progress.ts';
import { createOpportunityQuotes, onQuoteChange } from './opportunities.quotes.ts';
import type { BillingApi, QuoteHooks } from '../billing/index.ts';
import { interactionsRoutes } from './interactions/interactions.routes.ts';
import { interactionSearchIndexer } from './interactions/interactions.search.ts';
import { createInteractionsService } from './interactions/interactions.service.ts';
import { opportunitiesMergeParticipant } from './opportunities.merge.ts';
import type { ClientsApi } from '../clients/index.ts';
import { opportunitySearchIndexer } from './opportunities.search.ts';
import { createOpportunitiesService } from './opportunities.service.ts';
import { suggestionsRoutes } from './suggestions/suggestions.routes.ts';
import { createSuggestionsService } from './suggestions/suggestions.service.ts';
import { suggestionGenerationSchedule } from './suggestions/suggestions.schedule.ts';
import { qbrRoutes } from './qbr/qbr.routes.ts';
import { createQbrService } from './qbr/qbr.service.ts';

/**
 * The sales pipeline: opportunities with their next action, steps, evidence-derived stage, linked quotes,
 * commitments and close; the interactions timeline; management views (forecast, calibration, rollups,
 * work queue, meeting sessions, QBR) and generated suggestions.
 */
export function createOpportunitiesModule(deps: { db: Kysely<DB>; publicUrl: string; quoteHooks: QuoteHooks }) {
  const service = createOpportunitiesService(deps);
  const progress = createOpportunityProgress(deps);
  const close = createOpportunityClose({ ...deps, quoteHooks: () => deps.quoteHooks });
  const quotes = createOpportunityQuotes(deps);
  const routes: FastifyPluginAsyncTypebox = async (app) => {
    // Static paths (/opportunities/forecast, /suggestions, …) are registered by their own plugins; Fastify
    // prefers a static segment over `/:id`, so the order here does not matter.
    await app.register(opportunitiesRoutes(service, close, quotes));
    await app.register(opportunityProgressRoutes(progress));
    await app.register(interactionsRoutes(createInteractionsService(deps)));
    await app.register(commitmentsPlugin(deps));
    await app.register(managementPlugin(deps));
    await app.register(suggestionsRoutes(createSuggestionsService(deps)));
    await app.register(qbrRoutes(createQbrService(deps)));
  };
  return { service, routes };
}

export const opportunitiesModule = defineModule({
  name: 'opportunities',
  permissions: [
    { resource: 'opportunity', actions: CRUD, roles: { Manager: CRUD, Finance: ['read'] } },
    { resource: 'interaction', actions: CRUD, roles: { Manager: CRUD, Technician: ['read', 'create', 'update'], Finance: ['read'] } },
  ],
  events: { types: [...OPPORTUNITY_EVENT_TYPES, ...INTERACTION_EVENT_TYPES] },
  searchIndexers: [opportunitySearchIndexer, interactionSearchIndexer],
  worker: ({ db, log }) => ({ schedules: [suggestionGenerationSchedule(db, { log })] }),
  build: (deps) => {
    deps.services<ClientsApi>('clients').merges.participate(opportunitiesMergeParticipant());
    // A quote linked to a deal moves the deal in the quote's own transaction (evidence, value).
    const { quoteHooks } = deps.services<BillingApi>('billing');
    quoteHooks.on(onQuoteChange);
    return { routes: [{ prefix: V1, plugin: createOpportunitiesModule({ db: deps.db, publicUrl: deps.config.publicUrl, quoteHooks }).routes }] };
  },
});
