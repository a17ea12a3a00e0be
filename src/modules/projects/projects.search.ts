import { prepareIf } from '../../platform/db/prepared.ts';
import type { SearchDocument, SearchIndexer } from '../../platform/search/types.ts';
import { listPhaseIds } from './phases/phases.repo.ts';
import { listProjectIds } from './projects.repo.ts';
import { listTaskIds } from './tasks/tasks.repo.ts';

/**
 * Search indexers of the project area: projects, phases, tasks and task comments. Every row carries
 * its project's client for portal scoping, so a project moved to another client (or renamed: phase
 * and task subtitles name it) re-indexes its whole tree (projects.resync.ts). Like every indexer file
 * this imports nothing that imports sync.ts, so the indexer registry stays out of import cycles.
 */

const joinSubtitle = (...parts: (string | null | undefined)[]) => parts.filter((p) => p).join(' | ');

/** What a project's search document is built from: a row of `load` below, or a project view the writer just read. */
export interface ProjectDocumentSource {
  project_id: string;
  project_name: string;
  project_number: string;
  description: string | null;
  client_id: string | null;
  updated_at: Date;
  client_name: string | null;
}

export function projectSearchDocument(r: ProjectDocumentSource): SearchDocument {
  return {
    type: 'project',
    id: r.project_id,
    title: r.project_name,
    subtitle: joinSubtitle(r.client_name, r.project_number),
    body: r.description,
    url: `/projects/${r.project_id}`,
    identifier: r.project_number,
    clientId: r.client_id,
    updatedAt: r.updated_at,
  };
}

export const projectIndexer: SearchIndexer = {
  type: 'project',
  async load(db, tenant, ids) {
    if (ids.length === 0) return [];
    const rows = await db
      .selectFrom('projects as p')
      .leftJoin('clients as cl', (j) => j.onRef('cl.tenant', '=', 'p.tenant').onRef('cl.client_id', '=', 'p.client_id'))
      .select(['p.project_id', 'p.project_name', 'p.project_number', 'p.description', 'p.client_id', 'p.updated_at', 'cl.client_name'])
      .where('p.tenant', '=', tenant)
      .where('p.project_id', 'in', [...ids])
      .modifyEnd(prepareIf(ids.length === 1)) // a delete re-indexes its one project
      .execute();
    return rows.map(projectSearchDocument);
  },
  listIds: listProjectIds,
};

export const phaseIndexer: SearchIndexer = {
  type: 'project_phase',
  async load(db, tenant, ids) {
    if (ids.length === 0) return [];
    const rows = await db
      .selectFrom('project_phases as ph')
      .innerJoin('projects as p', (j) => j.onRef('p.tenant', '=', 'ph.tenant').onRef('p.project_id', '=', 'ph.project_id'))
      .select(['ph.phase_id', 'ph.phase_name', 'ph.description', 'ph.project_id', 'ph.updated_at', 'p.project_number', 'p.project_name', 'p.client_id'])
      .where('ph.tenant', '=', tenant)
      .where('ph.phase_id', 'in', [...ids])
      .execute();
    return rows.map((r): SearchDocument => ({
      type: 'project_phase',
      id: r.phase_id,
      parentType: 'project',
      parentId: r.project_id,
      title: r.phase_name,
      subtitle: joinSubtitle(r.project_number, r.project_name),
      body: r.description,
      url: `/projects/${r.project_id}`,
      clientId: r.client_id,
      updatedAt: r.updated_at,
    }));
  },
  listIds: listPhaseIds,
};

export const taskIndexer: SearchIndexer = {
  type: 'project_task',
  async load(db, tenant, ids) {
    if (ids.length === 0) return [];
    const rows = await db
      .selectFrom('project_tasks as t')
      .innerJoin('project_phases as ph', (j) => j.onRef('ph.tenant', '=', 't.tenant').onRef('ph.phase_id', '=', 't.phase_id'))
      .innerJoin('projects as p', (j) => j.onRef('p.tenant', '=', 't.tenant').onRef('p.project_id', '=', 't.project_id'))
      .select(['t.task_id', 't.task_name', 't.description', 't.project_id', 't.phase_id', 't.updated_at', 'ph.phase_name', 'p.project_number', 'p.project_name', 'p.client_id'])
      .where('t.tenant', '=', tenant)
      .where('t.task_id', 'in', [...ids])
      .execute();
    return rows.map((r): SearchDocument => ({
      type: 'project_task',
      id: r.task_id,
      parentType: 'project_phase',
      parentId: r.phase_id,
      title: r.task_name,
      subtitle: joinSubtitle(r.project_number, r.project_name, r.phase_name),
      body: r.description,
      url: `/projects/${r.project_id}/tasks/${r.task_id}`,
      clientId: r.client_id,
      updatedAt: r.updated_at,
    }));
  },
  listIds: listTaskIds,
};

export const taskCommentIndexer: SearchIndexer = {
  type: 'project_task_comment',
  async load(db, tenant, ids) {
    if (ids.length === 0) return [];
    const rows = await db
      .selectFrom('project_task_comments as c')
      .innerJoin('project_tasks as t', (j) => j.onRef('t.tenant', '=', 'c.tenant').onRef('t.task_id', '=', 'c.task_id'))
      .innerJoin('projects as p', (j) => j.onRef('p.tenant', '=', 't.tenant').onRef('p.project_id', '=', 't.project_id'))
      .select(['c.comment_id', 'c.comment_text', 'c.task_id', 'c.updated_at', 't.task_name', 't.project_id', 'p.project_number', 'p.client_id'])
      .where('c.tenant', '=', tenant)
      .where('c.comment_id', 'in', [...ids])
      .execute();
    return rows.map((r): SearchDocument => ({
      type: 'project_task_comment',
      id: r.comment_id,
      parentType: 'project_task',
      parentId: r.task_id,
      title: `Comment on ${r.task_name}`,
      subtitle: r.project_number,
      body: r.comment_text,
      url: `/projects/${r.project_id}/tasks/${r.task_id}`,
      clientId: r.client_id,
      updatedAt: r.updated_at,
    }));
  },
  async listIds(db, tenant, afterId, limit) {
    let q = db.selectFrom('project_task_comments').select('comment_id').where('tenant', '=', tenant);
    if (afterId !== null) q = q.where('comment_id', '>', afterId);
    return (await q.orderBy('comment_id').limit(limit).execute()).map((r) => r.comment_id);
  },
};
