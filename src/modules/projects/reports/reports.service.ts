import type { Kysely } from 'kysely';
import type { Actor } from '../../../platform/auth/context.ts';
import type { DB } from '../../../platform/db/schema.ts';
import { exportStream, type ExportStream } from '../../../platform/http/export-stream.ts';
import { emptyPage, listPage } from '../../../platform/http/list.ts';
import { toProject } from '../projects.mapper.ts';
import { findProjectViews, type ProjectFilter } from '../projects.repo.ts';
import type { Project } from '../projects.schemas.ts';
import { projectFilterOf } from '../projects.service.ts';
import { pageProjectIds, projectSearchList, projectStats } from './reports.repo.ts';
import type { ExportProjectsQuery, ProjectStats, SearchProjectsQuery, StatsQuery } from './reports.schemas.ts';

/** The columns of a CSV export, in order (the API's field names). */
export const EXPORT_COLUMNS = [
  'project_id', 'project_number', 'project_name', 'description', 'status_id', 'status_name', 'is_closed', 'client_id', 'client_name',
  'contact_name_id', 'contact_name', 'assigned_to', 'assigned_to_name', 'assigned_team_id', 'assigned_team_name', 'start_date', 'end_date',
  'budgeted_hours', 'actual_hours', 'phase_count', 'task_count', 'completed_task_count', 'created_by', 'created_at', 'updated_at', 'closed_at',
] as const satisfies readonly (keyof Project)[];

const EXPORT_BATCH = 200;


const byInput = (ids: readonly string[], rows: Project[]) => {
  const at = new Map(ids.map((id, i) => [id, i]));
  return rows.sort((a, b) => at.get(a.project_id)! - at.get(b.project_id)!);
};

export function createReportsService(deps: { db: Kysely<DB>; exportBatch?: number }) {
  const { db } = deps;
  const batchSize = deps.exportBatch ?? EXPORT_BATCH;

  /** One batch of matching projects after project number `after`, in project-number order. */
  async function batchOf(actor: Actor, f: ProjectFilter, after: number): Promise<{ projects: Project[]; last: number; full: boolean }> {
    const page = await pageProjectIds(db, actor.tenant, f, after, batchSize);
    const ids = page.map((r) => r.project_id);
    const projects = ids.length === 0 ? [] : byInput(ids, (await findProjectViews(db, actor.tenant, ids)).map(toProject));
    return { projects, last: page.at(-1)?.project_seq ?? after, full: page.length === batchSize };
  }

  /**
   * Every matching project, a batch at a time (keyset, so rows never repeat or vanish mid-export). The
   * first batch is read before the response starts, so a query the database refuses is an ordinary
   * error response rather than a stream cut off after its header row.
   */
  async function projectsOf(actor: Actor, f: ProjectFilter): Promise<AsyncGenerator<Project>> {
    const first = await batchOf(actor, f, 0);
    return (async function* () {
      let batch = first;
      for (;;) {
        yield* batch.projects;
        if (!batch.full) return;
        batch = await batchOf(actor, f, batch.last);
      }
    })();
  }

  return {
    /** A stream of the export: CSV with a header row, or `{"data":[…]}`. Client-portal keys get their own client's projects only. */
    async exportProjects(actor: Actor, query: ExportProjectsQuery): Promise<ExportStream & { filename: string }> {
      const projects = await projectsOf(actor, projectFilterOf(actor, query));
      const day = new Date().toISOString().slice(0, 10);
      const format = query.format ?? 'csv';
      return { ...exportStream(format, EXPORT_COLUMNS, projects), filename: `projects-${day}.${format}` };
    },

    async search(actor: Actor, query: SearchProjectsQuery) {
      const text = query.query.trim();
      if (text === '') return emptyPage(query);
      return listPage(query, projectSearchList(db, actor.tenant, { ...projectFilterOf(actor, query), query: text }), async (rows) => {
        const ids = rows.map((r) => r.project_id);
        return byInput(ids, (await findProjectViews(db, actor.tenant, ids)).map(toProject));
      });
    },

    async stats(actor: Actor, query: StatsQuery): Promise<ProjectStats> {
      const today = new Date().toISOString().slice(0, 10);
      const { totals, taskHours, byStatus } = await projectStats(db, actor.tenant, projectFilterOf(actor, query), today);
      return {
        total_projects: Number(totals.total),
        open_projects: Number(totals.total) - Number(totals.closed),
        closed_projects: Number(totals.closed),
        overdue_projects: Number(totals.overdue),
        by_status: byStatus.map((s) => ({ status_id: s.status_id, status_name: s.status_name, is_closed: s.is_closed, project_count: Number(s.project_count) })),
        total_budgeted_hours: Number(totals.budgeted),
        total_estimated_hours: Number(taskHours.estimated),
        total_actual_hours: Number(taskHours.actual),
      };
    },
  };
}

export type ReportsService = ReturnType<typeof createReportsService>;
