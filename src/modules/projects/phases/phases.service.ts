import type { Kysely } from 'kysely';
import type { Actor } from '../../../platform/auth/context.ts';
import { withTransaction } from '../../../platform/db/executor.ts';
import type { DB } from '../../../platform/db/schema.ts';
import { listPage } from '../../../platform/http/list.ts';
import { requireVisibleProject } from '../projects.rules.ts';
import { phaseList } from './phases.repo.ts';
import { toPhase, type CreatePhaseBody, type ListPhasesQuery, type Phase, type UpdatePhaseBody } from './phases.schemas.ts';
import { createPhaseInTrx, deletePhaseInTrx, updatePhaseInTrx } from './phases.writes.ts';

export function createPhasesService(deps: { db: Kysely<DB> }) {
  const { db } = deps;
  return {
    async list(actor: Actor, projectId: string, query: ListPhasesQuery) {
      await requireVisibleProject(db, actor, projectId);
      return listPage(query, phaseList(db, actor.tenant, projectId), (rows) => rows.map(toPhase));
    },
    create(actor: Actor, projectId: string, body: CreatePhaseBody): Promise<Phase> {
      return withTransaction(db, (trx) => createPhaseInTrx(trx, actor, projectId, body));
    },
    update(actor: Actor, projectId: string, phaseId: string, body: UpdatePhaseBody, ifMatch?: string): Promise<Phase> {
      return withTransaction(db, (trx) => updatePhaseInTrx(trx, actor, projectId, phaseId, body, ifMatch));
    },
    remove(actor: Actor, projectId: string, phaseId: string, opts: { force?: boolean; ifMatch?: string }): Promise<void> {
      return withTransaction(db, (trx) => deletePhaseInTrx(trx, actor, projectId, phaseId, opts));
    },
  };
}

export type PhasesService = ReturnType<typeof createPhasesService>;
