import { Type, type Static } from 'typebox';
import { Nullable } from '../../../platform/http/schemas.ts';
import { Project, UpdateProjectBody } from '../projects.schemas.ts';

export const BULK_MAX = 100;

const projectIds = Type.Array(Type.String({ format: 'uuid' }), {
  minItems: 1,
  maxItems: BULK_MAX,
  uniqueItems: true,
  description: `1–${BULK_MAX} distinct project ids; all of them change or none does`,
});
const uuidOrNull = (description: string) => Nullable(Type.String({ format: 'uuid', description }));

export const BulkAssignBody = Type.Object(
  {
    project_ids: projectIds,
    assigned_to: Type.Optional(uuidOrNull('An active internal user; null unassigns')),
    assigned_team_id: Type.Optional(uuidOrNull('A team; null removes the team')),
  },
  { additionalProperties: false, description: 'Send assigned_to, assigned_team_id or both' },
);
export type BulkAssignBody = Static<typeof BulkAssignBody>;

export const BulkStatusBody = Type.Object(
  { project_ids: projectIds, status_id: Type.String({ format: 'uuid', description: 'A project status' }) },
  { additionalProperties: false },
);
export type BulkStatusBody = Static<typeof BulkStatusBody>;

export const BulkUpdateBody = Type.Object(
  { project_ids: projectIds, fields: UpdateProjectBody },
  { additionalProperties: false, description: '`fields` takes what PUT /api/v1/projects/{id} takes, applied to every project' },
);
export type BulkUpdateBody = Static<typeof BulkUpdateBody>;

export const BulkResponse = Type.Object({ data: Type.Array(Project, { description: 'The projects after the change, in the order of project_ids' }) });
