import type { Kysely } from 'kysely';
import type { Actor } from '../../../platform/auth/context.ts';
import { withTransaction } from '../../../platform/db/executor.ts';
import type { DB } from '../../../platform/db/schema.ts';
import { AppError, conflict, notFound, validation } from '../../../platform/http/errors.ts';
import { listPage } from '../../../platform/http/list.ts';
import { newId } from '../../../platform/ids.ts';
import { iso } from '../../../platform/time.ts';
import { requireVisibleTicket, visibleTicketsCondition } from '../../tickets/index.ts';
import { requireVisibleProject } from '../projects.rules.ts';
import { deleteTicketLinks, findLinkView, findPhaseOf, findSameLink, findTaskOf, insertLink, linkList, type LinkViewRow } from './links.repo.ts';
import type { LinkTicketBody, ListLinksQuery, ProjectTicketLink } from './links.schemas.ts';

function toLink(row: LinkViewRow): ProjectTicketLink {
  const { ticket_seq: _seq, linked_at, ...rest } = row;
  return { ...rest, linked_at: iso(linked_at) };
}

const isNotFound = (err: unknown) => err instanceof AppError && err.code === 'NOT_FOUND';

/**
 * Tickets linked to a project, to one of its phases or to one of its tasks. Links carry no events of
 * their own (the catalogue has none); a ticket is linked once per target.
 */
export function createLinksService(deps: { db: Kysely<DB> }) {
  const { db } = deps;

  return {
    /** Client-portal keys see the links of the tickets they may see only (see canSeeTicket; their project's others stay hidden). */
    async list(actor: Actor, projectId: string, query: ListLinksQuery) {
      await requireVisibleProject(db, actor, projectId);
      const filter = { visibleTickets: visibleTicketsCondition(actor), phaseId: query.phase_id, taskId: query.task_id, isClosed: query.is_closed };
      return listPage(query, linkList(db, actor.tenant, projectId, filter), (rows) => rows.map(toLink));
    },

    /**
     * Links a ticket the caller may see to the project, one of its phases or one of its tasks. A task
     * link follows the task when it moves to another phase. The same ticket on the same target is a 409.
     */
    async link(actor: Actor, projectId: string, body: LinkTicketBody): Promise<ProjectTicketLink> {
      const { tenant } = actor;
      return withTransaction(db, async (trx) => {
        await requireVisibleProject(trx, actor, projectId, true);
        await requireVisibleTicket(trx, actor, body.ticket_id).catch((err: unknown) => {
          throw isNotFound(err) ? validation('body.ticket_id', `no ticket '${body.ticket_id}'`) : err;
        });
        let phaseId = body.phase_id ?? null;
        const taskId = body.task_id ?? null;
        if (phaseId !== null) {
          const phase = await findPhaseOf(trx, tenant, phaseId);
          if (!phase || phase.project_id !== projectId) throw validation('body.phase_id', `no phase '${phaseId}' in project '${projectId}'`);
        }
        if (taskId !== null) {
          const task = await findTaskOf(trx, tenant, taskId);
          if (!task || task.project_id !== projectId) throw validation('body.task_id', `no task '${taskId}' in project '${projectId}'`);
          if (phaseId !== null && task.phase_id !== phaseId) throw validation('body.task_id', `task '${taskId}' is not in phase '${phaseId}'`);
          // The task's phase is read through the task, so the link stays right when the task moves.
          phaseId = null;
        }
        const target = { projectId, phaseId, taskId, ticketId: body.ticket_id };
        const existing = await findSameLink(trx, tenant, target);
        if (existing) throw conflict(`Ticket '${body.ticket_id}' is already linked there`, { link_id: existing.link_id });
        const linkId = newId();
        await insertLink(trx, { tenant, link_id: linkId, project_id: projectId, phase_id: phaseId, task_id: taskId, ticket_id: body.ticket_id, created_by: actor.userId, created_at: new Date() });
        return toLink((await findLinkView(trx, tenant, projectId, linkId))!);
      });
    },

    /** Removes every link of the ticket to the project, its phases and its tasks; 404 when there is none. */
    async unlink(actor: Actor, projectId: string, ticketId: string): Promise<void> {
      await withTransaction(db, async (trx) => {
        await requireVisibleProject(trx, actor, projectId, true);
        await requireVisibleTicket(trx, actor, ticketId);
        const removed = await deleteTicketLinks(trx, actor.tenant, projectId, ticketId);
        if (removed === 0) throw notFound('Link of ticket', ticketId);
      });
    },
  };
}

export type LinksService = ReturnType<typeof createLinksService>;
