import { Type, type Static } from 'typebox';
import { Id, Nullable, Timestamp, dataOf, listOf, listQuery } from '../../../platform/http/schemas.ts';

export const RESOLUTION_STATUSES = ['open', 'quote_line', 'agreement_line', 'project_task', 'declined'] as const;
/** Resolutions that point at the record that honours the promise (a quote line, an agreement line, a project task). */
export const LINKED_RESOLUTIONS = ['quote_line', 'agreement_line', 'project_task'] as const;

const ResolutionStatus = Type.Enum([...RESOLUTION_STATUSES], {
  description: 'open until resolved; quote_line, agreement_line and project_task name the record that honours it (resolution_ref_id); declined needs none',
});

/** Something promised to the client while working the deal ("we will include onboarding"): it must be resolved or declined before the deal is won. */
export const Commitment = Type.Object({
  commitment_id: Id,
  opportunity_id: Id,
  description: Type.String(),
  made_by: Nullable(Type.String({ format: 'uuid', description: 'The user who recorded it' })),
  made_at: Timestamp,
  resolution_status: ResolutionStatus,
  resolution_ref_id: Nullable(Type.String({ format: 'uuid', description: 'The quote line, agreement line or project task that honours it; null while open or declined' })),
  resolved_by: Nullable(Type.String({ format: 'uuid', description: 'Who resolved or declined it; null while open' })),
  resolved_at: Nullable(Type.String({ format: 'date-time', description: 'When it was resolved or declined; null while open' })),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type Commitment = Static<typeof Commitment>;

const Description = Type.String({ minLength: 1, maxLength: 4000, description: 'What was promised (trimmed; blank is a 400)' });

export const CreateCommitmentBody = Type.Object({ description: Description }, { additionalProperties: false });
export type CreateCommitmentBody = Static<typeof CreateCommitmentBody>;

export const UpdateCommitmentBody = Type.Object(
  {
    description: Type.Optional(Description),
    resolution_status: Type.Optional(ResolutionStatus),
    resolution_ref_id: Type.Optional(
      Nullable(Type.String({ format: 'uuid', description: 'Required with quote_line, agreement_line and project_task; must be absent or null with open and declined (422)' })),
    ),
  },
  {
    additionalProperties: false,
    minProperties: 1,
    description:
      'Partial update (at least one field). Changing resolution_status takes resolution_ref_id from this body only. ' +
      'Resolving (any status but open) stamps resolved_by/resolved_at; setting it back to open clears them.',
  },
);
export type UpdateCommitmentBody = Static<typeof UpdateCommitmentBody>;

export const COMMITMENT_SORT_FIELDS = ['made_at', 'updated_at'] as const;
export const ListCommitmentsQuery = listQuery(COMMITMENT_SORT_FIELDS, {
  resolution_status: Type.Optional(ResolutionStatus),
});
export type ListCommitmentsQuery = Static<typeof ListCommitmentsQuery>;

export const CommitmentParams = Type.Object({ id: Id, commitmentId: Id }, { additionalProperties: false });

export const CommitmentResponse = dataOf(Commitment);
export const CommitmentListResponse = listOf(Commitment);
