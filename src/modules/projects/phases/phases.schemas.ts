import { Type, type Static } from 'typebox';
import { DateOnly, Id, Nullable, Timestamp, dataOf, listOf, listQuery } from '../../../platform/http/schemas.ts';
import type { PhaseViewRow } from './phases.repo.ts';
import { iso } from '../../../platform/time.ts';

export const Phase = Type.Object({
  phase_id: Id,
  project_id: Id,
  phase_name: Type.String(),
  description: Nullable(Type.String()),
  start_date: Nullable(DateOnly),
  end_date: Nullable(DateOnly),
  position: Type.Integer({ description: '1-based order among the project\'s phases, without gaps' }),
  task_count: Type.Integer(),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type Phase = Static<typeof Phase>;

export function toPhase(row: PhaseViewRow): Phase {
  return {
    phase_id: row.phase_id,
    project_id: row.project_id,
    phase_name: row.phase_name,
    description: row.description,
    start_date: row.start_date,
    end_date: row.end_date,
    position: row.position,
    task_count: Number(row.task_count),
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

const date = (description: string) => Nullable(Type.String({ format: 'date', maxLength: 10, description }));
const position = Type.Integer({ minimum: 1, maximum: 100_000, description: '1-based; the phases at and after it move down one. Past the end means last' });
const fields = {
  description: Type.Optional(Nullable(Type.String({ maxLength: 100_000, description: 'Markdown; blank means none' }))),
  start_date: Type.Optional(date('YYYY-MM-DD')),
  end_date: Type.Optional(date('YYYY-MM-DD; not before start_date')),
  position: Type.Optional(position),
};

export const CreatePhaseBody = Type.Object(
  { phase_name: Type.String({ minLength: 1, maxLength: 255, description: 'Trimmed; not blank' }), ...fields },
  { additionalProperties: false, description: 'Without position the phase goes last' },
);
export type CreatePhaseBody = Static<typeof CreatePhaseBody>;

export const UpdatePhaseBody = Type.Object(
  { phase_name: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })), ...fields },
  { additionalProperties: false, minProperties: 1, description: 'Partial update; a new position moves the phase and renumbers its siblings' },
);
export type UpdatePhaseBody = Static<typeof UpdatePhaseBody>;

export const DeletePhaseQuery = Type.Object(
  { force: Type.Optional(Type.Boolean({ description: 'Also delete the phase\'s tasks (with their checklists and comments); without it a phase with tasks is a 409' })) },
  { additionalProperties: false },
);

export const PhaseParams = Type.Object({ id: Id, phaseId: Id }, { additionalProperties: false });

export const PhaseResponse = dataOf(Phase);
export const PhaseListResponse = listOf(Phase);
export const ListPhasesQuery = listQuery(['position'] as const, {});
export type ListPhasesQuery = Static<typeof ListPhasesQuery>;
