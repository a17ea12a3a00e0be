import { iso } from '../../../platform/time.ts';
import type { Kysely } from 'kysely';
import type { Actor } from '../../../platform/auth/context.ts';
import { withTransaction, type Executor } from '../../../platform/db/executor.ts';
import type { DB } from '../../../platform/db/schema.ts';
import { conflict, notFound } from '../../../platform/http/errors.ts';
import { optionalText } from '../../../platform/http/text.ts';
import { requireVisibleTicket, visibleTicketsCondition } from '../../tickets/index.ts';
import { requireVisibleAsset } from '../assets.access.ts';
import type { CreateTicketLinkBody, ListTicketLinksQuery, TicketLink } from './ticket-links.schemas.ts';

function linksOf(db: Executor, tenant: string, assetId: string) {
  return db
    .selectFrom('asset_ticket_links as l')
    .innerJoin('tickets as t', (j) => j.onRef('t.tenant', '=', 'l.tenant').onRef('t.ticket_id', '=', 'l.ticket_id'))
    .innerJoin('ticket_statuses as s', (j) => j.onRef('s.tenant', '=', 't.tenant').onRef('s.status_id', '=', 't.status_id'))
    .where('l.tenant', '=', tenant)
    .where('l.asset_id', '=', assetId)
    .select([
      'l.asset_id', 'l.ticket_id', 't.ticket_number', 't.title', 't.status_id', 's.name as status_name', 's.is_closed', 't.client_id',
      'l.relationship_type', 'l.notes', 'l.created_by as linked_by', 'l.created_at as linked_at',
    ]);
}

type Row = Awaited<ReturnType<ReturnType<typeof linksOf>['execute']>>[number];
const toLink = (r: Row): TicketLink => ({ ...r, linked_at: iso(r.linked_at) });

/** Links between an asset and tickets. Both must be visible to the caller (404 otherwise). */
export function createTicketLinksService(deps: { db: Kysely<DB> }) {
  const { db } = deps;
  return {
    /** Tickets a portal key may not see (another client's, possible for internal links; see canSeeTicket) are hidden from it. */
    async list(actor: Actor, assetId: string, query: ListTicketLinksQuery): Promise<TicketLink[]> {
      await requireVisibleAsset(db, actor, assetId);
      let q = linksOf(db, actor.tenant, assetId);
      if (query.is_closed !== undefined) q = q.where('s.is_closed', '=', query.is_closed);
      const visible = visibleTicketsCondition(actor);
      if (visible !== undefined) q = q.where(visible);
      const rows = await q.orderBy('l.created_at', 'desc').orderBy('l.ticket_id', 'desc').execute();
      return rows.map(toLink);
    },

    async link(actor: Actor, assetId: string, body: CreateTicketLinkBody): Promise<TicketLink> {
      return withTransaction(db, async (trx) => {
        await requireVisibleAsset(trx, actor, assetId, 'share');
        await requireVisibleTicket(trx, actor, body.ticket_id);
        const inserted = await trx
          .insertInto('asset_ticket_links')
          .values({
            tenant: actor.tenant,
            asset_id: assetId,
            ticket_id: body.ticket_id,
            relationship_type: body.relationship_type ?? 'affected',
            notes: optionalText(body.notes) ?? null,
            created_by: actor.userId,
          })
          .onConflict((oc) => oc.columns(['tenant', 'asset_id', 'ticket_id']).doNothing())
          .returning('ticket_id')
          .executeTakeFirst();
        if (!inserted) throw conflict(`Ticket '${body.ticket_id}' is already linked to this asset`);
        return toLink(await linksOf(trx, actor.tenant, assetId).where('l.ticket_id', '=', body.ticket_id).executeTakeFirstOrThrow());
      });
    },

    async unlink(actor: Actor, assetId: string, ticketId: string): Promise<void> {
      await withTransaction(db, async (trx) => {
        await requireVisibleAsset(trx, actor, assetId, 'share');
        await requireVisibleTicket(trx, actor, ticketId);
        const gone = await trx
          .deleteFrom('asset_ticket_links')
          .where('tenant', '=', actor.tenant)
          .where('asset_id', '=', assetId)
          .where('ticket_id', '=', ticketId)
          .executeTakeFirst();
        if (Number(gone.numDeletedRows) === 0) throw notFound('Asset-ticket link', ticketId);
      });
    },
  };
}

export type TicketLinksService = ReturnType<typeof createTicketLinksService>;
