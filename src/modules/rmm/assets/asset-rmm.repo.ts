import type { Executor } from '../../../platform/db/executor.ts';
import type { AgentStatus, RmmDevice, RmmSoftware } from '../providers/provider.ts';

/** A link with what a call through it needs from its integration. */
export interface LinkRow {
  asset_id: string;
  integration_id: string;
  external_device_id: string;
  agent_status: AgentStatus;
  device_data: Record<string, unknown> | null;
  software: unknown[] | null;
  last_synced_at: Date | null;
  linked_at: Date;
  integration_name: string;
  provider: string;
  base_url: string;
  credentials_enc: string;
  is_active: boolean;
}

const parsed = <T>(v: unknown): T | null => (typeof v === 'string' ? (JSON.parse(v) as T) : ((v ?? null) as T | null));

export async function findLink(db: Executor, tenant: string, assetId: string, lock = false): Promise<LinkRow | undefined> {
  let q = db
    .selectFrom('asset_rmm_links as l')
    .innerJoin('rmm_integrations as i', (j) => j.onRef('i.tenant', '=', 'l.tenant').onRef('i.integration_id', '=', 'l.integration_id'))
    .select([
      'l.asset_id',
      'l.integration_id',
      'l.external_device_id',
      'l.agent_status',
      'l.device_data',
      'l.software',
      'l.last_synced_at',
      'l.linked_at',
      'i.name as integration_name',
      'i.provider',
      'i.base_url',
      'i.credentials_enc',
      'i.is_active',
    ])
    .where('l.tenant', '=', tenant)
    .where('l.asset_id', '=', assetId);
  if (lock) q = q.forUpdate('l');
  const row = await q.executeTakeFirst();
  return row ? { ...row, device_data: parsed(row.device_data), software: parsed(row.software) } : undefined;
}

/** The asset a device is linked to within one integration, if any. */
export async function assetOfDevice(db: Executor, tenant: string, integrationId: string, deviceId: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('asset_rmm_links')
    .select('asset_id')
    .where('tenant', '=', tenant)
    .where('integration_id', '=', integrationId)
    .where('external_device_id', '=', deviceId)
    .executeTakeFirst();
  return row?.asset_id;
}

/** Links (or relinks: the old link goes, so linked_at restarts) the asset to one device with a fresh cache. */
export async function saveLink(db: Executor, tenant: string, assetId: string, integrationId: string, device: RmmDevice, software: RmmSoftware[], at: Date): Promise<void> {
  await deleteLink(db, tenant, assetId);
  await db
    .insertInto('asset_rmm_links')
    .values({
      tenant,
      asset_id: assetId,
      integration_id: integrationId,
      external_device_id: device.device_id,
      agent_status: device.status,
      device_data: JSON.stringify(device),
      software: JSON.stringify(software),
      last_synced_at: at,
      linked_at: at,
    })
    .execute();
}

export async function updateCache(db: Executor, tenant: string, assetId: string, device: RmmDevice, software: RmmSoftware[], at: Date): Promise<void> {
  await db
    .updateTable('asset_rmm_links')
    .set({ agent_status: device.status, device_data: JSON.stringify(device), software: JSON.stringify(software), last_synced_at: at })
    .where('tenant', '=', tenant)
    .where('asset_id', '=', assetId)
    .execute();
}

export async function deleteLink(db: Executor, tenant: string, assetId: string): Promise<void> {
  await db.deleteFrom('asset_rmm_links').where('tenant', '=', tenant).where('asset_id', '=', assetId).execute();
}
