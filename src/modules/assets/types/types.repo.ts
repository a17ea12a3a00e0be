import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Executor } from '../../../platform/db/executor.ts';
import type { AssetTypesTable } from '../../../platform/db/schema.assets.ts';
import { BUILTIN_ASSET_TYPES, type FieldDefinition } from '../../../platform/db/builtin-asset-types.ts';

export type AssetTypeRow = Selectable<AssetTypesTable>;
export interface AssetTypeViewRow extends AssetTypeRow {
  asset_count: number;
}

function typeView(db: Executor, tenant: string) {
  return db
    .selectFrom('asset_types as t')
    .where('t.tenant', '=', tenant)
    .selectAll('t')
    .select((eb) =>
      eb.selectFrom('assets as a').whereRef('a.tenant', '=', 't.tenant').whereRef('a.asset_type', '=', 't.slug').select(eb.fn.countAll<number>().as('n')).as('asset_count'),
    );
}

const counted = (r: AssetTypeRow & { asset_count: number | string | null }): AssetTypeViewRow => ({ ...r, asset_count: Number(r.asset_count ?? 0) });

export async function listAssetTypes(db: Executor, tenant: string): Promise<AssetTypeViewRow[]> {
  const rows = await typeView(db, tenant).orderBy('t.is_builtin', 'desc').orderBy('t.slug').execute();
  return rows.map(counted);
}

export async function findAssetTypeView(db: Executor, tenant: string, slug: string): Promise<AssetTypeViewRow | undefined> {
  const row = await typeView(db, tenant).where('t.slug', '=', slug).executeTakeFirst();
  return row ? counted(row) : undefined;
}

export async function findAssetType(db: Executor, tenant: string, slug: string, lock = false): Promise<AssetTypeRow | undefined> {
  let q = db.selectFrom('asset_types').selectAll().where('tenant', '=', tenant).where('slug', '=', slug);
  if (lock) q = q.forUpdate();
  return q.executeTakeFirst();
}

export async function insertAssetType(db: Executor, row: Insertable<AssetTypesTable>): Promise<void> {
  await db.insertInto('asset_types').values(row).execute();
}

export async function updateAssetType(db: Executor, tenant: string, slug: string, set: Updateable<AssetTypesTable>): Promise<void> {
  await db.updateTable('asset_types').set(set).where('tenant', '=', tenant).where('slug', '=', slug).execute();
}

export async function deleteAssetType(db: Executor, tenant: string, slug: string): Promise<void> {
  await db.deleteFrom('asset_types').where('tenant', '=', tenant).where('slug', '=', slug).execute();
}

export async function countAssetsOfType(db: Executor, tenant: string, slug: string): Promise<number> {
  const r = await db.selectFrom('assets').select((eb) => eb.fn.countAll<number>().as('n')).where('tenant', '=', tenant).where('asset_type', '=', slug).executeTakeFirstOrThrow();
  return Number(r.n);
}

/** A new tenant's built-in asset types (see builtin-types.ts). */
export async function seedAssetTypes(db: Executor, tenant: string): Promise<void> {
  await db
    .insertInto('asset_types')
    .values(BUILTIN_ASSET_TYPES.map((t) => ({ tenant, slug: t.slug, type_name: t.type_name, description: t.description, is_builtin: true, field_schema: JSON.stringify(t.field_schema) })))
    .onConflict((oc) => oc.doNothing())
    .execute();
}

export const fieldsOf = (row: Pick<AssetTypeRow, 'field_schema'>): FieldDefinition[] => row.field_schema as FieldDefinition[];
