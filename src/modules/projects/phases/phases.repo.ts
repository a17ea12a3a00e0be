import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import type { Executor } from '../../../platform/db/executor.ts';
import type { ProjectPhasesTable } from '../../../platform/db/schema.projects.ts';

export type PhaseRow = Selectable<ProjectPhasesTable>;
export interface PhaseViewRow extends PhaseRow {
  task_count: number;
}

const taskCount = sql<number>`(select count(*)::int from project_tasks pt where pt.tenant = ph.tenant and pt.phase_id = ph.phase_id)`;
const phaseBase = (db: Executor, tenant: string) => db.selectFrom('project_phases as ph').selectAll('ph').select(taskCount.as('task_count')).where('ph.tenant', '=', tenant);

export async function listPhases(db: Executor, tenant: string, projectId: string, page?: { limit: number; offset: number; order: 'asc' | 'desc'; updatedSince?: Date }): Promise<PhaseViewRow[]> {
  let q = phaseBase(db, tenant).where('ph.project_id', '=', projectId);
  if (page?.updatedSince) q = q.where('ph.updated_at', '>=', page.updatedSince);
  q = q.orderBy('ph.position', page?.order ?? 'asc').orderBy('ph.phase_id', page?.order ?? 'asc');
  return page ? q.limit(page.limit).offset(page.offset).execute() : q.execute();
}

export async function countPhasesSince(db: Executor, tenant: string, projectId: string, updatedSince?: Date): Promise<number> {
  let q = db.selectFrom('project_phases').select((eb) => eb.fn.countAll<number>().as('n')).where('tenant', '=', tenant).where('project_id', '=', projectId);
  if (updatedSince) q = q.where('updated_at', '>=', updatedSince);
  return Number((await q.executeTakeFirstOrThrow()).n);
}

export async function findPhase(db: Executor, tenant: string, phaseId: string): Promise<PhaseViewRow | undefined> {
  return phaseBase(db, tenant).where('ph.phase_id', '=', phaseId).executeTakeFirst();
}

export async function findPhases(db: Executor, tenant: string, phaseIds: readonly string[]): Promise<PhaseViewRow[]> {
  if (phaseIds.length === 0) return [];
  return phaseBase(db, tenant).where('ph.phase_id', 'in', [...phaseIds]).execute();
}

export async function countPhases(db: Executor, tenant: string, projectId: string): Promise<number> {
  const row = await db.selectFrom('project_phases').select((eb) => eb.fn.countAll<number>().as('n')).where('tenant', '=', tenant).where('project_id', '=', projectId).executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function insertPhase(db: Executor, row: Insertable<ProjectPhasesTable>): Promise<void> {
  await db.insertInto('project_phases').values(row).execute();
}

export async function updatePhase(db: Executor, tenant: string, phaseId: string, set: Updateable<ProjectPhasesTable>): Promise<void> {
  await db.updateTable('project_phases').set(set).where('tenant', '=', tenant).where('phase_id', '=', phaseId).execute();
}

/** Tasks (and what hangs on them) go with it through the FK cascade. */
export async function deletePhase(db: Executor, tenant: string, phaseId: string): Promise<void> {
  await db.deleteFrom('project_phases').where('tenant', '=', tenant).where('phase_id', '=', phaseId).execute();
}

/**
 * Shifts the positions of the project's phases in [from, to] by `by` (+1 opens a gap, -1 closes one).
 * Positions carry no unique constraint, so the shift needs no ordering tricks.
 */
export async function shiftPhases(db: Executor, tenant: string, projectId: string, from: number, to: number, by: 1 | -1): Promise<void> {
  await db
    .updateTable('project_phases')
    .set({ position: sql<number>`position + ${by}` })
    .where('tenant', '=', tenant)
    .where('project_id', '=', projectId)
    .where('position', '>=', from)
    .where('position', '<=', to)
    .execute();
}

export async function listPhaseIds(db: Executor, tenant: string, afterId: string | null, limit: number): Promise<string[]> {
  let q = db.selectFrom('project_phases').select('phase_id').where('tenant', '=', tenant);
  if (afterId !== null) q = q.where('phase_id', '>', afterId);
  return (await q.orderBy('phase_id').limit(limit).execute()).map((r) => r.phase_id);
}
