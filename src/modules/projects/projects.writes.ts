import type { Transaction } from 'kysely';
import type { Actor } from '../../platform/auth/context.ts';
import { nextNumberInTrx, type ReservedNumber } from '../../platform/db/numbering.ts';
import type { DB } from '../../platform/db/schema.ts';
import { PROJECT_EVENTS } from './projects.vocabulary.ts';
import { assertIfMatch } from '../../platform/http/etag.ts';
import { unprocessable, validation } from '../../platform/http/errors.ts';
import { optionalText, requiredText } from '../../platform/http/text.ts';
import { newId } from '../../platform/ids.ts';
import { portalClientId } from '../clients/index.ts';
import { syncSearch, upsertSearchDocuments } from '../../platform/search/writer.ts';
import { emitProjectDeleted, emitProjectEvents, eventsOfProjectChange, type Changes } from './projects.events.ts';
import { hours, toProject } from './projects.mapper.ts';
import { deleteProject, findProjectView, insertProject, updateProject } from './projects.repo.ts';
import { checkDates, checkHours, checkProjectRefs, requireVisibleProject, type ProjectRefField, type ProjectRefs } from './projects.rules.ts';
import type { CreateProjectBody, Project, UpdateProjectBody } from './projects.schemas.ts';
import { resyncProjectTree } from './projects.resync.ts';
import { projectSearchDocument } from './projects.search.ts';
import { findDefaultProjectStatus, insertDefaultMappings } from './statuses/statuses.repo.ts';

/** What every write needs beyond the transaction: the base of event URLs, and If-Match for PUT/DELETE. */
export interface WriteContext {
  publicUrl: string;
  ifMatch?: string;
  /** The project number reserved for a create (withReservedNumber); without it the counter is used in the transaction. */
  reserved?: ReservedNumber;
}

/** P-000001; longer once the counter passes 999 999. */
export const formatProjectNumber = (seq: number): string => `P-${String(seq).padStart(6, '0')}`;

const REF_FIELDS: readonly ProjectRefField[] = ['client_id', 'contact_id', 'assigned_to', 'assigned_team_id', 'status_id'];
const apiField = (column: string) => (column === 'contact_id' ? 'contact_name_id' : column);

/**
 * Creates a project (validation, number, events, search) inside the caller's transaction. The project
 * starts empty (no phases or tasks) but with a task status mapping for each of the tenant's task
 * statuses, so tasks can be created at once. Status defaults to the tenant's default project status;
 * a client-portal key's project is for its own client. Emits project.created.
 */
export async function createProjectInTrx(trx: Transaction<DB>, actor: Actor, body: CreateProjectBody, ctx: WriteContext): Promise<Project> {
  const { tenant } = actor;
  const projectName = requiredText(body.project_name, 'body.project_name');
  checkHours(body.budgeted_hours, 'body.budgeted_hours');
  checkDates(body.start_date ?? null, body.end_date ?? null, 'body.end_date');
  // A defaulted status is the row just read: it needs no second look in checkProjectRefs.
  const defaultStatus = body.status_id === undefined ? await findDefaultProjectStatus(trx, tenant) : undefined;
  const statusId = body.status_id ?? defaultStatus?.status_id;
  if (statusId === undefined) throw unprocessable('The tenant has no open project status; create one first');
  const refs: ProjectRefs = {
    client_id: body.client_id ?? portalClientId(actor) ?? null,
    contact_id: body.contact_name_id ?? null,
    assigned_to: body.assigned_to ?? null,
    assigned_team_id: body.assigned_team_id ?? null,
    status_id: statusId,
  };
  const { status } = await checkProjectRefs(trx, actor, refs, new Set(REF_FIELDS.filter((f) => f !== 'status_id' || !defaultStatus)));
  const closed = (status ?? defaultStatus)!.is_closed;
  const seq = ctx.reserved?.seq ?? (await nextNumberInTrx(trx, tenant, 'project'));
  const projectId = newId();
  const now = new Date();
  await insertProject(trx, {
    tenant,
    project_id: projectId,
    project_seq: seq,
    project_number: formatProjectNumber(seq),
    project_name: projectName,
    description: optionalText(body.description) ?? null,
    ...refs,
    is_closed: closed,
    start_date: body.start_date ?? null,
    end_date: body.end_date ?? null,
    budgeted_hours: body.budgeted_hours ?? null,
    created_by: actor.userId,
    created_at: now,
    updated_by: actor.userId,
    updated_at: now,
    closed_at: closed ? now : null,
  }, ctx.reserved);
  await insertDefaultMappings(trx, tenant, projectId, newId);
  const row = (await findProjectView(trx, tenant, projectId))!;
  await emitProjectEvents(trx, row, [PROJECT_EVENTS.created], { publicUrl: ctx.publicUrl });
  // Indexed from the view just read: the search loader would read the same columns again.
  await upsertSearchDocuments(trx, tenant, [projectSearchDocument(row)]);
  return toProject(row);
}

/**
 * Applies a partial change to a project under its row lock, honouring If-Match; emits project.updated
 * (with `changes`) and project.status_changed / closed / assigned as they apply. A patch equal to the
 * current values changes and emits nothing.
 */
export async function updateProjectInTrx(trx: Transaction<DB>, actor: Actor, projectId: string, patch: UpdateProjectBody, ctx: WriteContext): Promise<Project> {
  const { tenant } = actor;
  const current = await requireVisibleProject(trx, actor, projectId, true);
  assertIfMatch(ctx.ifMatch, toProject(current));
  checkHours(patch.budgeted_hours, 'body.budgeted_hours');
  const next: Record<string, unknown> = {
    project_name: patch.project_name === undefined ? undefined : requiredText(patch.project_name, 'body.project_name'),
    description: optionalText(patch.description),
    client_id: patch.client_id,
    contact_id: patch.contact_name_id,
    assigned_to: patch.assigned_to,
    assigned_team_id: patch.assigned_team_id,
    status_id: patch.status_id,
    start_date: patch.start_date,
    end_date: patch.end_date,
  };
  const set: Record<string, unknown> = {};
  const changes: Changes = {};
  for (const [column, value] of Object.entries(next)) {
    const was = current[column as keyof typeof current];
    if (value === undefined || value === was) continue;
    set[column] = value;
    changes[apiField(column)] = { previous: was, new: value };
  }
  if (patch.budgeted_hours !== undefined && patch.budgeted_hours !== hours(current.budgeted_hours)) {
    set.budgeted_hours = patch.budgeted_hours;
    changes.budgeted_hours = { previous: hours(current.budgeted_hours), new: patch.budgeted_hours };
  }
  if (Object.keys(set).length === 0) return toProject(current);
  const start = 'start_date' in set ? (set.start_date as string | null) : current.start_date;
  const end = 'end_date' in set ? (set.end_date as string | null) : current.end_date;
  checkDates(start, end, 'start_date' in set && !('end_date' in set) ? 'body.start_date' : 'body.end_date');
  if (portalClientId(actor) !== undefined && 'client_id' in set) throw validation('body.client_id', 'client-portal keys cannot move a project to another client');

  const changed = new Set(REF_FIELDS.filter((f) => f in set));
  const refs = Object.fromEntries(REF_FIELDS.map((f) => [f, f in set ? set[f] : current[f]])) as unknown as ProjectRefs;
  const { status } = await checkProjectRefs(trx, actor, refs, changed);
  const now = new Date();
  if (status && status.is_closed !== current.is_closed) Object.assign(set, { is_closed: status.is_closed, closed_at: status.is_closed ? now : null });
  await updateProject(trx, tenant, projectId, { ...set, updated_at: now, updated_by: actor.userId });
  const after = (await findProjectView(trx, tenant, projectId))!;
  const previousStatus = 'status_id' in changes ? { status_id: current.status_id, status_name: current.status_name } : null;
  await emitProjectEvents(trx, after, eventsOfProjectChange(current, after, changes), { publicUrl: ctx.publicUrl, previousStatus, changes });
  await upsertSearchDocuments(trx, tenant, [projectSearchDocument(after)]);
  // Rows under the project carry its client (portal scoping) and name (subtitles) in search.
  if ('client_id' in set || 'project_name' in set) await resyncProjectTree(trx, tenant, projectId);
  return toProject(after);
}

/**
 * Deletes the project with its phases, tasks, checklists, comments and reactions (one cascade). No
 * public event exists for it; the internal project.deleted records it in the outbox.
 */
export async function deleteProjectInTrx(trx: Transaction<DB>, actor: Actor, projectId: string, ctx: WriteContext): Promise<void> {
  const current = await requireVisibleProject(trx, actor, projectId, true);
  assertIfMatch(ctx.ifMatch, toProject(current));
  await deleteProject(trx, actor.tenant, projectId);
  await emitProjectDeleted(trx, current);
  await syncSearch(trx, actor.tenant, 'project', [projectId]);
}
