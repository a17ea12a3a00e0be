import type { Kysely, Transaction } from 'kysely';
import { notifyAfterCommit, withTransaction } from '../../platform/db/executor.ts';
import type { DB } from '../../platform/db/schema.ts';
import { TenantCache } from '../../platform/tenant-cache.ts';
import { findForReceiver, type InboundWebhookSummaryRow } from './inbound-webhooks.repo.ts';

/** Notified after every committed change to a configuration: each API process drops its cached ones. */
export const RECEIVER_CONFIGS_CHANNEL = 'psa_inbound_webhooks_invalidate';

/**
 * The configurations the receiver has looked up, by tenant slug and webhook slug: a delivery then starts
 * without a round trip. Every write to `inbound_webhooks` goes through `write`, which drops the
 * tenant's entries in this process when it commits and notifies the others (tenant-cache.ts).
 */
export class ReceiverConfigs {
  private readonly cache = new TenantCache<InboundWebhookSummaryRow>((w) => w.tenant);

  constructor(private readonly db: Kysely<DB>) {}

  find(tenantSlug: string, webhookSlug: string): Promise<InboundWebhookSummaryRow | undefined> {
    return this.cache.get(`${tenantSlug}/${webhookSlug}`, () => findForReceiver(this.db, tenantSlug, webhookSlug));
  }

  /** Runs `fn` in a transaction that changes configurations of `tenant`; the cached ones go when it commits. */
  async write<T>(tenant: string, fn: (trx: Transaction<DB>) => Promise<T>): Promise<T> {
    const result = await withTransaction(this.db, async (trx) => {
      notifyAfterCommit(trx, RECEIVER_CONFIGS_CHANNEL);
      return fn(trx);
    });
    this.cache.invalidateTenant(tenant);
    return result;
  }

  /** What another process's change notified: it names no tenant, so everything goes (changes are rare). */
  clear(): void {
    this.cache.clear();
  }

  /**
   * A change to the tenant's users (the auth channel): deleting a user clears `created_by_user_id` on the
   * configurations they made, a write that does not pass through here.
   */
  invalidateTenant(tenant: string): void {
    this.cache.invalidateTenant(tenant);
  }
}
