import { Type, type Static } from 'typebox';
import { Id, Timestamp } from '../../../platform/http/schemas.ts';
import { iso } from '../../../platform/time.ts';
import type { ProjectStatusRow, StatusMappingRow } from './statuses.repo.ts';

export const ProjectStatus = Type.Object({
  status_id: Id,
  name: Type.String(),
  is_closed: Type.Boolean({ description: 'Projects in it count as closed (project.closed fires on entering it)' }),
  is_default: Type.Boolean({ description: 'Where new projects start; exactly one, and open' }),
  order_number: Type.Integer(),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type ProjectStatus = Static<typeof ProjectStatus>;

const fields = {
  is_closed: Type.Optional(Type.Boolean()),
  is_default: Type.Optional(Type.Boolean({ description: 'true makes it the default (the previous default stops being it); an open status only' })),
  order_number: Type.Optional(Type.Integer({ minimum: 0, maximum: 100_000 })),
};
const name = Type.String({ minLength: 1, maxLength: 100, description: 'Trimmed; unique per tenant regardless of case' });
export const CreateProjectStatusBody = Type.Object({ name, ...fields }, { additionalProperties: false });
export type CreateProjectStatusBody = Static<typeof CreateProjectStatusBody>;
export const UpdateProjectStatusBody = Type.Object({ name: Type.Optional(name), ...fields }, { additionalProperties: false, minProperties: 1 });
export type UpdateProjectStatusBody = Static<typeof UpdateProjectStatusBody>;

export const toProjectStatus = (s: ProjectStatusRow): ProjectStatus => ({
  status_id: s.status_id,
  name: s.name,
  is_closed: s.is_closed,
  is_default: s.is_default,
  order_number: s.order_number,
  created_at: iso(s.created_at),
  updated_at: iso(s.updated_at),
});

export const ProjectStatusParams = Type.Object({ statusId: Id }, { additionalProperties: false });
export const ProjectStatusResponse = Type.Object({ data: ProjectStatus });
export const ProjectStatusListResponse = Type.Object({ data: Type.Array(ProjectStatus) });

export const StatusMapping = Type.Object({
  status_mapping_id: Id,
  project_id: Id,
  status_id: Type.String({ format: 'uuid', description: 'The tenant task status it maps' }),
  status_name: Type.String(),
  is_closed: Type.Boolean({ description: 'Tasks moved into it are complete (project.task.completed)' }),
  is_default: Type.Boolean({ description: 'Where new tasks start unless they name a mapping' }),
  display_order: Type.Integer(),
  is_visible: Type.Boolean(),
});
export type StatusMapping = Static<typeof StatusMapping>;
export const StatusMappingListResponse = Type.Object({ data: Type.Array(StatusMapping) });

export const toStatusMapping = (m: StatusMappingRow): StatusMapping => ({
  status_mapping_id: m.status_mapping_id,
  project_id: m.project_id,
  status_id: m.task_status_id,
  status_name: m.status_name,
  is_closed: m.is_closed,
  is_default: m.is_default,
  display_order: m.display_order,
  is_visible: m.is_visible,
});
