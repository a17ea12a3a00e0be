import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import type { Executor } from '../../../platform/db/executor.ts';
import type { RmmIntegrationsTable } from '../../../platform/db/schema.rmm.ts';
import { defineList } from '../../../platform/http/list.ts';

export type IntegrationRow = Selectable<RmmIntegrationsTable> & { linked_asset_count: number };

function integrationsOf(db: Executor, tenant: string) {
  return db.selectFrom('rmm_integrations as i').where('i.tenant', '=', tenant);
}

function withCount(q: ReturnType<typeof integrationsOf>) {
  return q.selectAll('i').select((eb) =>
    eb
      .selectFrom('asset_rmm_links as l')
      .select((e) => e.fn.countAll<string>().as('n'))
      .whereRef('l.tenant', '=', 'i.tenant')
      .whereRef('l.integration_id', '=', 'i.integration_id')
      .as('linked_asset_count'),
  );
}

/** A row as read (the linked count comes back as a string) → an IntegrationRow. */
export function integrationRowOf(row: Selectable<RmmIntegrationsTable> & { linked_asset_count: unknown }): IntegrationRow {
  return { ...row, linked_asset_count: Number(row.linked_asset_count ?? 0) };
}

export async function findIntegrationRow(db: Executor, tenant: string, integrationId: string, lock = false): Promise<IntegrationRow | undefined> {
  if (lock) {
    // FOR UPDATE cannot sit on a query with an aggregate sub-select on every engine; lock first, then read.
    await db.selectFrom('rmm_integrations').select('integration_id').where('tenant', '=', tenant).where('integration_id', '=', integrationId).forUpdate().execute();
  }
  const row = await withCount(integrationsOf(db, tenant)).where('i.integration_id', '=', integrationId).executeTakeFirst();
  return row ? integrationRowOf(row) : undefined;
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
}

/**
 * Newest first by default; ties break on integration_id in the requested direction. The count never
 * reads the linked assets; the page carries each one's count (`integrationRowOf` reads it).
 */
export function integrationList(db: Executor, tenant: string, f: IntegrationListFilter) {
  let q = integrationsOf(db, tenant);
  if (f.provider !== undefined) q = q.where('i.provider', '=', f.provider);
  if (f.isActive !== undefined) q = q.where('i.is_active', '=', f.isActive);
  return defineList({
    from: q,
    page: withCount(q),
    sorts: { name: [sql`lower(i.name)`], created_at: ['i.created_at'], updated_at: ['i.updated_at'] },
    defaultSort: 'created_at',
    defaultOrder: 'desc',
    tieBreaker: 'i.integration_id',
    updatedAt: 'i.updated_at',
  });
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
