import { delivered, type EventContribution } from '../../platform/events/vocabulary.ts';

/** The project and project-task events integrators can subscribe to; all are delivered to outbound webhooks. */
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

/** The projects area's part of the event vocabulary: deliveries keep the project id, and task events the task id too. */
export const PROJECT_VOCABULARY: EventContribution = {
  types: [
    ...delivered('project', PROJECT_EVENTS, {
      created: 'A project was created',
      updated: 'Any field of a project changed; carries `changes`',
      statusChanged: 'A project moved to another status; data names the previous one',
      assigned: 'The assigned user or team of a project changed',
      closed: 'A project moved to a closed status',
    }, { entity: 'project', always: ['project_id'] }),
    ...delivered('project_task', PROJECT_TASK_EVENTS, {
      created: 'A project task was created',
      updated: 'Any field of a project task changed; carries `changes`',
      statusChanged: 'A project task moved to another status; data names the previous one',
      assigned: 'The assignee of a project task changed',
      completed: 'A project task moved to a closed status',
    }, { entity: 'project', always: ['project_id', 'task_id'] }),
  ],
  payloadEntities: { project: PROJECT_DATA_FIELDS },
};
