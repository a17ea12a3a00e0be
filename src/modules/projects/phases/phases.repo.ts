import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import type { Executor } from '../../../platform/db/executor.ts';
import type { ProjectPhasesTable } from '../../../platform/db/schema.projects.ts';
import { defineList } from '../../../platform/http/list.ts';

export type PhaseRow = Selectable<ProjectPhasesTable>;
export interface PhaseViewRow extends PhaseRow {
  task_count: number;
}

const taskCount = sql<number>`(select count(*)::int from project_tasks pt where pt.tenant = ph.tenant and pt.phase_id = ph.phase_id)`;
const phaseBase = (db: Executor, tenant: string) => db.selectFrom('project_phases as ph').selectAll('ph').select(taskCount.as('task_count')).where('ph.tenant', '=', tenant);

/** Every phase of the project, in position order (ties on phase_id). */
export async function listPhases(db: Executor, tenant: string, projectId: string): Promise<PhaseViewRow[]> {
  return phaseBase(db, tenant).where('ph.project_id', '=', projectId).orderBy('ph.position', 'asc').orderBy('ph.phase_id', 'asc').execute();
}

/** A project's phases in position order; ties break on phase_id. The count never runs the task-count subquery. */
export function phaseList(db: Executor, tenant: string, projectId: string) {
  return defineList({
    from: db.selectFrom('project_phases as ph').where('ph.tenant', '=', tenant).where('ph.project_id', '=', projectId),
    page: phaseBase(db, tenant).where('ph.project_id', '=', projectId),
    sorts: { position: ['ph.position'] },
    defaultSort: 'position',
    defaultOrder: 'asc',
    tieBreaker: 'ph.phase_id',
    updatedAt: 'ph.updated_at',
  });
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
