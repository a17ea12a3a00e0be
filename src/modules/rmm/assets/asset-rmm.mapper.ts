import { iso } from '../../../platform/time.ts';
import type { RmmDevice, RmmSoftware } from '../providers/provider.ts';
import type { LinkRow } from './asset-rmm.repo.ts';
import { pageOfArray } from '../../../platform/http/list.ts';
import type { AssetRmm, SoftwareQuery } from './asset-rmm.schemas.ts';

export function toAssetRmm(row: LinkRow): AssetRmm {
  return {
    asset_id: row.asset_id,
    integration_id: row.integration_id,
    integration_name: row.integration_name,
    provider: row.provider,
    device_id: row.external_device_id,
    agent_status: row.agent_status,
    device: (row.device_data as RmmDevice | null) ?? null,
    last_synced_at: iso(row.last_synced_at),
    linked_at: iso(row.linked_at),
  };
}

/** The cached inventory filtered, sorted (missing values last) and paged; meta says which device and as of when. */
export function toSoftwarePage(row: LinkRow, query: SoftwareQuery) {
  const needle = query.search?.toLowerCase();
  const all = (row.software as RmmSoftware[] | null) ?? [];
  const matched = needle ? all.filter((s) => s.name.toLowerCase().includes(needle) || (s.publisher ?? '').toLowerCase().includes(needle)) : all;
  const key = query.sort ?? 'name';
  const dir = query.order === 'desc' ? -1 : 1;
  const sorted = [...matched].sort((a, b) => {
    const x = a[key];
    const y = b[key];
    if (x === y) return a.name.localeCompare(b.name);
    if (x === null) return 1;
    if (y === null) return -1;
    return x.localeCompare(y) * dir;
  });
  return {
    ...pageOfArray(query, sorted),
    meta: { asset_id: row.asset_id, device_id: row.external_device_id, last_synced_at: iso(row.last_synced_at) },
  };
}
