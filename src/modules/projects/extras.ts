import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Kysely } from 'kysely';
import type { DB } from '../../platform/db/schema.ts';
import { bulkRoutes } from './bulk/bulk.routes.ts';
import { createBulkService } from './bulk/bulk.service.ts';
import { linksRoutes } from './links/links.routes.ts';
import { createLinksService } from './links/links.service.ts';
import { reportsRoutes } from './reports/reports.routes.ts';
import { createReportsService } from './reports/reports.service.ts';
import { createProjectsService } from './projects.service.ts';
import { projectsApiRoutes } from './templates/projects-api.routes.ts';
import { createApplyTemplate } from './templates/templates.apply.ts';
import { templatesRoutes } from './templates/templates.routes.ts';
import { createTemplatesService } from './templates/templates.service.ts';

/**
 * GET /api/projects, project templates, bulk writes, export/search/stats and project-ticket links: built on the projects
 * service's in-transaction writes, so they apply the same rules and emit the same events.
 * `v1Routes` mount under /api/v1; `apiRoutes` under /api (the spec puts templates outside /api/v1).
 */
export function createProjectExtras(deps: { db: Kysely<DB>; publicUrl: string }) {
  const templates = createTemplatesService(deps);
  const apply = createApplyTemplate(deps);
  const links = createLinksService(deps);
  const bulk = createBulkService(deps);
  const reports = createReportsService(deps);
  const v1Routes: FastifyPluginAsyncTypebox = async (app) => {
    // Static paths (bulk-*, export, search, stats) win over /projects/:id in the router regardless of order.
    await app.register(bulkRoutes(bulk));
    await app.register(reportsRoutes(reports));
    await app.register(linksRoutes(links));
  };
  const apiRoutes: FastifyPluginAsyncTypebox = async (app) => {
    await app.register(projectsApiRoutes(createProjectsService(deps)));
    await app.register(templatesRoutes(templates, apply));
  };
  return { templates, apply, links, bulk, reports, v1Routes, apiRoutes };
}
