import { sql, type Insertable, type Selectable, type SelectQueryBuilder, type Updateable } from 'kysely';
import type { Executor } from '../../platform/db/executor.ts';
import { preparedQuery } from '../../platform/db/prepared.ts';
import { likePattern } from '../../platform/db/like.ts';
import type { AssetStatus, AssetsTable } from '../../platform/db/schema.assets.ts';
import type { ClientsTable, DB } from '../../platform/db/schema.ts';
import { rowVersion } from '../../platform/http/list-cache.ts';
import { defineList, orderedRows, whenUnfiltered } from '../../platform/http/list.ts';
import type { AssetSortField, WarrantyStatus } from './assets.schemas.ts';
import { addDays, todayUtc, WARRANTY_EXPIRING_SOON_DAYS } from './assets.warranty.ts';

export interface AssetViewRow extends Omit<Selectable<AssetsTable>, 'notes'> {
  client_name: string;
}

/** The asset columns the API shows (not `notes`: they have their own endpoint and may be large). */
const ASSET_COLUMNS = [
  'a.tenant', 'a.asset_id', 'a.client_id', 'a.asset_type', 'a.asset_tag', 'a.name', 'a.status', 'a.serial_number', 'a.location',
  'a.manufacturer', 'a.model', 'a.purchase_date', 'a.warranty_end_date', 'a.attributes', 'a.notes_updated_at', 'a.created_at', 'a.updated_at',
] as const;

type AssetQuery = SelectQueryBuilder<DB & { a: AssetsTable; c: ClientsTable }, 'a' | 'c', object>;

function assetsWithClient(db: Executor, tenant: string): AssetQuery {
  return db
    .selectFrom('assets as a')
    .innerJoin('clients as c', (j) => j.onRef('c.tenant', '=', 'a.tenant').onRef('c.client_id', '=', 'a.client_id'))
    .where('a.tenant', '=', tenant);
}

const assetView = (db: Executor, tenant: string, assetId: string) =>
  assetsWithClient(db, tenant).where('a.asset_id', '=', assetId).select(ASSET_COLUMNS).select('c.client_name');

// The single-asset read is the hottest query of the area: prepared once, in both lock modes.
const assetViewById = preparedQuery(['tenant', 'assetId'], (db, v) => assetView(db, v.tenant, v.assetId));
const assetViewByIdForUpdate = preparedQuery(['tenant', 'assetId'], (db, v) => assetView(db, v.tenant, v.assetId).forUpdate('a'));

export async function findAssetView(db: Executor, tenant: string, assetId: string, lock = false): Promise<AssetViewRow | undefined> {
  const rows = await (lock ? assetViewByIdForUpdate : assetViewById)(db, { tenant, assetId });
  return rows[0];
}

export async function findAssetViews(db: Executor, tenant: string, assetIds: readonly string[]): Promise<AssetViewRow[]> {
  if (assetIds.length === 0) return [];
  return assetsWithClient(db, tenant).where('a.asset_id', 'in', [...assetIds]).select(ASSET_COLUMNS).select('c.client_name').execute();
}

export async function findAssetIdByTag(db: Executor, tenant: string, tag: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('assets')
    .select('asset_id')
    .where('tenant', '=', tenant)
    .where(sql<string>`lower(asset_tag)`, '=', sql<string>`lower(${tag})`)
    .executeTakeFirst();
  return row?.asset_id;
}

export async function insertAsset(db: Executor, row: Insertable<AssetsTable>): Promise<void> {
  await db.insertInto('assets').values(row).execute();
}

export async function updateAsset(db: Executor, tenant: string, assetId: string, set: Updateable<AssetsTable>): Promise<void> {
  await db.updateTable('assets').set(set).where('tenant', '=', tenant).where('asset_id', '=', assetId).execute();
}

export async function deleteAsset(db: Executor, tenant: string, assetId: string): Promise<void> {
  await db.deleteFrom('assets').where('tenant', '=', tenant).where('asset_id', '=', assetId).execute();
}

export interface AssetFilter {
  /** Client-portal scope: only this client's assets. */
  onlyClientId?: string;
  clientId?: string;
  assetType?: string;
  status?: AssetStatus;
  warrantyStatus?: WarrantyStatus;
  search?: string;
  updatedSince?: Date;
  /** The day warranty states are computed for (UTC); defaults to today. */
  today?: string;
}

/** One WHERE for list, count, export and stats, so totals always match the rows. */
export function filtered(q: AssetQuery, f: AssetFilter): AssetQuery {
  if (f.onlyClientId !== undefined) q = q.where('a.client_id', '=', f.onlyClientId);
  if (f.clientId !== undefined) q = q.where('a.client_id', '=', f.clientId);
  if (f.assetType !== undefined) q = q.where('a.asset_type', '=', f.assetType);
  if (f.status !== undefined) q = q.where('a.status', '=', f.status);
  if (f.updatedSince !== undefined) q = q.where('a.updated_at', '>=', f.updatedSince);
  if (f.warrantyStatus !== undefined) {
    const today = f.today ?? todayUtc();
    const soon = addDays(today, WARRANTY_EXPIRING_SOON_DAYS);
    if (f.warrantyStatus === 'none') q = q.where('a.warranty_end_date', 'is', null);
    if (f.warrantyStatus === 'expired') q = q.where('a.warranty_end_date', '<', today);
    if (f.warrantyStatus === 'expiring_soon') q = q.where('a.warranty_end_date', '>=', today).where('a.warranty_end_date', '<=', soon);
    if (f.warrantyStatus === 'active') q = q.where('a.warranty_end_date', '>', soon);
  }
  if (f.search !== undefined) {
    const p = likePattern(f.search);
    q = q.where((eb) =>
      eb.or([eb('a.name', 'ilike', p), eb('a.asset_tag', 'ilike', p), eb('a.serial_number', 'ilike', p), eb('a.location', 'ilike', p), eb('c.client_name', 'ilike', p)]),
    );
  }
  return q;
}

export function filteredAssets(db: Executor, tenant: string, f: AssetFilter): AssetQuery {
  return filtered(assetsWithClient(db, tenant), f);
}

/** An export's order: the list's sort and direction (its defaults when absent). */
export interface AssetOrder {
  sort?: AssetSortField;
  order?: 'asc' | 'desc';
}

/**
 * Newest first by default; ties break on asset_id in the requested direction (a total order, so pages
 * never overlap). `updated_since` is part of the shared filter (export and stats apply it too), so the
 * spec leaves `updatedAt` out.
 */
export function assetList(db: Executor, tenant: string, f: AssetFilter) {
  return defineList({
    from: filteredAssets(db, tenant, f),
    page: filteredAssets(db, tenant, f).select(ASSET_COLUMNS).select('c.client_name'),
    sorts: {
      name: [sql`lower(a.name)`],
      asset_tag: [sql`lower(a.asset_tag)`],
      status: ['a.status'],
      asset_type: ['a.asset_type'],
      client_name: [sql`lower(c.client_name)`],
      warranty_end_date: [{ by: 'a.warranty_end_date', nullsLast: true }],
      purchase_date: [{ by: 'a.purchase_date', nullsLast: true }],
      created_at: ['a.created_at'],
      updated_at: ['a.updated_at'],
    },
    defaultSort: 'created_at',
    defaultOrder: 'desc',
    tieBreaker: 'a.asset_id',
    updatedAt: 'a.updated_at',
    // Every asset has a client (NOT NULL, foreign key), so the inner join never changes the count. `today`
    // only dates the warranty filter.
    counter: whenUnfiltered({ ...f, today: undefined }, { tenant, list: 'assets' }),
    version: rowVersion('a.tenant', ['a', 'c']),
  });
}

/** Every matching asset in the list's order, a batch at a time (export streams them). */
export async function* allAssets(db: Executor, tenant: string, f: AssetFilter, o: AssetOrder, batch = 500): AsyncGenerator<AssetViewRow[]> {
  const rows = orderedRows(o, assetList(db, tenant, f));
  for (let offset = 0; ; offset += batch) {
    const list = await rows.limit(batch).offset(offset).execute();
    if (list.length > 0) yield list;
    if (list.length < batch) return;
  }
}
