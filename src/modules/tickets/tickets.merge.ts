import { sql, type Transaction } from 'kysely';
import type { Executor } from '../../platform/db/executor.ts';
import type { DB } from '../../platform/db/schema.ts';
import { syncSearch } from '../../platform/search/writer.ts';
import type { MergeContext, MergeParticipant } from '../clients/index.ts';
import { emitTicketEvents } from './tickets.events.ts';
import { findTicketViews } from './tickets.repo.ts';
import { TICKET_EVENTS } from './tickets.vocabulary.ts';

/** Moved tickets are read back (for their events) this many at a time. */
const BATCH = 500;

export type TicketsMergeCounts = { tickets: number };

/**
 * The tickets area's part in a client merge (`POST /clients/{id}/merge`, run by the clients area in one
 * transaction with the source and target client rows locked). No other table of the area names a client.
 *
 * Every ticket of the source moves to the target in one UPDATE. A ticket that belongs to no billing profile
 * gets the source's default profile (`ctx.profileIds[0]`): it remembers where it came from, so the portal
 * rule (tickets.rules.ts canSeeTicket) keeps it readable for that profile's contacts with
 * can_view_profile_tickets, while the target's own portal users do not gain it. Each moved ticket emits
 * `ticket.updated` with `changes.client_id` and `merge: true` (notifications suppressed: a merge is
 * book-keeping, not news for the contact), and its search rows and its comments' are re-synced (the
 * subtitle names the client, the portal scope follows the profile).
 */
export function ticketsMergeParticipant(deps: { publicUrl: string }): MergeParticipant {
  const { publicUrl } = deps;
  return {
    name: 'tickets',

    async count(db: Executor, ctx: MergeContext): Promise<TicketsMergeCounts> {
      const row = await db
        .selectFrom('tickets')
        .select(sql<number>`count(*)::int`.as('n'))
        .where('tenant', '=', ctx.tenant)
        .where('client_id', '=', ctx.sourceId)
        .executeTakeFirstOrThrow();
      return { tickets: Number(row.n) };
    },

    async move(trx: Transaction<DB>, ctx: MergeContext): Promise<TicketsMergeCounts> {
      const { tenant, sourceId, targetId } = ctx;
      const profileId = ctx.profileIds[0] ?? null;
      const moved = await trx
        .updateTable('tickets')
        .set({
          client_id: targetId,
          ...(profileId === null ? {} : { billing_profile_id: sql<string>`coalesce(billing_profile_id, ${profileId}::uuid)` }),
          updated_at: sql<Date>`now()`,
          ...(ctx.actorUserId === null ? {} : { updated_by: ctx.actorUserId }),
        })
        .where('tenant', '=', tenant)
        .where('client_id', '=', sourceId)
        .returning('ticket_id')
        .execute();
      const ids = moved.map((r) => r.ticket_id);
      if (ids.length === 0) return { tickets: 0 };

      await syncSearch(trx, tenant, 'ticket', ids);
      const { rows: comments } = await sql<{ id: string }>`
        select comment_id as id from ticket_comments where tenant = ${tenant} and ticket_id = any(${ids}::uuid[])
      `.execute(trx);
      await syncSearch(trx, tenant, 'ticket_comment', comments.map((r) => r.id));

      const changes = { client_id: { previous: sourceId, new: targetId } };
      const suppress = { internal: true, contact: true };
      for (let i = 0; i < ids.length; i += BATCH) {
        for (const row of await findTicketViews(trx, tenant, ids.slice(i, i + BATCH))) {
          await emitTicketEvents(trx, row, [TICKET_EVENTS.updated], { previousStatus: null, suppress, publicUrl }, { changes, merge: true });
        }
      }
      return { tickets: ids.length };
    },
  };
}
