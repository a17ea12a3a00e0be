/**
 * The public event vocabulary: every event name integrators can subscribe to, which of them are
 * delivered to outbound webhooks, and the curated `data` fields each delivered entity carries.
 *
 * Areas emit delivered events through the outbox with `payload = { data, changes? }`, where `data`
 * holds exactly the entity's DATA_FIELDS (built inside the write's transaction, so a delivery never
 * shows a state other than the one the event describes) and `changes` (on `*.updated` only) is
 * `{ field: { previous, new } }`. The webhook fan-out wraps that into the envelope.
 */

export type EventEntity = 'ticket' | 'project' | 'project_task' | 'client' | 'contact' | 'time_entry' | 'invoice' | 'asset' | 'system' | 'workflow';

export interface EventTypeInfo {
  event_type: string;
  entity: EventEntity;
  description: string;
  /** Whether outbound webhooks receive it (the spec delivers ticket and project events only). */
  delivered: boolean;
}

export const TICKET_EVENTS = {
  created: 'ticket.created',
  updated: 'ticket.updated',
  statusChanged: 'ticket.status_changed',
  assigned: 'ticket.assigned',
  closed: 'ticket.closed',
  commentAdded: 'ticket.comment.added',
} as const;

export const PROJECT_EVENTS = {
  created: 'project.created',
  updated: 'project.updated',
  statusChanged: 'project.status_changed',
  assigned: 'project.assigned',
  closed: 'project.closed',
} as const;

export const PROJECT_TASK_EVENTS = {
  created: 'project.task.created',
  updated: 'project.task.updated',
  statusChanged: 'project.task.status_changed',
  assigned: 'project.task.assigned',
  completed: 'project.task.completed',
} as const;

const delivered = (entity: EventEntity, entries: Record<string, string>, what: Record<string, string>): EventTypeInfo[] =>
  Object.entries(entries).map(([key, event_type]) => ({ event_type, entity, description: what[key]!, delivered: true }));

const announced = (entity: EventEntity, list: [string, string][]): EventTypeInfo[] =>
  list.map(([event_type, description]) => ({ event_type, entity, description, delivered: false }));

export const EVENT_VOCABULARY: readonly EventTypeInfo[] = [
  ...delivered('ticket', TICKET_EVENTS, {
    created: 'A ticket was created',
    updated: 'Any field of a ticket changed; carries `changes`',
    statusChanged: 'A ticket moved to another status; data names the previous one',
    assigned: 'The assigned user or team of a ticket changed',
    closed: 'A ticket moved to a closed status',
    commentAdded: 'A comment was added to a ticket',
  }),
  ...delivered('project', PROJECT_EVENTS, {
    created: 'A project was created',
    updated: 'Any field of a project changed; carries `changes`',
    statusChanged: 'A project moved to another status; data names the previous one',
    assigned: 'The assigned user or team of a project changed',
    closed: 'A project moved to a closed status',
  }),
  ...delivered('project_task', PROJECT_TASK_EVENTS, {
    created: 'A project task was created',
    updated: 'Any field of a project task changed; carries `changes`',
    statusChanged: 'A project task moved to another status; data names the previous one',
    assigned: 'The assignee of a project task changed',
    completed: 'A project task moved to a closed status',
  }),
  ...announced('client', [
    ['client.created', 'A client was created'],
    ['client.updated', 'A client changed'],
  ]),
  ...announced('contact', [
    ['contact.created', 'A contact was created'],
    ['contact.updated', 'A contact changed'],
  ]),
  ...announced('time_entry', [
    ['time.entry.created', 'A time entry was created'],
    ['time.entry.updated', 'A time entry changed'],
    ['time.entry.approved', 'A time entry was approved'],
  ]),
  ...announced('invoice', [
    ['invoice.created', 'An invoice was created'],
    ['invoice.finalized', 'An invoice was finalized'],
    ['invoice.sent', 'An invoice was sent'],
    ['invoice.paid', 'An invoice was paid'],
  ]),
  ...announced('asset', [
    ['asset.created', 'An asset was created'],
    ['asset.updated', 'An asset changed'],
    ['asset.maintenance.scheduled', 'Maintenance was scheduled for an asset'],
    ['asset.maintenance.completed', 'Maintenance of an asset was recorded'],
  ]),
  ...announced('system', [
    ['system.backup.completed', 'A backup completed'],
    ['system.backup.failed', 'A backup failed'],
    ['system.maintenance.started', 'Maintenance started'],
    ['system.maintenance.completed', 'Maintenance completed'],
  ]),
  ...announced('workflow', [
    ['workflow.execution.started', 'A workflow execution started'],
    ['workflow.execution.completed', 'A workflow execution completed'],
    ['workflow.execution.failed', 'A workflow execution failed'],
  ]),
];

export const DELIVERED_EVENT_TYPES: readonly string[] = EVENT_VOCABULARY.filter((e) => e.delivered).map((e) => e.event_type);
const DELIVERED = new Set(DELIVERED_EVENT_TYPES);
export const isDeliveredEventType = (type: string): boolean => DELIVERED.has(type);

/** The `data` of every ticket event, in this order (the spec's curated list). */
export const TICKET_DATA_FIELDS = [
  'ticket_id',
  'ticket_number',
  'title',
  'status_id',
  'status_name',
  'previous_status_id',
  'previous_status_name',
  'priority_id',
  'priority_name',
  'client_id',
  'client_name',
  'contact_name_id',
  'contact_name',
  'contact_email',
  'assigned_to',
  'assigned_to_name',
  'assigned_team_id',
  'board_id',
  'board_name',
  'category_id',
  'subcategory_id',
  'is_closed',
  'entered_at',
  'updated_at',
  'closed_at',
  'due_date',
  'tags',
  'suppress_contact_notifications',
  'suppress_internal_notifications',
  'url',
] as const;

/**
 * ticket.comment.added adds `comment: { comment_id, text, author, author_id, author_type, is_internal, timestamp }`
 * (author_type `internal` for team members, `client` for portal contacts); attachments are never embedded.
 */
export const TICKET_COMMENT_FIELD = 'comment';

/**
 * One allowlist shared by project and project-task events. Project events fill the project fields;
 * task events fill the task fields too and always carry `task_id` next to `project_id`.
 */
export const PROJECT_DATA_FIELDS = [
  'project_id',
  'project_number',
  'project_name',
  'description',
  'status_id',
  'status_name',
  'previous_status_id',
  'previous_status_name',
  'is_closed',
  'client_id',
  'client_name',
  'contact_name_id',
  'contact_name',
  'contact_email',
  'assigned_to',
  'assigned_to_name',
  'assigned_team_id',
  'start_date',
  'end_date',
  'budgeted_hours',
  'task_id',
  'task_name',
  'phase_id',
  'phase_name',
  'estimated_hours',
  'actual_hours',
  'due_date',
  'priority_id',
  'priority_name',
  'tags',
  'updated_at',
  'url',
] as const;

/** The payload-allowlist entities a webhook may restrict, with their selectable `data` fields. */
export const PAYLOAD_ENTITIES = {
  ticket: [...TICKET_DATA_FIELDS, TICKET_COMMENT_FIELD],
  project: PROJECT_DATA_FIELDS,
} as const satisfies Record<string, readonly string[]>;

export type PayloadEntity = keyof typeof PAYLOAD_ENTITIES;

/** The allowlist entity of a delivered event type: the text before its first dot. */
export const payloadEntityOf = (eventType: string): PayloadEntity | undefined => {
  const head = eventType.slice(0, eventType.indexOf('.'));
  return head in PAYLOAD_ENTITIES ? (head as PayloadEntity) : undefined;
};

/**
 * Fields every delivery keeps whatever its allowlist says: the entity ids (and `task_id` on task
 * events), and on tickets the two suppress flags, which the spec says are always present.
 */
export function alwaysIncludedFields(eventType: string): readonly string[] {
  if (eventType.startsWith('project.task.')) return ['project_id', 'task_id'];
  if (eventType.startsWith('project.')) return ['project_id'];
  if (eventType.startsWith('ticket.')) return ['ticket_id', 'suppress_contact_notifications', 'suppress_internal_notifications'];
  return [];
}
