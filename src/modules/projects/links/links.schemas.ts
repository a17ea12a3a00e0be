import { Type, type Static } from 'typebox';
import { Id, Nullable, Timestamp, listOf, listQuery } from '../../../platform/http/schemas.ts';

export const ProjectTicketLink = Type.Object({
  link_id: Id,
  project_id: Id,
  phase_id: Nullable(Type.String({ format: 'uuid', description: 'The phase the ticket is linked to (for a task link: the task\'s current phase); null for a project-level link' })),
  phase_name: Nullable(Type.String()),
  task_id: Nullable(Type.String({ format: 'uuid', description: 'The task the ticket is linked to; null for project- and phase-level links' })),
  task_name: Nullable(Type.String()),
  ticket_id: Id,
  ticket_number: Type.String(),
  title: Type.String(),
  status_id: Id,
  status_name: Type.String(),
  is_closed: Type.Boolean(),
  client_id: Id,
  client_name: Type.String(),
  assigned_to: Nullable(Id),
  linked_by: Nullable(Id),
  linked_at: Timestamp,
});
export type ProjectTicketLink = Static<typeof ProjectTicketLink>;

export const LinkTicketBody = Type.Object(
  {
    ticket_id: Type.String({ format: 'uuid', description: 'A ticket the caller may see' }),
    phase_id: Type.Optional(Nullable(Type.String({ format: 'uuid', description: 'Link to this phase of the project' }))),
    task_id: Type.Optional(Nullable(Type.String({ format: 'uuid', description: 'Link to this task of the project (with phase_id, the task must be in that phase)' }))),
  },
  { additionalProperties: false, description: 'Without phase_id and task_id the ticket is linked to the project itself' },
);
export type LinkTicketBody = Static<typeof LinkTicketBody>;

export const LINK_SORT_FIELDS = ['linked_at', 'ticket_number'] as const;
export const ListLinksQuery = listQuery(LINK_SORT_FIELDS, {
  phase_id: Type.Optional(Type.String({ format: 'uuid', description: 'Links to this phase and to its tasks' })),
  task_id: Type.Optional(Type.String({ format: 'uuid', description: 'Links to this task' })),
  is_closed: Type.Optional(Type.Boolean({ description: 'Only closed (true) or open (false) tickets' })),
});
export type ListLinksQuery = Static<typeof ListLinksQuery>;

export const ProjectTicketParams = Type.Object({ id: Id, ticketId: Id }, { additionalProperties: false });
export const LinkListResponse = listOf(ProjectTicketLink);
export const LinkResponse = Type.Object({ data: ProjectTicketLink });
