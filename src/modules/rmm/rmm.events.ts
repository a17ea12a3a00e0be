import type { Transaction } from 'kysely';
import type { DB } from '../../platform/db/schema.ts';
import { emit } from '../../platform/events/outbox.ts';

/**
 * Internal events of the RMM area (not in the public vocabulary, so never delivered to webhooks).
 * Payloads carry ids, names and outcomes; never credentials, session URLs or script output.
 */
export const RMM_EVENTS = {
  integrationCreated: 'rmm.integration.created',
  integrationUpdated: 'rmm.integration.updated',
  integrationDeleted: 'rmm.integration.deleted',
  assetLinked: 'asset.rmm.linked',
  assetUnlinked: 'asset.rmm.unlinked',
  commandRun: 'asset.rmm.command',
} as const;

export type RmmEventType = (typeof RMM_EVENTS)[keyof typeof RMM_EVENTS];

export const emitIntegrationEvent = (trx: Transaction<DB>, tenant: string, type: RmmEventType, integrationId: string, extra: Record<string, unknown> = {}) =>
  emit(trx, { tenant, event_type: type, aggregate_type: 'rmm_integration', aggregate_id: integrationId, payload: { integration_id: integrationId, ...extra } });

export const emitAssetRmmEvent = (trx: Transaction<DB>, tenant: string, type: RmmEventType, assetId: string, extra: Record<string, unknown> = {}) =>
  emit(trx, { tenant, event_type: type, aggregate_type: 'asset', aggregate_id: assetId, payload: { asset_id: assetId, ...extra } });
