import type { Kysely } from 'kysely';
import type { DB } from '../../../platform/db/schema.ts';
import { AppError } from '../../../platform/http/errors.ts';
import { newId } from '../../../platform/ids.ts';
import type { ExternalIds } from '../../../platform/actions/action.ts';

/** How long a delivery may hold an external id while it creates the record (a crashed holder frees it after this). */
const CLAIM_LEASE_MS = 60_000;
/** How long a delivery waits for another one that is creating the same external id's record. */
const WAIT_MS = 10_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The tenant's map from a sender's ids to records (tenant, entity type, external id → entity id).
 *
 * Direct actions run through the areas' services, each of which commits its own transaction, so the
 * map cannot share that transaction. Creation is made safe by a claim instead: a delivery that is
 * about to create the record for an external id first inserts the map row with a claim token (a unique
 * key, INSERT … ON CONFLICT), creates the record, then fills in its id. A concurrent delivery for the
 * same external id waits for the claim to resolve and then updates the record instead of creating a
 * second one. A claim whose holder died expires after a minute.
 */
export function createExternalIds(db: Kysely<DB>, tenant: string, inboundWebhookId: string): ExternalIds {
  const row = (entityType: string, externalId: string) =>
    db.selectFrom('inbound_external_ids').where('tenant', '=', tenant).where('entity_type', '=', entityType).where('external_id', '=', externalId);

  return {
    /** The record an external id names, if one is recorded. */
    async find(entityType: string, externalId: string): Promise<string | undefined> {
      const found = await row(entityType, externalId).select('entity_id').executeTakeFirst();
      return found?.entity_id ?? undefined;
    },

    /** Drops a mapping whose record no longer exists (only if it still names that record). */
    async forget(entityType: string, externalId: string, entityId: string): Promise<void> {
      await db
        .deleteFrom('inbound_external_ids')
        .where('tenant', '=', tenant)
        .where('entity_type', '=', entityType)
        .where('external_id', '=', externalId)
        .where('entity_id', '=', entityId)
        .execute();
    },

    /**
     * Runs `create` only if no record is mapped to the external id, at most once across concurrent
     * deliveries; otherwise returns the mapped record's id.
     */
    async createOnce<T>(
      entityType: string,
      externalId: string,
      create: () => Promise<{ entityId: string; value: T }>,
    ): Promise<{ created: true; entityId: string; value: T } | { created: false; entityId: string }> {
      const deadline = Date.now() + WAIT_MS;
      while (Date.now() < deadline) {
        const token = newId();
        const now = new Date();
        const claimed = await db
          .insertInto('inbound_external_ids')
          .values({
            tenant,
            entity_type: entityType,
            external_id: externalId,
            entity_id: null,
            claim_token: token,
            claimed_until: new Date(now.getTime() + CLAIM_LEASE_MS),
            inbound_webhook_id: inboundWebhookId,
            created_at: now,
            updated_at: now,
          })
          .onConflict((oc) =>
            oc
              .columns(['tenant', 'entity_type', 'external_id'])
              .doUpdateSet((eb) => ({
                claim_token: eb.ref('excluded.claim_token'),
                claimed_until: eb.ref('excluded.claimed_until'),
                inbound_webhook_id: eb.ref('excluded.inbound_webhook_id'),
                updated_at: eb.ref('excluded.updated_at'),
              }))
              .where('inbound_external_ids.entity_id', 'is', null)
              .where('inbound_external_ids.claimed_until', '<', now),
          )
          .returning('claim_token')
          .executeTakeFirst();
        if (claimed?.claim_token === token) {
          let made: { entityId: string; value: T };
          try {
            made = await create();
          } catch (err) {
            await db.deleteFrom('inbound_external_ids').where('tenant', '=', tenant).where('entity_type', '=', entityType)
              .where('external_id', '=', externalId).where('claim_token', '=', token).where('entity_id', 'is', null).execute();
            throw err;
          }
          await db
            .updateTable('inbound_external_ids')
            .set({ entity_id: made.entityId, claim_token: null, claimed_until: null, updated_at: new Date() })
            .where('tenant', '=', tenant)
            .where('entity_type', '=', entityType)
            .where('external_id', '=', externalId)
            .where('claim_token', '=', token)
            .execute();
          return { created: true, ...made };
        }
        const existing = await row(entityType, externalId).select('entity_id').executeTakeFirst();
        if (existing?.entity_id) return { created: false, entityId: existing.entity_id };
        if (existing) await sleep(50);
      }
      throw new AppError('CONFLICT', `Another delivery is still creating the ${entityType} for external id '${externalId}'; retry later`, {
        entity_type: entityType,
        external_id: externalId,
      });
    },
  };
}
