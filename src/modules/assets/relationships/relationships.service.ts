import { iso } from '../../../platform/time.ts';
import { sql, type Kysely } from 'kysely';
import type { Actor } from '../../../platform/auth/context.ts';
import { withTransaction, type Executor } from '../../../platform/db/executor.ts';
import type { DB } from '../../../platform/db/schema.ts';
import { conflict, notFound, validation } from '../../../platform/http/errors.ts';
import { newId } from '../../../platform/ids.ts';
import { canSeeClient } from '../../clients/index.ts';
import { requireVisibleAsset } from '../assets.access.ts';
import type { CreateRelationshipBody, ListRelationshipsQuery, Relationship } from './relationships.schemas.ts';

/** Relationship rows seen from one asset: the other end's summary and which way the link points. */
function relationshipsOf(db: Executor, tenant: string, assetId: string) {
  return db
    .selectFrom('asset_relationships as r')
    .innerJoin('assets as o', (j) =>
      j.onRef('o.tenant', '=', 'r.tenant').on(sql<boolean>`o.asset_id = case when r.asset_id = ${assetId}::uuid then r.related_asset_id else r.asset_id end`),
    )
    .where('r.tenant', '=', tenant)
    .where((eb) => eb.or([eb('r.asset_id', '=', assetId), eb('r.related_asset_id', '=', assetId)]))
    .select([
      'r.relationship_id', 'r.relationship_type', 'r.asset_id as source_id', 'r.created_at',
      'o.asset_id as other_id', 'o.asset_tag', 'o.name', 'o.asset_type', 'o.status', 'o.client_id as other_client_id',
    ]);
}

type Row = Awaited<ReturnType<ReturnType<typeof relationshipsOf>['execute']>>[number];

const toRelationship = (assetId: string, r: Row): Relationship => ({
  relationship_id: r.relationship_id,
  relationship_type: r.relationship_type,
  direction: r.source_id === assetId ? 'outgoing' : 'incoming',
  asset_id: assetId,
  related_asset_id: r.other_id,
  related_asset_tag: r.asset_tag,
  related_asset_name: r.name,
  related_asset_type: r.asset_type,
  related_asset_status: r.status,
  created_at: iso(r.created_at),
});

export function createRelationshipsService(deps: { db: Kysely<DB> }) {
  const { db } = deps;
  return {
    /** Both directions; a portal key sees only links whose other end is also its client's. */
    async list(actor: Actor, assetId: string, query: ListRelationshipsQuery): Promise<Relationship[]> {
      await requireVisibleAsset(db, actor, assetId);
      let q = relationshipsOf(db, actor.tenant, assetId);
      if (query.relationship_type) q = q.where('r.relationship_type', '=', query.relationship_type);
      if (query.direction === 'outgoing') q = q.where('r.asset_id', '=', assetId);
      if (query.direction === 'incoming') q = q.where('r.related_asset_id', '=', assetId);
      const rows = await q.orderBy('r.created_at', 'desc').orderBy('r.relationship_id', 'desc').execute();
      return rows.filter((r) => canSeeClient(actor, r.other_client_id)).map((r) => toRelationship(assetId, r));
    },

    /** No self links (400); the related asset must be visible (404); the same link either way round is a 409. */
    async create(actor: Actor, assetId: string, body: CreateRelationshipBody): Promise<Relationship> {
      if (body.related_asset_id === assetId) throw validation('body.related_asset_id', 'an asset cannot be related to itself');
      return withTransaction(db, async (trx) => {
        await requireVisibleAsset(trx, actor, assetId);
        // Both ends locked in id order: two opposite creates neither deadlock nor both pass the duplicate check.
        for (const id of [assetId, body.related_asset_id].sort()) {
          try {
            await requireVisibleAsset(trx, actor, id, 'update');
          } catch (err) {
            throw id === body.related_asset_id ? notFound('Related asset', id) : err;
          }
        }
        const existing = await trx
          .selectFrom('asset_relationships')
          .select('relationship_id')
          .where('tenant', '=', actor.tenant)
          .where('relationship_type', '=', body.relationship_type)
          .where((eb) =>
            eb.or([
              eb.and([eb('asset_id', '=', assetId), eb('related_asset_id', '=', body.related_asset_id)]),
              eb.and([eb('asset_id', '=', body.related_asset_id), eb('related_asset_id', '=', assetId)]),
            ]),
          )
          .executeTakeFirst();
        if (existing) {
          throw conflict(`These assets are already linked as ${body.relationship_type}`, { relationship_id: existing.relationship_id });
        }
        const relationshipId = newId();
        await trx
          .insertInto('asset_relationships')
          .values({ tenant: actor.tenant, relationship_id: relationshipId, asset_id: assetId, related_asset_id: body.related_asset_id, relationship_type: body.relationship_type, created_by: actor.userId })
          .execute();
        const row = await relationshipsOf(trx, actor.tenant, assetId).where('r.relationship_id', '=', relationshipId).executeTakeFirstOrThrow();
        return toRelationship(assetId, row);
      });
    },

    /** 404 unless both ends are visible to the actor. */
    async remove(actor: Actor, relationshipId: string): Promise<void> {
      await withTransaction(db, async (trx) => {
        const row = await trx.selectFrom('asset_relationships').selectAll().where('tenant', '=', actor.tenant).where('relationship_id', '=', relationshipId).forUpdate().executeTakeFirst();
        if (!row) throw notFound('Asset relationship', relationshipId);
        try {
          await requireVisibleAsset(trx, actor, row.asset_id);
          await requireVisibleAsset(trx, actor, row.related_asset_id);
        } catch {
          throw notFound('Asset relationship', relationshipId);
        }
        await trx.deleteFrom('asset_relationships').where('tenant', '=', actor.tenant).where('relationship_id', '=', relationshipId).execute();
      });
    },
  };
}

export type RelationshipsService = ReturnType<typeof createRelationshipsService>;
