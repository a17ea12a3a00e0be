import { iso } from '../../platform/time.ts';
import type { AssetViewRow } from './assets.repo.ts';
import type { Asset } from './assets.schemas.ts';
import { warrantyStatusOf } from './assets.warranty.ts';

export function toAsset(row: AssetViewRow, today?: string): Asset {
  return {
    asset_id: row.asset_id,
    client_id: row.client_id,
    client_name: row.client_name,
    asset_type: row.asset_type,
    asset_tag: row.asset_tag,
    name: row.name,
    status: row.status,
    serial_number: row.serial_number,
    location: row.location,
    manufacturer: row.manufacturer,
    model: row.model,
    purchase_date: row.purchase_date,
    warranty_end_date: row.warranty_end_date,
    warranty_status: warrantyStatusOf(row.warranty_end_date, today),
    attributes: row.attributes,
    notes_updated_at: iso(row.notes_updated_at),
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}
