import { sql, type RawBuilder } from 'kysely';
import type { Executor } from '../../../platform/db/executor.ts';
import { defineList } from '../../../platform/http/list.ts';

export interface LinkListFilter {
  /** Client-portal scope: only the tickets it may see (the tickets area's visibleTicketsCondition). */
  visibleTickets?: RawBuilder<boolean>;
  phaseId?: string;
  taskId?: string;
  isClosed?: boolean;
  linkId?: string;
}

/** A task link shows the task's current phase, so moving the task between phases keeps the listing true. */
const base = (db: Executor, tenant: string, projectId: string) =>
  db
    .selectFrom('project_ticket_links as l')
    .innerJoin('tickets as t', (j) => j.onRef('t.tenant', '=', 'l.tenant').onRef('t.ticket_id', '=', 'l.ticket_id'))
    .leftJoin('project_tasks as k', (j) => j.onRef('k.tenant', '=', 'l.tenant').onRef('k.task_id', '=', 'l.task_id'))
    .leftJoin('project_phases as ph', (j) => j.onRef('ph.tenant', '=', 'l.tenant').on(sql<boolean>`ph.phase_id = coalesce(l.phase_id, k.phase_id)`))
    .where('l.tenant', '=', tenant)
    .where('l.project_id', '=', projectId);
type Base = ReturnType<typeof base>;

function filtered(q: Base, f: LinkListFilter): Base {
  if (f.visibleTickets !== undefined) q = q.where(f.visibleTickets);
  if (f.phaseId !== undefined) q = q.where('ph.phase_id', '=', f.phaseId);
  if (f.taskId !== undefined) q = q.where('l.task_id', '=', f.taskId);
  if (f.isClosed !== undefined) q = q.where('t.is_closed', '=', f.isClosed);
  if (f.linkId !== undefined) q = q.where('l.link_id', '=', f.linkId);
  return q;
}

function withColumns(q: Base) {
  return q
    .innerJoin('ticket_statuses as s', (j) => j.onRef('s.tenant', '=', 't.tenant').onRef('s.status_id', '=', 't.status_id'))
    .innerJoin('clients as c', (j) => j.onRef('c.tenant', '=', 't.tenant').onRef('c.client_id', '=', 't.client_id'))
    .select([
      'l.link_id', 'l.project_id', 'ph.phase_id', 'ph.phase_name', 'l.task_id', 'k.task_name', 'l.ticket_id', 't.ticket_number', 't.title',
      't.status_id', 's.name as status_name', 't.is_closed', 't.client_id', 'c.client_name', 't.assigned_to', 'l.created_by as linked_by',
      'l.created_at as linked_at', 't.ticket_seq',
    ]);
}
export type LinkViewRow = Awaited<ReturnType<ReturnType<typeof withColumns>['execute']>>[number];

/** A project's links; `updated_since` means the ticket changed since. Ties break on link_id in the same direction. */
export function linkList(db: Executor, tenant: string, projectId: string, f: LinkListFilter) {
  return defineList({
    from: filtered(base(db, tenant, projectId), f),
    page: withColumns(filtered(base(db, tenant, projectId), f)),
    sorts: { linked_at: ['l.created_at'], ticket_number: ['t.ticket_seq'] },
    defaultSort: 'linked_at',
    defaultOrder: 'asc',
    tieBreaker: 'l.link_id',
    updatedAt: 't.updated_at',
  });
}

export async function findLinkView(db: Executor, tenant: string, projectId: string, linkId: string): Promise<LinkViewRow | undefined> {
  return withColumns(filtered(base(db, tenant, projectId), { linkId })).executeTakeFirst();
}

/** The existing link of this ticket to exactly this target (project, phase or task), if any. */
export async function findSameLink(db: Executor, tenant: string, target: { projectId: string; phaseId: string | null; taskId: string | null; ticketId: string }) {
  let q = db.selectFrom('project_ticket_links').select('link_id').where('tenant', '=', tenant).where('project_id', '=', target.projectId).where('ticket_id', '=', target.ticketId);
  q = target.phaseId === null ? q.where('phase_id', 'is', null) : q.where('phase_id', '=', target.phaseId);
  q = target.taskId === null ? q.where('task_id', 'is', null) : q.where('task_id', '=', target.taskId);
  return q.executeTakeFirst();
}

export async function insertLink(
  db: Executor,
  row: { tenant: string; link_id: string; project_id: string; phase_id: string | null; task_id: string | null; ticket_id: string; created_by: string; created_at: Date },
): Promise<void> {
  await db.insertInto('project_ticket_links').values(row).execute();
}

/** Removes every link between the ticket and the project (project, phase and task level); returns how many. */
export async function deleteTicketLinks(db: Executor, tenant: string, projectId: string, ticketId: string): Promise<number> {
  const res = await db.deleteFrom('project_ticket_links').where('tenant', '=', tenant).where('project_id', '=', projectId).where('ticket_id', '=', ticketId).executeTakeFirst();
  return Number(res.numDeletedRows);
}

export async function findPhaseOf(db: Executor, tenant: string, phaseId: string) {
  return db.selectFrom('project_phases').select(['phase_id', 'project_id']).where('tenant', '=', tenant).where('phase_id', '=', phaseId).executeTakeFirst();
}

export async function findTaskOf(db: Executor, tenant: string, taskId: string) {
  return db.selectFrom('project_tasks').select(['task_id', 'project_id', 'phase_id']).where('tenant', '=', tenant).where('task_id', '=', taskId).executeTakeFirst();
}
