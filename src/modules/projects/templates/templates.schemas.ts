import { Type, type Static } from 'typebox';
import { DateOnly, Id, Nullable, Timestamp, dataOf, listOf, listQuery } from '../../../platform/http/schemas.ts';

/** Hard caps on one template, checked after the per-array maxItems (which alone would allow 50 × 100 × 50 rows). */
export const TEMPLATE_LIMITS = { phases: 50, tasksPerPhase: 100, tasks: 500, checklistPerTask: 50, checklistItems: 2000, statusMappings: 20 } as const;

const name = (description: string) => Type.String({ minLength: 1, maxLength: 255, description });
const text = Nullable(Type.String({ maxLength: 10_000, description: 'Markdown; blank means none' }));
const days = (description: string) => Type.Integer({ minimum: 0, maximum: 3650, description });

export const TemplateChecklistItemInput = Type.Object(
  {
    item_name: Type.String({ minLength: 1, maxLength: 500, description: 'Trimmed; not blank' }),
    completed: Type.Optional(Type.Boolean({ description: 'Whether the item starts ticked in projects made from the template (default false)' })),
  },
  { additionalProperties: false },
);

export const TemplateTaskInput = Type.Object(
  {
    task_name: name('Trimmed; not blank'),
    description: Type.Optional(text),
    estimated_hours: Type.Optional(Nullable(Type.Number({ minimum: 0, maximum: 99_999_999.99, description: 'Hours (not minutes), at most two decimals' }))),
    due_offset_days: Type.Optional(Nullable(days('Days after the phase start the task is due (needs a start_date when applied)'))),
    assigned_to: Type.Optional(Nullable(Type.String({ format: 'uuid', description: 'Assignee hint: an active internal user (used by assignment_option primary and all)' }))),
    assigned_team_id: Type.Optional(Nullable(Type.String({ format: 'uuid', description: 'Team hint (used by assignment_option all)' }))),
    task_status_id: Type.Optional(Nullable(Type.String({ format: 'uuid', description: 'Status hint: one of the tenant\'s task statuses; default: the project\'s first status' }))),
    checklist: Type.Optional(Type.Array(TemplateChecklistItemInput, { maxItems: TEMPLATE_LIMITS.checklistPerTask })),
  },
  { additionalProperties: false },
);

export const TemplatePhaseInput = Type.Object(
  {
    phase_name: name('Trimmed; not blank'),
    description: Type.Optional(text),
    start_offset_days: Type.Optional(days('Days after the project start the phase starts (default 0)')),
    duration_days: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 3650, description: 'Length in days: the phase ends on start + duration − 1' }))),
    tasks: Type.Optional(Type.Array(TemplateTaskInput, { maxItems: TEMPLATE_LIMITS.tasksPerPhase })),
  },
  { additionalProperties: false },
);

export const TemplateStatusMappingInput = Type.Object(
  {
    task_status_id: Type.String({ format: 'uuid', description: 'One of the tenant\'s task statuses' }),
  },
  { additionalProperties: false },
);

const phases = Type.Array(TemplatePhaseInput, { maxItems: TEMPLATE_LIMITS.phases, description: 'In order; at most 500 tasks and 2000 checklist items overall' });
const statusMappings = Type.Array(TemplateStatusMappingInput, {
  maxItems: TEMPLATE_LIMITS.statusMappings,
  description: 'Task statuses of projects made from the template, in order; default: the tenant\'s default task statuses',
});

export const CreateTemplateBody = Type.Object(
  {
    template_name: name('Trimmed; not blank'),
    description: Type.Optional(text),
    category: Type.Optional(Nullable(Type.String({ maxLength: 100, description: 'Free grouping label; blank means none' }))),
    project_id: Type.Optional(Type.String({ format: 'uuid', description: 'Copy the phases, tasks, checklists and task statuses of this project (do not send phases then)' })),
    phases: Type.Optional(phases),
    status_mappings: Type.Optional(statusMappings),
  },
  { additionalProperties: false, description: 'Send project_id (copy an existing project) or phases (build from the body), not both' },
);
export type CreateTemplateBody = Static<typeof CreateTemplateBody>;

export const UpdateTemplateBody = Type.Object(
  {
    template_name: Type.Optional(name('Trimmed; not blank')),
    description: Type.Optional(text),
    category: Type.Optional(Nullable(Type.String({ maxLength: 100, description: 'null or blank clears it' }))),
    phases: Type.Optional(Type.Array(TemplatePhaseInput, { maxItems: TEMPLATE_LIMITS.phases, description: 'Replaces all phases with their tasks and checklists' })),
    status_mappings: Type.Optional(Type.Array(TemplateStatusMappingInput, { maxItems: TEMPLATE_LIMITS.statusMappings, description: 'Replaces the status mappings' })),
  },
  { additionalProperties: false, minProperties: 1, description: 'Partial update' },
);
export type UpdateTemplateBody = Static<typeof UpdateTemplateBody>;
export type TemplatePhaseInput = Static<typeof TemplatePhaseInput>;
export type TemplateStatusMappingInput = Static<typeof TemplateStatusMappingInput>;

export const ApplyTemplateBody = Type.Object(
  {
    project_name: name('Trimmed; not blank'),
    client_id: Type.Optional(Nullable(Type.String({ format: 'uuid', description: 'The project\'s client' }))),
    start_date: Type.Optional(Nullable(DateOnly)),
    assignment_option: Type.Optional(Type.Enum(['none', 'primary', 'all'], {
      description: 'Task assignees: none; primary (default) copies each task\'s assignee hint; all copies the assignee and team hints. Hints naming an inactive or deleted user are dropped.',
    })),
    assigned_to: Type.Optional(Nullable(Type.String({ format: 'uuid', description: 'The project\'s owner' }))),
    description: Type.Optional(text),
  },
  { additionalProperties: false },
);
export type ApplyTemplateBody = Static<typeof ApplyTemplateBody>;

export const DuplicateTemplateBody = Type.Object(
  { template_name: Type.Optional(name('Default: "<name> (Copy)"')) },
  { additionalProperties: false },
);
export type DuplicateTemplateBody = Static<typeof DuplicateTemplateBody>;

const ChecklistItem = Type.Object({ template_item_id: Id, item_name: Type.String(), completed: Type.Boolean(), position: Type.Integer() });
const Task = Type.Object({
  template_task_id: Id,
  task_name: Type.String(),
  description: Nullable(Type.String()),
  estimated_hours: Nullable(Type.Number({ description: 'Hours' })),
  due_offset_days: Nullable(Type.Integer()),
  assigned_to: Nullable(Id),
  assigned_team_id: Nullable(Id),
  task_status_id: Nullable(Id),
  position: Type.Integer(),
  checklist: Type.Array(ChecklistItem),
});
const Phase = Type.Object({
  template_phase_id: Id,
  phase_name: Type.String(),
  description: Nullable(Type.String()),
  start_offset_days: Type.Integer(),
  duration_days: Nullable(Type.Integer()),
  position: Type.Integer(),
  tasks: Type.Array(Task),
});
const StatusMapping = Type.Object({ task_status_id: Id, status_name: Type.String(), is_closed: Type.Boolean(), position: Type.Integer() });

const summaryFields = {
  template_id: Id,
  template_name: Type.String(),
  description: Nullable(Type.String()),
  category: Nullable(Type.String()),
  use_count: Type.Integer({ description: 'Projects made from it' }),
  phase_count: Type.Integer(),
  task_count: Type.Integer(),
  created_by: Nullable(Id),
  created_at: Timestamp,
  updated_at: Timestamp,
};
export const TemplateSummary = Type.Object(summaryFields);
export type TemplateSummary = Static<typeof TemplateSummary>;
export const Template = Type.Object({ ...summaryFields, phases: Type.Array(Phase), status_mappings: Type.Array(StatusMapping) });
export type Template = Static<typeof Template>;

export const TEMPLATE_SORT_FIELDS = ['template_name', 'created_at', 'updated_at', 'use_count'] as const;
export const ListTemplatesQuery = listQuery(TEMPLATE_SORT_FIELDS, {
  category: Type.Optional(Type.String({ maxLength: 100, description: 'Exact category (case-insensitive)' })),
  search: Type.Optional(Type.String({ maxLength: 200, description: 'Case-insensitive substring of the name or description' })),
});
export type ListTemplatesQuery = Static<typeof ListTemplatesQuery>;

export const TemplateParams = Type.Object({ templateId: Id }, { additionalProperties: false });
export const NoQuery = Type.Object({}, { additionalProperties: false });

export const TemplateResponse = dataOf(Template);
export const TemplateListResponse = listOf(TemplateSummary);
export const CategoriesResponse = Type.Object({
  data: Type.Array(Type.Object({ category: Type.String(), template_count: Type.Integer() })),
});
