import { iso } from '../../platform/time.ts';
import type { Transaction } from 'kysely';
import type { DB } from '../../platform/db/schema.ts';
import { emit } from '../../platform/events/outbox.ts';
import type { AssetViewRow } from './assets.repo.ts';
import { warrantyStatusOf } from './assets.warranty.ts';

/** In the public vocabulary (announced, not delivered to webhooks); see the catalogue. */
export const ASSET_EVENTS = {
  created: 'asset.created',
  updated: 'asset.updated',
  maintenanceScheduled: 'asset.maintenance.scheduled',
  maintenanceCompleted: 'asset.maintenance.completed',
} as const;

/** Internal (not in the public vocabulary): an asset was deleted. */
export const ASSET_DELETED = 'asset.deleted';

/** The `data` of every asset event, in this order: a curated subset, never attributes or notes. */
export const ASSET_DATA_FIELDS = [
  'asset_id', 'asset_tag', 'name', 'asset_type', 'status', 'client_id', 'client_name', 'serial_number', 'location',
  'manufacturer', 'model', 'purchase_date', 'warranty_end_date', 'warranty_status', 'created_at', 'updated_at', 'url',
] as const;

export type AssetData = Record<(typeof ASSET_DATA_FIELDS)[number], unknown>;

/** `changes` of asset.updated: `{ field: { previous, new } }` with the asset resource's field names. */
export type AssetChanges = Record<string, { previous: unknown; new: unknown }>;

export function toAssetData(row: AssetViewRow, publicUrl: string): AssetData {
  return {
    asset_id: row.asset_id,
    asset_tag: row.asset_tag,
    name: row.name,
    asset_type: row.asset_type,
    status: row.status,
    client_id: row.client_id,
    client_name: row.client_name,
    serial_number: row.serial_number,
    location: row.location,
    manufacturer: row.manufacturer,
    model: row.model,
    purchase_date: row.purchase_date,
    warranty_end_date: row.warranty_end_date,
    warranty_status: warrantyStatusOf(row.warranty_end_date),
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
    url: `${publicUrl}/api/v1/assets/${row.asset_id}`,
  };
}

export function emitAssetEvent(
  trx: Transaction<DB>,
  row: AssetViewRow,
  publicUrl: string,
  eventType: string,
  extra: Record<string, unknown> = {},
): Promise<string> {
  return emit(trx, {
    tenant: row.tenant,
    event_type: eventType,
    aggregate_type: 'asset',
    aggregate_id: row.asset_id,
    payload: { data: toAssetData(row, publicUrl), ...extra },
  });
}

export const emitAssetUpdated = (trx: Transaction<DB>, row: AssetViewRow, publicUrl: string, changes: AssetChanges) =>
  emitAssetEvent(trx, row, publicUrl, ASSET_EVENTS.updated, { changes });

export function emitAssetDeleted(trx: Transaction<DB>, row: Pick<AssetViewRow, 'tenant' | 'asset_id' | 'asset_tag' | 'client_id'>): Promise<string> {
  return emit(trx, {
    tenant: row.tenant,
    event_type: ASSET_DELETED,
    aggregate_type: 'asset',
    aggregate_id: row.asset_id,
    payload: { asset_id: row.asset_id, asset_tag: row.asset_tag, client_id: row.client_id },
  });
}
