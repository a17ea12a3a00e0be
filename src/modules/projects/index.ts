import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Kysely, Transaction } from 'kysely';
import type { Actor } from '../../platform/auth/context.ts';
import type { DB } from '../../platform/db/schema.ts';
import { checklistRoutes } from './checklist/checklist.routes.ts';
import { createChecklistService } from './checklist/checklist.service.ts';
import { createChecklistItemInTrx, updateChecklistItemInTrx } from './checklist/checklist.writes.ts';
import type { CreateChecklistItemBody, UpdateChecklistItemBody } from './checklist/checklist.schemas.ts';
import { taskCommentsRoutes } from './comments/comments.routes.ts';
import { createTaskCommentsService } from './comments/comments.service.ts';
import { phasesRoutes } from './phases/phases.routes.ts';
import { createPhasesService } from './phases/phases.service.ts';
import { createPhaseInTrx } from './phases/phases.writes.ts';
import type { CreatePhaseBody } from './phases/phases.schemas.ts';
import { projectsRoutes } from './projects.routes.ts';
import type { CreateProjectBody, UpdateProjectBody } from './projects.schemas.ts';
import { createProjectsService } from './projects.service.ts';
import { createProjectInTrx, updateProjectInTrx } from './projects.writes.ts';
import { createProjectStatusesService } from './statuses/project-statuses.service.ts';
import { statusesRoutes } from './statuses/statuses.routes.ts';
import { tasksRoutes } from './tasks/tasks.routes.ts';
import type { CreateTaskBody, UpdateTaskBody } from './tasks/tasks.schemas.ts';
import { createTasksService } from './tasks/tasks.service.ts';
import { createTaskInTrx, updateTaskInTrx } from './tasks/tasks.writes.ts';
import { createProjectExtras } from './extras.ts';
import { CRUD } from '../../platform/auth/permissions.ts';
import type { ClientsApi } from '../clients/index.ts';
import { defineModule, V1 } from '../deps.ts';
import { createProjectTask } from './projects.inbound.ts';
import { PROJECT_VOCABULARY } from './projects.vocabulary.ts';
import { phaseIndexer, projectIndexer, taskCommentIndexer, taskIndexer } from './projects.search.ts';
import { projectsMergeParticipant } from './projects.merge.ts';

// Transaction-level writes: each does a whole write (validation, events, search sync) inside the
// caller's transaction, so templates, bulk endpoints and inbound actions emit what the REST routes do.
export { createProjectInTrx, updateProjectInTrx, deleteProjectInTrx, formatProjectNumber, type WriteContext } from './projects.writes.ts';
export { createPhaseInTrx, updatePhaseInTrx, deletePhaseInTrx, requirePhaseOf } from './phases/phases.writes.ts';
export { createTaskInTrx, updateTaskInTrx, deleteTaskInTrx, requireVisibleTask } from './tasks/tasks.writes.ts';
export { createChecklistItemInTrx, updateChecklistItemInTrx, deleteChecklistItemInTrx } from './checklist/checklist.writes.ts';
export { requireVisibleProject, visibleTo } from './projects.rules.ts';
export { seedProjectDefaults } from './projects.defaults.ts';

// Mappers and row types.
export { toProject, toProjectData, hours, type ProjectData } from './projects.mapper.ts';
export { toTask, toTaskData } from './tasks/tasks.mapper.ts';
export { toPhase, Phase, CreatePhaseBody, UpdatePhaseBody } from './phases/phases.schemas.ts';
export { toChecklistItem, ChecklistItem, CreateChecklistItemBody, UpdateChecklistItemBody } from './checklist/checklist.schemas.ts';
export type { ProjectViewRow, ProjectRow } from './projects.repo.ts';
export type { TaskViewRow } from './tasks/tasks.repo.ts';
export type { PhaseViewRow } from './phases/phases.repo.ts';
export type { StatusMappingRow } from './statuses/statuses.repo.ts';

// Schemas (the REST contract), for routes built on top of this module.
export { Project, CreateProjectBody, UpdateProjectBody, ProjectResponse, ProjectListResponse, ListProjectsQuery, PROJECT_SORT_FIELDS } from './projects.schemas.ts';
export { Task, CreateTaskBody, UpdateTaskBody, TaskResponse, TaskListResponse } from './tasks/tasks.schemas.ts';
export { PROJECT_DELETED } from './projects.events.ts';
export type { ProjectsService } from './projects.service.ts';
export { createProjectExtras } from './extras.ts';
export { applyTemplateInTrx } from './templates/templates.apply.ts';

/**
 * Projects with their phases, tasks, checklists, task comments and reactions, and the status lists
 * they use. `publicUrl` makes the `url` of project events. Areas built on top of projects register
 * their route plugins in `routes` below (one line each).
 */
export function createProjectsModule(deps: { db: Kysely<DB>; publicUrl: string }) {
  const { db, publicUrl } = deps;
  const service = createProjectsService(deps);
  const phases = createPhasesService(deps);
  const tasks = createTasksService(deps);
  const comments = createTaskCommentsService(deps);
  const checklist = createChecklistService(deps);
  const projectStatuses = createProjectStatusesService(deps);
  const ctx = { publicUrl };

  /** The transaction-level writes bound to this module's publicUrl. */
  const writes = {
    createProjectInTrx: (trx: Transaction<DB>, actor: Actor, body: CreateProjectBody) => createProjectInTrx(trx, actor, body, ctx),
    updateProjectInTrx: (trx: Transaction<DB>, actor: Actor, projectId: string, patch: UpdateProjectBody) => updateProjectInTrx(trx, actor, projectId, patch, ctx),
    createPhaseInTrx: (trx: Transaction<DB>, actor: Actor, projectId: string, body: CreatePhaseBody) => createPhaseInTrx(trx, actor, projectId, body),
    createTaskInTrx: (trx: Transaction<DB>, actor: Actor, projectId: string, phaseId: string, body: CreateTaskBody) => createTaskInTrx(trx, actor, projectId, phaseId, body, ctx),
    updateTaskInTrx: (trx: Transaction<DB>, actor: Actor, taskId: string, patch: UpdateTaskBody) => updateTaskInTrx(trx, actor, taskId, patch, ctx),
    createChecklistItemInTrx: (trx: Transaction<DB>, actor: Actor, taskId: string, body: CreateChecklistItemBody) => createChecklistItemInTrx(trx, actor, taskId, body),
    updateChecklistItemInTrx: (trx: Transaction<DB>, actor: Actor, taskId: string, itemId: string, patch: UpdateChecklistItemBody) =>
      updateChecklistItemInTrx(trx, actor, taskId, itemId, patch),
  };

  const routes: FastifyPluginAsyncTypebox = async (app) => {
    await app.register(statusesRoutes(db, projectStatuses));
    await app.register(projectsRoutes(service));
    await app.register(phasesRoutes(phases));
    await app.register(tasksRoutes(tasks));
    await app.register(checklistRoutes(checklist));
    await app.register(taskCommentsRoutes(comments));
    // Route plugins of areas built on projects (templates, bulk, export, stats, links) go below.
    await app.register(createProjectExtras(deps).v1Routes);
  };
  return { service, phases, tasks, comments, checklist, projectStatuses, writes, routes };
}

export const projectsModule = defineModule({
  name: 'projects',
  permissions: [
    { resource: 'project', actions: CRUD, roles: { Manager: CRUD, Technician: ['read'], Finance: ['read'], 'Client Admin': ['read'] } },
    { resource: 'project_task', actions: CRUD, roles: { Manager: CRUD, Technician: ['read', 'create', 'update'] } },
  ],
  events: PROJECT_VOCABULARY,
  searchIndexers: [projectIndexer, phaseIndexer, taskIndexer, taskCommentIndexer],
  build: (deps) => {
    const settings = { db: deps.db, publicUrl: deps.config.publicUrl };
    const projects = createProjectsModule(settings);
    // A client merge moves the source's projects to the target (projects.merge.ts).
    deps.services<ClientsApi>('clients').merges.participate(projectsMergeParticipant(settings));
    return {
      api: projects,
      routes: [
        { prefix: V1, plugin: projects.routes },
        // Project templates and GET /api/projects live outside /api/v1 (spec, Versioning); same API-key auth.
        { prefix: '/api', plugin: createProjectExtras(settings).apiRoutes },
      ],
      inboundActions: [createProjectTask(deps.db, deps.config.publicUrl)],
    };
  },
});
