import { sql } from 'kysely';
import type { Executor } from '../../platform/db/executor.ts';
import { syncSearch } from '../../platform/search/writer.ts';

/** Re-indexes every phase, task and comment of a project (after its client or name changed). */
export async function resyncProjectTree(db: Executor, tenant: string, projectId: string): Promise<void> {
  const phases = await db.selectFrom('project_phases').select('phase_id').where('tenant', '=', tenant).where('project_id', '=', projectId).execute();
  const tasks = await db.selectFrom('project_tasks').select('task_id').where('tenant', '=', tenant).where('project_id', '=', projectId).execute();
  const comments = await db
    .selectFrom('project_task_comments as c')
    .innerJoin('project_tasks as t', (j) => j.onRef('t.tenant', '=', 'c.tenant').onRef('t.task_id', '=', 'c.task_id'))
    .select('c.comment_id')
    .where('c.tenant', '=', tenant)
    .where('t.project_id', '=', projectId)
    .execute();
  await syncSearch(db, tenant, 'project_phase', phases.map((r) => r.phase_id));
  await syncSearch(db, tenant, 'project_task', tasks.map((r) => r.task_id));
  await syncSearch(db, tenant, 'project_task_comment', comments.map((r) => r.comment_id));
}

/** Re-indexes the tasks of a phase (their subtitle names it). */
export async function resyncPhaseTasks(db: Executor, tenant: string, phaseId: string): Promise<void> {
  const tasks = await db.selectFrom('project_tasks').select('task_id').where('tenant', '=', tenant).where('phase_id', '=', phaseId).execute();
  await syncSearch(db, tenant, 'project_task', tasks.map((r) => r.task_id));
}

/** Re-indexes every phase, task and comment of these projects at once (after their client changed, as in a merge). */
export async function resyncProjectTrees(db: Executor, tenant: string, projectIds: readonly string[]): Promise<void> {
  if (projectIds.length === 0) return;
  const ids = [...projectIds];
  const { rows: phases } = await sql<{ id: string }>`
    select phase_id as id from project_phases where tenant = ${tenant} and project_id = any(${ids}::uuid[])
  `.execute(db);
  const { rows: tasks } = await sql<{ id: string }>`
    select task_id as id from project_tasks where tenant = ${tenant} and project_id = any(${ids}::uuid[])
  `.execute(db);
  const { rows: comments } = await sql<{ id: string }>`
    select c.comment_id as id from project_task_comments c
    join project_tasks t on t.tenant = c.tenant and t.task_id = c.task_id
    where c.tenant = ${tenant} and t.project_id = any(${ids}::uuid[])
  `.execute(db);
  await syncSearch(db, tenant, 'project_phase', phases.map((r) => r.id));
  await syncSearch(db, tenant, 'project_task', tasks.map((r) => r.id));
  await syncSearch(db, tenant, 'project_task_comment', comments.map((r) => r.id));
}
