import type { Transaction } from 'kysely';
import type { Actor } from '../../../platform/auth/context.ts';
import type { DB } from '../../../platform/db/schema.ts';
import { assertIfMatch } from '../../../platform/http/etag.ts';
import { conflict, notFound } from '../../../platform/http/errors.ts';
import { optionalText, requiredText } from '../../../platform/http/text.ts';
import { newId } from '../../../platform/ids.ts';
import { syncSearch } from '../../../platform/search/writer.ts';
import { checkDates, requireVisibleProject } from '../projects.rules.ts';
import { resyncPhaseTasks } from '../projects.resync.ts';
import { countPhases, deletePhase, findPhase, insertPhase, shiftPhases, updatePhase, type PhaseViewRow } from './phases.repo.ts';
import { toPhase, type CreatePhaseBody, type Phase, type UpdatePhaseBody } from './phases.schemas.ts';

/**
 * The phase if it belongs to this project and the actor may see the project; otherwise 404. With
 * `lock`, the project row is locked first: every write under a project serialises on it, which keeps
 * positions gapless under concurrent writes.
 */
export async function requirePhaseOf(trx: Transaction<DB>, actor: Actor, projectId: string, phaseId: string, lock = false): Promise<PhaseViewRow> {
  await requireVisibleProject(trx, actor, projectId, lock);
  const phase = await findPhase(trx, actor.tenant, phaseId);
  if (!phase || phase.project_id !== projectId) throw notFound('Phase', phaseId);
  return phase;
}

/** Creates a phase at `position` (default last; past the end means last), moving later phases down one. */
export async function createPhaseInTrx(trx: Transaction<DB>, actor: Actor, projectId: string, body: CreatePhaseBody): Promise<Phase> {
  const { tenant } = actor;
  const phaseName = requiredText(body.phase_name, 'body.phase_name');
  checkDates(body.start_date ?? null, body.end_date ?? null, 'body.end_date');
  await requireVisibleProject(trx, actor, projectId, true);
  const count = await countPhases(trx, tenant, projectId);
  const position = Math.min(body.position ?? count + 1, count + 1);
  await shiftPhases(trx, tenant, projectId, position, count, 1);
  const phaseId = newId();
  const now = new Date();
  await insertPhase(trx, {
    tenant,
    phase_id: phaseId,
    project_id: projectId,
    phase_name: phaseName,
    description: optionalText(body.description) ?? null,
    start_date: body.start_date ?? null,
    end_date: body.end_date ?? null,
    position,
    created_at: now,
    updated_at: now,
  });
  await syncSearch(trx, tenant, 'project_phase', [phaseId]);
  return toPhase((await findPhase(trx, tenant, phaseId))!);
}

/** Partial update; a new position moves the phase and renumbers the phases between its old and new places. */
export async function updatePhaseInTrx(trx: Transaction<DB>, actor: Actor, projectId: string, phaseId: string, patch: UpdatePhaseBody, ifMatch?: string): Promise<Phase> {
  const { tenant } = actor;
  const current = await requirePhaseOf(trx, actor, projectId, phaseId, true);
  assertIfMatch(ifMatch, toPhase(current));
  const set: Record<string, unknown> = {};
  if (patch.phase_name !== undefined) set.phase_name = requiredText(patch.phase_name, 'body.phase_name');
  if (patch.description !== undefined) set.description = optionalText(patch.description);
  if (patch.start_date !== undefined) set.start_date = patch.start_date;
  if (patch.end_date !== undefined) set.end_date = patch.end_date;
  const start = patch.start_date !== undefined ? patch.start_date : current.start_date;
  const end = patch.end_date !== undefined ? patch.end_date : current.end_date;
  checkDates(start, end, patch.end_date !== undefined ? 'body.end_date' : 'body.start_date');
  if (patch.position !== undefined) {
    const count = await countPhases(trx, tenant, projectId);
    const target = Math.min(patch.position, count);
    if (target < current.position) await shiftPhases(trx, tenant, projectId, target, current.position - 1, 1);
    if (target > current.position) await shiftPhases(trx, tenant, projectId, current.position + 1, target, -1);
    set.position = target;
  }
  await updatePhase(trx, tenant, phaseId, { ...set, updated_at: new Date() });
  await syncSearch(trx, tenant, 'project_phase', [phaseId]);
  if (set.phase_name !== undefined && set.phase_name !== current.phase_name) await resyncPhaseTasks(trx, tenant, phaseId);
  return toPhase((await findPhase(trx, tenant, phaseId))!);
}

/**
 * Deletes a phase and closes the gap in the positions. A phase with tasks is a 409 unless `force`,
 * which deletes its tasks with their checklists, comments and reactions too.
 */
export async function deletePhaseInTrx(trx: Transaction<DB>, actor: Actor, projectId: string, phaseId: string, opts: { force?: boolean; ifMatch?: string }): Promise<void> {
  const { tenant } = actor;
  const current = await requirePhaseOf(trx, actor, projectId, phaseId, true);
  assertIfMatch(opts.ifMatch, toPhase(current));
  if (Number(current.task_count) > 0 && opts.force !== true) {
    throw conflict(`Phase '${phaseId}' has ${current.task_count} task(s); move or delete them first, or send ?force=true to delete them with the phase`, { task_count: Number(current.task_count) });
  }
  await deletePhase(trx, tenant, phaseId);
  const count = await countPhases(trx, tenant, projectId);
  await shiftPhases(trx, tenant, projectId, current.position + 1, count + 1, -1);
  await syncSearch(trx, tenant, 'project_phase', [phaseId]);
}
