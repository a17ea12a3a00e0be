import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Kysely } from 'kysely';
import type { DB } from '../../platform/db/schema.ts';
import { boardsRoutes } from './boards/boards.routes.ts';
import { createBoardsService } from './boards/boards.service.ts';
import { statusesRoutes } from './boards/statuses.routes.ts';
import { createStatusesService } from './boards/statuses.service.ts';
import { categoriesRoutes } from './categories/categories.routes.ts';
import { createCategoriesService } from './categories/categories.service.ts';
import { commentsRoutes } from './comments/comments.routes.ts';
import { createCommentsService } from './comments/comments.service.ts';
import { prioritiesRoutes } from './priorities/priorities.routes.ts';
import { createPrioritiesService } from './priorities/priorities.service.ts';
import { tagsRoutes } from './tags/tags.routes.ts';
import { createTagsService } from './tags/tags.service.ts';
import { ticketsRoutes } from './tickets.routes.ts';
import { createTicketsService } from './tickets.service.ts';
import { CRUD } from '../../platform/auth/permissions.ts';
import type { ClientsApi } from '../clients/index.ts';
import type { ContactsApi } from '../contacts/index.ts';
import { defineModule, V1 } from '../deps.ts';
import { addTicketCommentByExternalId } from './inbound/add-ticket-comment.ts';
import { changeTicketStatusByExternalId } from './inbound/change-ticket-status.ts';
import { createTicket } from './inbound/create-ticket.ts';
import { referenceResolver } from './inbound/ticket-inputs.ts';
import { updateTicketByExternalId } from './inbound/update-ticket.ts';
import { TICKET_VOCABULARY } from './tickets.vocabulary.ts';
import { ticketSearchIndexer } from './tickets.search.ts';
import { ticketsMergeParticipant } from './tickets.merge.ts';
import { boardSearchIndexer, statusSearchIndexer } from './boards/boards.search.ts';
import { categorySearchIndexer } from './categories/categories.search.ts';
import { ticketCommentSearchIndexer } from './comments/comments.search.ts';
import { tagSearchIndexer } from './tags/tags.search.ts';

export { seedTicketDefaults } from './tickets.defaults.ts';
export type { TicketRow, TicketViewRow } from './tickets.repo.ts';
export { canSeeTicket, requireVisibleTicket, visibleTicketsCondition } from './tickets.rules.ts';
export { ticketResolution, type TicketResolution } from './tickets.resolution.ts';
export { toTicket, toTicketData, type TicketData } from './tickets.mapper.ts';
export { TICKET_DELETED } from './tickets.events.ts';
export { CreateTicketBody, UpdateTicketBody, TicketStatusBody, type Ticket } from './tickets.schemas.ts';
export { CreateCommentBody } from './comments/comments.schemas.ts';
export type { TicketsService } from './tickets.service.ts';
// Transaction-level writes (what the REST routes do, in the caller's transaction): automation actions.
export { createTicketInTrx, updateTicketInTrx, type TicketWriteContext } from './tickets.service.ts';
export { addCommentInTrx } from './comments/comments.service.ts';

/**
 * Tickets with their comments and tags, and the settings they use: boards with their statuses,
 * priorities and categories. `publicUrl` makes the `url` of ticket events.
 */
export function createTicketsModule(deps: { db: Kysely<DB>; publicUrl: string }) {
  const service = createTicketsService(deps);
  const comments = createCommentsService(deps);
  const tags = createTagsService(deps);
  const boards = createBoardsService(deps);
  const statuses = createStatusesService(deps);
  const priorities = createPrioritiesService(deps);
  const categories = createCategoriesService(deps);
  const routes: FastifyPluginAsyncTypebox = async (app) => {
    await app.register(boardsRoutes(boards));
    await app.register(statusesRoutes(statuses));
    await app.register(prioritiesRoutes(priorities));
    await app.register(categoriesRoutes(categories));
    await app.register(ticketsRoutes(service));
    await app.register(commentsRoutes(comments));
    await app.register(tagsRoutes(tags));
  };
  return { service, comments, tags, boards, statuses, priorities, categories, routes };
}

export { TICKET_DATA_FIELDS, TICKET_EVENTS } from './tickets.vocabulary.ts';

export const ticketsModule = defineModule({
  name: 'tickets',
  permissions: [
    {
      resource: 'ticket',
      actions: CRUD,
      roles: { Manager: CRUD, Technician: ['read', 'create', 'update'], Finance: ['read'], 'Client Admin': ['read', 'create', 'update'], 'Client User': ['read', 'create'] },
    },
  ],
  events: TICKET_VOCABULARY,
  searchIndexers: [ticketSearchIndexer, ticketCommentSearchIndexer, boardSearchIndexer, statusSearchIndexer, categorySearchIndexer, tagSearchIndexer],
  build: (deps) => {
    const tickets = createTicketsModule({ db: deps.db, publicUrl: deps.config.publicUrl });
    const clients = deps.services<ClientsApi>('clients');
    const resolve = referenceResolver(clients.service, deps.services<ContactsApi>('contacts').service);
    // A client merge moves the source's tickets to the target (tickets.merge.ts).
    clients.merges.participate(ticketsMergeParticipant({ publicUrl: deps.config.publicUrl }));
    return {
      api: tickets,
      routes: [{ prefix: V1, plugin: tickets.routes }],
      inboundActions: [
        createTicket({ tickets: tickets.service, resolve }),
        updateTicketByExternalId({ tickets: tickets.service, resolve }),
        addTicketCommentByExternalId(tickets.service, tickets.comments),
        changeTicketStatusByExternalId(tickets.service),
      ],
    };
  },
});
