import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import type { Executor } from '../../../platform/db/executor.ts';
import type { RmmIntegrationsTable } from '../../../platform/db/schema.rmm.ts';

export type IntegrationRow = Selectable<RmmIntegrationsTable> & { linked_asset_count: number };

function withCount(db: Executor, tenant: string) {
  return db
    .selectFrom('rmm_integrations as i')
    .selectAll('i')
    .select((eb) =>
      eb
        .selectFrom('asset_rmm_links as l')
        .select((e) => e.fn.countAll<string>().as('n'))
        .whereRef('l.tenant', '=', 'i.tenant')
        .whereRef('l.integration_id', '=', 'i.integration_id')
        .as('linked_asset_count'),
    )
    .where('i.tenant', '=', tenant);
}

const normalise = <T extends { linked_asset_count: unknown }>(row: T) => ({ ...row, linked_asset_count: Number(row.linked_asset_count ?? 0) });

export async function findIntegrationRow(db: Executor, tenant: string, integrationId: string, lock = false): Promise<IntegrationRow | undefined> {
  if (lock) {
    // FOR UPDATE cannot sit on a query with an aggregate sub-select on every engine; lock first, then read.
    await db.selectFrom('rmm_integrations').select('integration_id').where('tenant', '=', tenant).where('integration_id', '=', integrationId).forUpdate().execute();
  }
  const row = await withCount(db, tenant).where('i.integration_id', '=', integrationId).executeTakeFirst();
  return row ? (normalise(row) as IntegrationRow) : undefined;
}

export async function insertIntegration(db: Executor, row: Insertable<RmmIntegrationsTable>): Promise<void> {
  await db.insertInto('rmm_integrations').values(row).execute();
}

export async function updateIntegration(db: Executor, tenant: string, integrationId: string, set: Updateable<RmmIntegrationsTable>): Promise<void> {
  await db.updateTable('rmm_integrations').set(set).where('tenant', '=', tenant).where('integration_id', '=', integrationId).execute();
}

export async function deleteIntegration(db: Executor, tenant: string, integrationId: string): Promise<void> {
  await db.deleteFrom('rmm_integrations').where('tenant', '=', tenant).where('integration_id', '=', integrationId).execute();
}

export async function nameTaken(db: Executor, tenant: string, name: string, exceptId?: string): Promise<boolean> {
  let q = db.selectFrom('rmm_integrations').select('integration_id').where('tenant', '=', tenant).where(sql<boolean>`lower(name) = lower(${name})`);
  if (exceptId) q = q.where('integration_id', '<>', exceptId);
  return (await q.executeTakeFirst()) !== undefined;
}

export interface IntegrationListFilter {
  provider?: string;
  isActive?: boolean;
  updatedSince?: Date;
  sort: 'name' | 'created_at' | 'updated_at';
  order: 'asc' | 'desc';
  limit: number;
  offset: number;
}

function filtered(db: Executor, tenant: string, f: IntegrationListFilter) {
  let q = withCount(db, tenant);
  if (f.provider !== undefined) q = q.where('i.provider', '=', f.provider);
  if (f.isActive !== undefined) q = q.where('i.is_active', '=', f.isActive);
  if (f.updatedSince !== undefined) q = q.where('i.updated_at', '>=', f.updatedSince);
  return q;
}

export async function listIntegrations(db: Executor, tenant: string, f: IntegrationListFilter): Promise<{ rows: IntegrationRow[]; total: number }> {
  const q = filtered(db, tenant, f);
  const sorted = f.sort === 'name' ? q.orderBy(sql`lower(i.name)`, f.order) : q.orderBy(`i.${f.sort}`, f.order);
  const rows = await sorted.orderBy('i.integration_id', f.order).limit(f.limit).offset(f.offset).execute();
  let c = db.selectFrom('rmm_integrations').select((eb) => eb.fn.countAll<string>().as('n')).where('tenant', '=', tenant);
  if (f.provider !== undefined) c = c.where('provider', '=', f.provider);
  if (f.isActive !== undefined) c = c.where('is_active', '=', f.isActive);
  if (f.updatedSince !== undefined) c = c.where('updated_at', '>=', f.updatedSince);
  const n = await c.executeTakeFirstOrThrow();
  return { rows: rows.map((r) => normalise(r) as IntegrationRow), total: Number(n.n) };
}

/** device id → asset id for the integration's linked devices (to mark them in a pick list). */
export async function linkedDevices(db: Executor, tenant: string, integrationId: string): Promise<Map<string, string>> {
  const rows = await db
    .selectFrom('asset_rmm_links')
    .select(['external_device_id', 'asset_id'])
    .where('tenant', '=', tenant)
    .where('integration_id', '=', integrationId)
    .execute();
  return new Map(rows.map((r) => [r.external_device_id, r.asset_id]));
}
