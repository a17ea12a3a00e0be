import type { Actor } from '../../../platform/auth/context.ts';
import type { Executor } from '../../../platform/db/executor.ts';
import { AppError, conflict } from '../../../platform/http/errors.ts';
import { isPortalActor } from '../../clients/index.ts';
import { findLink, type LinkRow } from './asset-rmm.repo.ts';

export const NOT_LINKED = 'The asset is not connected to an RMM device; link one with PUT /api/v1/assets/{id}/rmm';

/** The asset's link, or 409: commands and cached data exist only for linked assets. */
export async function requireLink(db: Executor, tenant: string, assetId: string, lock = false): Promise<LinkRow> {
  const link = await findLink(db, tenant, assetId, lock);
  if (!link) throw conflict(NOT_LINKED, { reason: 'not_linked' });
  return link;
}

export function requireActiveIntegration(link: LinkRow): void {
  if (!link.is_active) throw conflict(`The RMM integration '${link.integration_name}' is inactive; activate it to reach the device`, { reason: 'integration_inactive' });
}

/** Portal keys see their client's RMM data but never change links or reach a device, whatever their role says. */
export function assertInternal(actor: Actor): void {
  if (isPortalActor(actor)) throw new AppError('FORBIDDEN', 'Client-portal keys cannot manage RMM links or run RMM commands');
}
