import { sql, type Transaction } from 'kysely';
import type { Executor } from '../../platform/db/executor.ts';
import type { DB } from '../../platform/db/schema.ts';
import { syncSearch } from '../../platform/search/writer.ts';
import type { MergeContext, MergeParticipant } from '../clients/index.ts';
import { CONTACT_EVENTS, emitContactEvent } from './contacts.events.ts';

export type ContactsMergeCounts = { contacts: number };

/**
 * The contacts area's part in a client merge (`POST /clients/{id}/merge`, run by the clients area in one
 * transaction with the source and target client rows locked).
 *
 * Every contact of the source moves to the target in one UPDATE, keeping its id: its links to billing
 * profiles (billing_profile_contacts, the clients area's, keyed by profile and contact) stay as they are, and
 * portal users (`users.client_id`) stay on the tombstone — neither is touched here. Each moved contact emits
 * `contact.updated` `{ contact_id, client_id, changed_fields: ['client_id'], previous_client_id, merge: true }`
 * and is re-synced in search (its subtitle names the client).
 */
export function contactsMergeParticipant(): MergeParticipant {
  return {
    name: 'contacts',

    async count(db: Executor, ctx: MergeContext): Promise<ContactsMergeCounts> {
      const row = await db
        .selectFrom('contacts')
        .select(sql<number>`count(*)::int`.as('n'))
        .where('tenant', '=', ctx.tenant)
        .where('client_id', '=', ctx.sourceId)
        .executeTakeFirstOrThrow();
      return { contacts: Number(row.n) };
    },

    async move(trx: Transaction<DB>, ctx: MergeContext): Promise<ContactsMergeCounts> {
      const { tenant, sourceId, targetId } = ctx;
      const moved = await trx
        .updateTable('contacts')
        .set({ client_id: targetId, updated_at: sql<Date>`now()` })
        .where('tenant', '=', tenant)
        .where('client_id', '=', sourceId)
        .returning('contact_id')
        .execute();
      const ids = moved.map((r) => r.contact_id).sort();
      if (ids.length === 0) return { contacts: 0 };

      await syncSearch(trx, tenant, 'contact', ids);
      const extra = { changed_fields: ['client_id'], previous_client_id: sourceId, merge: true };
      for (const id of ids) await emitContactEvent(trx, tenant, CONTACT_EVENTS.updated, { contact_id: id, client_id: targetId }, extra);
      return { contacts: ids.length };
    },
  };
}
