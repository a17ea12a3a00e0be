import type { Actor } from '../../../platform/auth/context.ts';
import { withTransaction } from '../../../platform/db/executor.ts';
import { AppError, conflict } from '../../../platform/http/errors.ts';
import { requireVisibleAsset } from '../../assets/index.ts';
import { connectionOf } from '../integrations/credentials.ts';
import { providerOf, requireIntegration, type RmmDeps } from '../integrations/integrations.service.ts';
import { RmmProviderError } from '../providers/provider.ts';
import { toApiError } from '../rmm.errors.ts';
import { RMM_EVENTS, emitAssetRmmEvent } from '../rmm.events.ts';
import { toAssetRmm, toSoftwarePage } from './asset-rmm.mapper.ts';
import { assetOfDevice, deleteLink, saveLink } from './asset-rmm.repo.ts';
import { assertInternal, requireLink } from './asset-rmm.rules.ts';
import type { AssetRmm, LinkBody, SoftwareQuery } from './asset-rmm.schemas.ts';

/** Reading an asset's cached RMM data, and linking it to (or unlinking it from) a device. */
export function createAssetRmmService(deps: RmmDeps) {
  const { db, secretBox, providers } = deps;

  return {
    async get(actor: Actor, assetId: string): Promise<AssetRmm> {
      await requireVisibleAsset(db, actor, assetId);
      return toAssetRmm(await requireLink(db, actor.tenant, assetId));
    },

    /** The inventory from the last sync; an empty list with meta.last_synced_at null before the first one. */
    async software(actor: Actor, assetId: string, query: SoftwareQuery) {
      await requireVisibleAsset(db, actor, assetId);
      return toSoftwarePage(await requireLink(db, actor.tenant, assetId), query);
    },

    /**
     * Fetches the device (which proves it exists and the key reaches it) and its software, then stores the
     * link with that cache. The provider is called before the transaction opens; the transaction re-checks.
     */
    async link(actor: Actor, assetId: string, body: LinkBody): Promise<AssetRmm> {
      assertInternal(actor);
      await requireVisibleAsset(db, actor, assetId);
      const integration = await requireIntegration(db, actor.tenant, body.integration_id);
      if (!integration.is_active) throw conflict(`The RMM integration '${integration.name}' is inactive`, { reason: 'integration_inactive' });
      const owner = await assetOfDevice(db, actor.tenant, body.integration_id, body.device_id);
      if (owner && owner !== assetId) throw deviceTaken(owner);
      const provider = providerOf(providers, integration);
      const conn = connectionOf(secretBox, integration);
      let device, software;
      try {
        device = await provider.getDevice(conn, body.device_id);
        software = await provider.getSoftware(conn, body.device_id);
      } catch (err) {
        if (err instanceof RmmProviderError && err.reason === 'not_found') {
          throw new AppError('UNPROCESSABLE', `${provider.label} has no device '${body.device_id}'`, { reason: 'device_not_found', provider: provider.name });
        }
        throw toApiError(err, provider.name);
      }
      return withTransaction(db, async (trx) => {
        await requireVisibleAsset(trx, actor, assetId, 'update');
        await requireIntegration(trx, actor.tenant, body.integration_id, true);
        const current = await assetOfDevice(trx, actor.tenant, body.integration_id, body.device_id);
        if (current && current !== assetId) throw deviceTaken(current);
        await saveLink(trx, actor.tenant, assetId, body.integration_id, { ...device, device_id: body.device_id }, software, new Date());
        await emitAssetRmmEvent(trx, actor.tenant, RMM_EVENTS.assetLinked, assetId, {
          integration_id: body.integration_id,
          device_id: body.device_id,
          hostname: device.hostname,
        });
        return toAssetRmm(await requireLink(trx, actor.tenant, assetId));
      });
    },

    async unlink(actor: Actor, assetId: string): Promise<void> {
      assertInternal(actor);
      await withTransaction(db, async (trx) => {
        await requireVisibleAsset(trx, actor, assetId, 'update');
        const link = await requireLink(trx, actor.tenant, assetId, true);
        await deleteLink(trx, actor.tenant, assetId);
        await emitAssetRmmEvent(trx, actor.tenant, RMM_EVENTS.assetUnlinked, assetId, { integration_id: link.integration_id, device_id: link.external_device_id });
      });
    },
  };
}

function deviceTaken(assetId: string): AppError {
  return conflict(`The device is already linked to asset '${assetId}'; unlink it there first`, { reason: 'device_linked', asset_id: assetId });
}

export type AssetRmmService = ReturnType<typeof createAssetRmmService>;
