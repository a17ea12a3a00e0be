import { sql, type Transaction } from 'kysely';
import type { Executor } from '../../platform/db/executor.ts';
import type { DB } from '../../platform/db/schema.ts';
import { syncSearch } from '../../platform/search/writer.ts';
import type { MergeContext, MergeParticipant } from '../clients/index.ts';
import { emitProjectEvents } from './projects.events.ts';
import { findProjectViews } from './projects.repo.ts';
import { resyncProjectTrees } from './projects.resync.ts';
import { PROJECT_EVENTS } from './projects.vocabulary.ts';

/** Moved projects are read back (for their events) this many at a time. */
const BATCH = 500;

export type ProjectsMergeCounts = { projects: number };

/**
 * The projects area's part in a client merge (`POST /clients/{id}/merge`, run by the clients area in one
 * transaction with the source and target client rows locked). Only `projects` names a client in this area:
 * phases, tasks, checklists and comments follow their project.
 *
 * Every project of the source moves to the target in one UPDATE; each emits `project.updated` with
 * `changes.client_id` and `merge: true`, and the project's search rows and those of its whole tree (they
 * carry its client for portal scoping) are re-synced.
 */
export function projectsMergeParticipant(deps: { publicUrl: string }): MergeParticipant {
  const { publicUrl } = deps;
  return {
    name: 'projects',

    async count(db: Executor, ctx: MergeContext): Promise<ProjectsMergeCounts> {
      const row = await db
        .selectFrom('projects')
        .select(sql<number>`count(*)::int`.as('n'))
        .where('tenant', '=', ctx.tenant)
        .where('client_id', '=', ctx.sourceId)
        .executeTakeFirstOrThrow();
      return { projects: Number(row.n) };
    },

    async move(trx: Transaction<DB>, ctx: MergeContext): Promise<ProjectsMergeCounts> {
      const { tenant, sourceId, targetId } = ctx;
      const moved = await trx
        .updateTable('projects')
        .set({
          client_id: targetId,
          updated_at: sql<Date>`now()`,
          ...(ctx.actorUserId === null ? {} : { updated_by: ctx.actorUserId }),
        })
        .where('tenant', '=', tenant)
        .where('client_id', '=', sourceId)
        .returning('project_id')
        .execute();
      const ids = moved.map((r) => r.project_id);
      if (ids.length === 0) return { projects: 0 };

      await syncSearch(trx, tenant, 'project', ids);
      await resyncProjectTrees(trx, tenant, ids);

      const changes = { client_id: { previous: sourceId, new: targetId } };
      for (let i = 0; i < ids.length; i += BATCH) {
        const rows = await findProjectViews(trx, tenant, ids.slice(i, i + BATCH));
        rows.sort((a, b) => a.project_seq - b.project_seq);
        for (const row of rows) await emitProjectEvents(trx, row, [PROJECT_EVENTS.updated], { publicUrl, changes, merge: true });
      }
      return { projects: ids.length };
    },
  };
}
