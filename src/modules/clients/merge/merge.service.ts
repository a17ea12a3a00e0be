import type { Kysely, Transaction } from 'kysely';
import type { Actor } from '../../../platform/auth/context.ts';
import { withTransaction, type Executor } from '../../../platform/db/executor.ts';
import type { DB } from '../../../platform/db/schema.ts';
import { AppError, notFound } from '../../../platform/http/errors.ts';
import { syncSearch } from '../../../platform/search/writer.ts';
import { utcDate } from '../../../platform/time.ts';
import { canSeeClient } from '../clients.access.ts';
import { CLIENT_EVENTS, emitClientEvent } from '../clients.events.ts';
import { ancestorsOf } from '../clients.hierarchy.ts';
import { toClient } from '../clients.mapper.ts';
import { findClientRow, findClientView, type ClientRow } from '../clients.repo.ts';
import type { ClientMerges, MergeBlocker, MergeContext } from './merge.participants.ts';
import { moveOwn, ownCounts, profilesOf } from './merge.repo.ts';
import type { MergeBody } from './merge.schemas.ts';

interface Parties {
  source: ClientRow;
  target: ClientRow;
  ctx: MergeContext;
  profiles: { billing_profile_id: string; name: string }[];
}

/** The blockers every merge checks before the areas add theirs. */
async function clientBlockers(db: Executor, { source, target }: Parties): Promise<MergeBlocker[]> {
  if (source.client_id === target.client_id) {
    return [{ code: 'same_client', message: `Client '${source.client_name}' cannot be merged into itself`, details: { client_id: source.client_id } }];
  }
  const blockers: MergeBlocker[] = [];
  if (source.merged_into_client_id) {
    blockers.push({ code: 'source_merged', message: `Client '${source.client_name}' was already merged into '${source.merged_into_client_id}'`, details: { merged_into_client_id: source.merged_into_client_id } });
  }
  if (target.merged_into_client_id) {
    blockers.push({ code: 'target_merged', message: `Client '${target.client_name}' was merged into '${target.merged_into_client_id}'; merge into that client instead`, details: { merged_into_client_id: target.merged_into_client_id } });
  }
  if (target.is_inactive) {
    blockers.push({ code: 'target_inactive', message: `Client '${target.client_name}' is inactive; activate it before merging into it`, details: { target_client_id: target.client_id } });
  }
  // The source's children become the target's: if the target sits below the source, it would become its own ancestor.
  const above = await ancestorsOf(db, source.tenant, target.client_id);
  if (above.includes(source.client_id)) {
    blockers.push({
      code: 'parent_cycle',
      message: `Client '${target.client_name}' is below '${source.client_name}' in the client hierarchy; merging would make it its own ancestor`,
      details: { target_ancestors: above },
    });
  }
  return blockers;
}

/**
 * Merges one client (the source, by path id) into another: a preview that commits nothing, and the merge
 * itself, one transaction that re-parents the source's billing profiles, has every area re-attribute its
 * records, and leaves the source a read-only tombstone pointing at the target.
 */
export function createMergeService(deps: { db: Kysely<DB>; merges: ClientMerges }) {
  const { db, merges } = deps;

  /** Both clients, visible to the actor (else 404); on a merge both rows are locked, in id order so two merges cannot deadlock. */
  async function parties(ex: Executor, actor: Actor, sourceId: string, body: MergeBody, lock: boolean): Promise<Parties> {
    const ids = [...new Set([sourceId, body.target_client_id])].sort();
    const rows = new Map<string, ClientRow>();
    for (const id of ids) {
      const row = canSeeClient(actor, id) ? await findClientRow(ex, actor.tenant, id, lock ? 'update' : 'none') : undefined;
      if (!row) throw notFound('Client', id);
      rows.set(id, row);
    }
    const source = rows.get(sourceId)!;
    const target = rows.get(body.target_client_id)!;
    const profiles = await profilesOf(ex, actor.tenant, sourceId);
    const ctx: MergeContext = {
      tenant: actor.tenant,
      sourceId,
      targetId: target.client_id,
      cutoverDate: body.cutover_date ?? utcDate(),
      profileIds: profiles.map((p) => p.billing_profile_id),
      actorUserId: actor.userId,
    };
    return { source, target, ctx, profiles };
  }

  async function blockersOf(ex: Executor, p: Parties): Promise<MergeBlocker[]> {
    const blockers = await clientBlockers(ex, p);
    if (blockers.some((b) => b.code === 'same_client')) return blockers;
    for (const participant of merges.all()) if (participant.blockers) blockers.push(...(await participant.blockers(ex, p.ctx)));
    return blockers;
  }

  async function counts(ex: Executor, p: Parties): Promise<Record<string, number>> {
    const all = await ownCounts(ex, p.ctx.tenant, p.ctx.sourceId);
    for (const participant of merges.all()) Object.assign(all, await participant.count(ex, p.ctx));
    return all;
  }

  return {
    /** What the merge would move and what stops it; commits nothing. */
    async preview(actor: Actor, sourceId: string, body: MergeBody) {
      const p = await parties(db, actor, sourceId, body, false);
      return {
        plan: {
          source_client_id: p.source.client_id,
          source_client_name: p.source.client_name,
          target_client_id: p.target.client_id,
          target_client_name: p.target.client_name,
          cutover_date: p.ctx.cutoverDate,
          counts: await counts(db, p),
          billing_profiles: p.profiles,
        },
        blockers: await blockersOf(db, p),
      };
    },

    /**
     * The merge: refused with 409 and the blockers when any exist. Writes to the source made by other
     * requests hold its row FOR SHARE, so they finish before the merge locks it or wait and then find a
     * tombstone; a second merge of the same source waits and then finds it merged.
     */
    async merge(actor: Actor, sourceId: string, body: MergeBody) {
      return withTransaction(db, async (trx: Transaction<DB>) => {
        const p = await parties(trx, actor, sourceId, body, true);
        const blockers = await blockersOf(trx, p);
        if (blockers.length > 0) {
          throw new AppError('CONFLICT', `Client '${p.source.client_name}' cannot be merged into '${p.target.client_name}': ${blockers.map((b) => b.message).join('; ')}`, { blockers });
        }
        const moved = await moveOwn(trx, p.ctx.tenant, p.ctx.sourceId, p.ctx.targetId);
        for (const participant of merges.all()) Object.assign(moved, await participant.move(trx, p.ctx));
        const now = new Date();
        await trx.updateTable('clients').set({ merged_into_client_id: p.ctx.targetId, merged_at: now, merged_by: actor.userId, updated_at: now })
          .where('tenant', '=', p.ctx.tenant).where('client_id', '=', p.ctx.sourceId).execute();
        await emitClientEvent(trx, p.ctx.tenant, CLIENT_EVENTS.merged, p.ctx.sourceId, {
          target_client_id: p.ctx.targetId,
          cutover_date: p.ctx.cutoverDate,
          billing_profile_ids: p.ctx.profileIds,
          counts: moved,
          merged_by: actor.userId,
        });
        await syncSearch(trx, p.ctx.tenant, 'client', [p.ctx.sourceId, p.ctx.targetId]);
        return {
          source: toClient((await findClientView(trx, p.ctx.tenant, p.ctx.sourceId))!),
          target: toClient((await findClientView(trx, p.ctx.tenant, p.ctx.targetId))!),
          counts: moved,
        };
      });
    },
  };
}

export type MergeService = ReturnType<typeof createMergeService>;
