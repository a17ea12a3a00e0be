import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Kysely } from 'kysely';
import type { Config } from '../../config.ts';
import type { SecretBox } from '../../platform/crypto/secret-box.ts';
import type { DB } from '../../platform/db/schema.ts';
import { MemoryBucketStore, type BucketStore } from '../../platform/http/rate-limit/token-bucket.ts';
import { createBillingModule, type BillingApi } from '../billing/index.ts';
import { createClientsModule, type ClientsApi } from '../clients/index.ts';
import { defineModule, V1 } from '../deps.ts';
import type { OurBooks } from './books.ts';
import { ourBooks } from './books.wire.ts';
import { connectionRoutes } from './connection/connection.routes.ts';
import { createConnectionsService } from './connection/connections.service.ts';
import { healthRoutes } from './health/health.routes.ts';
import { createHealthService } from './health/health.service.ts';
import { LEDGER_EVENT_TYPES } from './ledger.events.ts';
import { mappingsRoutes } from './mappings/mappings.routes.ts';
import { createMappingsService } from './mappings/mappings.service.ts';
import type { LedgerProvider } from './providers/provider.ts';
import { ledgerProviderOf } from './providers/registry.ts';
import { healthMonitorSchedule } from './health/monitor.ts';
import { OutboundClient } from '../../platform/net/outbound-http.ts';
import { referenceRoutes } from './reference/reference.routes.ts';
import { createReferenceService } from './reference/reference.service.ts';
import { syncRoutes } from './sync/sync.routes.ts';
import { createSyncService, LEDGER_SYNC_JOB } from './sync/sync.service.ts';

export type { LedgerProvider } from './providers/provider.ts';

export interface LedgerModuleDeps {
  db: Kysely<DB>;
  secretBox: SecretBox;
  config: Pick<Readonly<Config>, 'publicUrl' | 'quickbooks' | 'authFailureLimit'>;
  /** Rate-limit buckets: refused OAuth callbacks count against the address like failed API keys. */
  buckets?: BucketStore;
  books: OurBooks;
  /** Tests inject an adapter; the default is the one the configuration names. */
  provider?: LedgerProvider;
}

/**
 * The accounting-ledger integration (QuickBooks Online): OAuth connection per company, reference data read
 * through, one mapping ledger, customer sync and invoice export as recorded runs, bulk and full syncs in the worker.
 */
export function createLedgerModule(deps: LedgerModuleDeps) {
  const provider = deps.provider ?? ledgerProviderOf(deps.config);
  const connections = createConnectionsService({ db: deps.db, secretBox: deps.secretBox, provider, publicUrl: deps.config.publicUrl });
  const reference = createReferenceService(connections);
  const mappings = createMappingsService({ db: deps.db, connections, reference, books: deps.books });
  const sync = createSyncService({ db: deps.db, connections, reference, books: deps.books });
  const health = createHealthService({ db: deps.db, connections });
  const routes: FastifyPluginAsyncTypebox = async (app) => {
    const buckets = deps.buckets ?? new MemoryBucketStore();
    await app.register(connectionRoutes(connections, {
      publicUrl: deps.config.publicUrl,
      provider: provider?.name ?? 'quickbooks_online',
      limitFailures: (ip) => buckets.take(`authfail:${ip}`, deps.config.authFailureLimit),
    }));
    await app.register(referenceRoutes(reference));
    await app.register(mappingsRoutes(mappings));
    await app.register(syncRoutes(sync));
    await app.register(healthRoutes(health));
  };
  return { connections, reference, mappings, sync, health, routes };
}

export const ledgerModule = defineModule({
  name: 'ledger',
  // admin: disconnect, full sync, health configuration, diagnostics.
  permissions: [{ resource: 'ledger', actions: ['read', 'write', 'admin'], roles: { Manager: ['read'], Finance: ['read', 'write', 'admin'] } }],
  events: { types: LEDGER_EVENT_TYPES },
  build: (deps) => {
    const books = ourBooks(deps.services<ClientsApi>('clients'), deps.services<BillingApi>('billing'));
    const ledger = createLedgerModule({ db: deps.db, secretBox: deps.secretBox, config: deps.config, books, buckets: deps.buckets });
    return { api: ledger, routes: [{ prefix: V1, plugin: ledger.routes }] };
  },
  worker: (deps) => {
    const books = ourBooks(createClientsModule({ db: deps.db }), createBillingModule({ db: deps.db }));
    const ledger = createLedgerModule({ db: deps.db, secretBox: deps.secretBox, config: deps.config, books });
    let own: OutboundClient | undefined;
    const outbound = () => deps.outbound ?? (own ??= new OutboundClient({ allowPrivate: deps.config.webhookAllowPrivate }));
    const monitor = { db: deps.db, health: ledger.health, mailer: deps.mailer, log: deps.log, postJson: (url: string, body: string) => outbound().post(url, body, { 'content-type': 'application/json' }, 10_000) };
    return {
      jobs: [{ name: LEDGER_SYNC_JOB, maxAttempts: 3, handle: (payload, ctx) => ledger.sync.execute(ctx.tenant, String((payload as { sync_id: string }).sync_id)) }],
      schedules: [healthMonitorSchedule(monitor)],
    };
  },
});
