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

export { seedTicketDefaults } from './tickets.defaults.ts';
export { findTicketRow, findTicketView, type TicketRow, type TicketViewRow } from './tickets.repo.ts';
export { requireVisibleTicket } from './tickets.rules.ts';
export { toTicket, toTicketData, type TicketData } from './tickets.mapper.ts';
export { TICKET_DELETED } from './tickets.events.ts';
export { CreateTicketBody, UpdateTicketBody, TicketStatusBody, type Ticket } from './tickets.schemas.ts';
export { CreateCommentBody } from './comments/comments.schemas.ts';
export type { TicketsService } from './tickets.service.ts';

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
