import type { Transaction } from 'kysely';
import type { DB } from '../../platform/db/schema.ts';
import { PROJECT_EVENTS } from './projects.vocabulary.ts';
import { emit } from '../../platform/events/outbox.ts';
import { toProjectData, type PreviousStatus } from './projects.mapper.ts';
import type { ProjectViewRow } from './projects.repo.ts';

/** Internal (not in the public vocabulary, never delivered): a project was deleted with everything under it. */
export const PROJECT_DELETED = 'project.deleted';

export type ProjectEventType = (typeof PROJECT_EVENTS)[keyof typeof PROJECT_EVENTS];

/** `changes` of *.updated: `{ field: { previous, new } }` with the API's field names. */
export type Changes = Record<string, { previous: unknown; new: unknown }>;

/**
 * The public events of one project write, in order: project.updated (with `changes`) whenever a field
 * changed, project.status_changed when the status did, project.closed when it moved from an open to a
 * closed status, project.assigned when the owner or the team did.
 */
export function eventsOfProjectChange(before: Pick<ProjectViewRow, 'is_closed'>, after: Pick<ProjectViewRow, 'is_closed'>, changes: Changes): ProjectEventType[] {
  if (Object.keys(changes).length === 0) return [];
  const types: ProjectEventType[] = [PROJECT_EVENTS.updated];
  if ('status_id' in changes) types.push(PROJECT_EVENTS.statusChanged);
  if (!before.is_closed && after.is_closed) types.push(PROJECT_EVENTS.closed);
  if ('assigned_to' in changes || 'assigned_team_id' in changes) types.push(PROJECT_EVENTS.assigned);
  return types;
}

/** Emits the events of one write through the outbox, in its transaction; each gets its own event_id and the same data. */
export async function emitProjectEvents(
  trx: Transaction<DB>,
  row: ProjectViewRow,
  types: readonly ProjectEventType[],
  ctx: { publicUrl: string; previousStatus?: PreviousStatus | null; changes?: Changes; merge?: boolean },
): Promise<void> {
  const data = toProjectData(row, ctx);
  for (const event_type of types) {
    const payload: Record<string, unknown> = event_type === PROJECT_EVENTS.updated ? { data, changes: ctx.changes ?? {} } : { data };
    // A client merge's re-attribution (webhooks receive data and changes only).
    if (ctx.merge) payload.merge = true;
    await emit(trx, { tenant: row.tenant, event_type, aggregate_type: 'project', aggregate_id: row.project_id, payload });
  }
}

export async function emitProjectDeleted(trx: Transaction<DB>, row: Pick<ProjectViewRow, 'tenant' | 'project_id' | 'project_number'>): Promise<void> {
  await emit(trx, {
    tenant: row.tenant,
    event_type: PROJECT_DELETED,
    aggregate_type: 'project',
    aggregate_id: row.project_id,
    payload: { project_id: row.project_id, project_number: row.project_number },
  });
}
