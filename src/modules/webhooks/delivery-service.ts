import type { SecretBox } from '../../platform/crypto/secret-box.ts';
import type { Database } from '../../platform/db/database.ts';
import type { BackgroundService } from '../../platform/events/worker.ts';
import { OutboundClient, type OutboundClientOptions } from '../../platform/net/outbound-http.ts';
import { WebhookDispatcher, type DispatcherLog, type DispatcherOptions } from './dispatcher.ts';

export interface DeliveryServiceDeps {
  database: Database;
  secretBox: SecretBox;
  log: DispatcherLog;
  /** PSA_WEBHOOK_ALLOW_PRIVATE: CIDRs exempt from the private-address block. */
  allowPrivate: readonly string[];
  /** PSA_WEBHOOK_LEASE_MS. */
  leaseMs?: number;
  /** Extra dispatcher settings (concurrency, batch size…) and client settings (tests inject a lookup). */
  dispatcher?: Omit<Partial<DispatcherOptions>, 'client' | 'secretBox' | 'log'>;
  clientOptions?: Omit<OutboundClientOptions, 'allowPrivate'>;
}

/** The webhook dispatcher as a worker service, with its own SSRF-guarded client (closed on stop). */
export function webhookDeliveryService(deps: DeliveryServiceDeps): BackgroundService {
  let client: OutboundClient | undefined;
  let dispatcher: WebhookDispatcher | undefined;
  return {
    name: 'webhook-dispatcher',
    async start() {
      const concurrency = deps.dispatcher?.concurrency ?? 100;
      client = new OutboundClient({ connections: concurrency, ...deps.clientOptions, allowPrivate: deps.allowPrivate });
      dispatcher = new WebhookDispatcher(deps.database, { leaseMs: deps.leaseMs, ...deps.dispatcher, concurrency, client, secretBox: deps.secretBox, log: deps.log });
      await dispatcher.start();
    },
    async stop() {
      await dispatcher?.stop();
      await client?.close();
    },
  };
}
