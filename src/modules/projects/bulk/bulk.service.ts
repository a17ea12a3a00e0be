import { sql, type Kysely } from 'kysely';
import type { Actor } from '../../../platform/auth/context.ts';
import { withTransaction } from '../../../platform/db/executor.ts';
import type { DB } from '../../../platform/db/schema.ts';
import { AppError, ERROR_STATUS, validation, type ErrorCode } from '../../../platform/http/errors.ts';
import type { Project, UpdateProjectBody } from '../projects.schemas.ts';
import { updateProjectInTrx } from '../projects.writes.ts';
import type { BulkAssignBody, BulkStatusBody, BulkUpdateBody } from './bulk.schemas.ts';

export interface BulkFailure {
  project_id: string;
  code: ErrorCode;
  error: string;
}

/**
 * The failures of a bulk write as one error: the shared code when every item failed the same way
 * (all 404, all 400, …), otherwise 422. Each item names its project and why.
 */
function bulkError(failures: BulkFailure[], total: number): AppError {
  const codes = new Set(failures.map((f) => f.code));
  const code: ErrorCode = codes.size === 1 ? failures[0]!.code : 'UNPROCESSABLE';
  return new AppError(code, `${failures.length} of ${total} projects cannot be changed; nothing was changed`, failures);
}

function failureOf(projectId: string, err: unknown): BulkFailure | undefined {
  if (!(err instanceof AppError) || err.statusCode >= 500 || err.statusCode === ERROR_STATUS.FORBIDDEN) return undefined;
  return { project_id: projectId, code: err.code, error: err.message };
}

/**
 * Bulk writes: every project goes through the same update a single PUT makes (same checks, same
 * events, same search sync), all in one transaction. Each item runs under a savepoint, so a failing
 * one leaves the transaction usable and the remaining items are still checked; if any failed, the
 * whole transaction rolls back and the error lists every failing item.
 */
export function createBulkService(deps: { db: Kysely<DB>; publicUrl: string }) {
  const { db, publicUrl } = deps;

  const run = (actor: Actor, ids: readonly string[], patch: UpdateProjectBody): Promise<Project[]> =>
    withTransaction(db, async (trx) => {
      const failures: BulkFailure[] = [];
      // Locks in id order, so two bulk writes over overlapping sets cannot deadlock each other.
      const order = [...ids].sort();
      const byId = new Map<string, Project>();
      for (const id of order) {
        await sql`savepoint bulk_item`.execute(trx);
        try {
          byId.set(id, await updateProjectInTrx(trx, actor, id, patch, { publicUrl }));
          await sql`release savepoint bulk_item`.execute(trx);
        } catch (err) {
          const failure = failureOf(id, err);
          if (!failure) throw err;
          failures.push(failure);
          await sql`rollback to savepoint bulk_item`.execute(trx);
        }
      }
      if (failures.length > 0) throw bulkError(failures.sort((a, b) => ids.indexOf(a.project_id) - ids.indexOf(b.project_id)), ids.length);
      return ids.map((id) => byId.get(id)!);
    });

  return {
    assign(actor: Actor, body: BulkAssignBody): Promise<Project[]> {
      if (body.assigned_to === undefined && body.assigned_team_id === undefined) {
        throw validation('body', 'send assigned_to, assigned_team_id or both (null unassigns)');
      }
      const patch: UpdateProjectBody = {};
      if (body.assigned_to !== undefined) patch.assigned_to = body.assigned_to;
      if (body.assigned_team_id !== undefined) patch.assigned_team_id = body.assigned_team_id;
      return run(actor, body.project_ids, patch);
    },

    setStatus(actor: Actor, body: BulkStatusBody): Promise<Project[]> {
      return run(actor, body.project_ids, { status_id: body.status_id });
    },

    update(actor: Actor, body: BulkUpdateBody): Promise<Project[]> {
      return run(actor, body.project_ids, body.fields);
    },
  };
}

export type BulkService = ReturnType<typeof createBulkService>;
