import type { Kysely } from 'kysely';
import type { Actor } from '../../platform/auth/context.ts';
import { withTransaction } from '../../platform/db/executor.ts';
import { withReservedNumber } from '../../platform/db/numbering.ts';
import type { DB } from '../../platform/db/schema.ts';
import { emptyPage, keptListPage } from '../../platform/http/list.ts';
import { portalClientId } from '../clients/index.ts';
import { toProject } from './projects.mapper.ts';
import { projectList, type ProjectFilter } from './projects.repo.ts';
import { requireVisibleProject } from './projects.rules.ts';
import type { CreateProjectBody, ListProjectsQuery, Project, ProjectFilterQuery, UpdateProjectBody } from './projects.schemas.ts';
import { createProjectInTrx, deleteProjectInTrx, updateProjectInTrx } from './projects.writes.ts';

/** The list's query as a repo filter; client-portal keys are held to their own client. */
export function projectFilterOf(actor: Actor, query: ProjectFilterQuery): ProjectFilter {
  return {
    onlyClientId: portalClientId(actor),
    clientId: query.client_id,
    statusId: query.status_id,
    assignedTo: query.assigned_to,
    assignedTeamId: query.assigned_team_id,
    isClosed: query.is_closed,
    search: query.search?.trim() || undefined,
    updatedSince: query.updated_since ? new Date(query.updated_since) : undefined,
  };
}

export function createProjectsService(deps: { db: Kysely<DB>; publicUrl: string }) {
  const { db, publicUrl } = deps;
  return {
    /** Projects the actor may see; a client-portal key sees its own client's only (the total too). */
    async list(actor: Actor, query: ListProjectsQuery) {
      const only = portalClientId(actor);
      if (only !== undefined && query.client_id !== undefined && query.client_id !== only) return emptyPage(query);
      const input = { tenant: actor.tenant, filter: projectFilterOf(actor, query) };
      return keptListPage(db, query, 'projects', input, (i) => projectList(db, i.tenant, i.filter), (rows) => rows.map(toProject));
    },

    async get(actor: Actor, id: string): Promise<Project> {
      return toProject(await requireVisibleProject(db, actor, id));
    },

    create(actor: Actor, body: CreateProjectBody): Promise<Project> {
      return withReservedNumber(db, actor.tenant, 'project', (trx, reserved) => createProjectInTrx(trx, actor, body, { publicUrl, reserved }));
    },

    update(actor: Actor, id: string, body: UpdateProjectBody, ifMatch?: string): Promise<Project> {
      return withTransaction(db, (trx) => updateProjectInTrx(trx, actor, id, body, { publicUrl, ifMatch }));
    },

    remove(actor: Actor, id: string, ifMatch?: string): Promise<void> {
      return withTransaction(db, (trx) => deleteProjectInTrx(trx, actor, id, { publicUrl, ifMatch }));
    },
  };
}

export type ProjectsService = ReturnType<typeof createProjectsService>;
