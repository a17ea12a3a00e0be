import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import type { Executor } from '../../../platform/db/executor.ts';
import type { LedgerEntityType, LedgerMappingsTable, LedgerSyncStatus } from '../../../platform/db/schema.ledger.ts';
import { defineList } from '../../../platform/http/list.ts';

export type MappingRow = Selectable<LedgerMappingsTable>;

export function findMapping(db: Executor, tenant: string, mappingId: string): Promise<MappingRow | undefined> {
  return db.selectFrom('ledger_mappings').selectAll().where('tenant', '=', tenant).where('mapping_id', '=', mappingId).executeTakeFirst();
}

/** The mapping of one record, found by our side (`local_id`) or the ledger's (`external_id`). */
function mappingBy(db: Executor, tenant: string, connectionId: string, type: LedgerEntityType, side: 'local_id' | 'external_id', value: string): Promise<MappingRow | undefined> {
  return db
    .selectFrom('ledger_mappings')
    .selectAll()
    .where('tenant', '=', tenant)
    .where('connection_id', '=', connectionId)
    .where('entity_type', '=', type)
    .where(side, '=', value)
    .executeTakeFirst();
}

export const mappingOfLocal = (db: Executor, tenant: string, connectionId: string, type: LedgerEntityType, localId: string) => mappingBy(db, tenant, connectionId, type, 'local_id', localId);
export const mappingOfExternal = (db: Executor, tenant: string, connectionId: string, type: LedgerEntityType, externalId: string) => mappingBy(db, tenant, connectionId, type, 'external_id', externalId);

/** Every mapping of some types for a connection (small sets: accounts, tax codes, items, or one run's records). */
export function mappingsOf(db: Executor, tenant: string, connectionId: string, types: readonly LedgerEntityType[], localIds?: readonly string[]): Promise<MappingRow[]> {
  if (localIds && localIds.length === 0) return Promise.resolve([]);
  let q = db.selectFrom('ledger_mappings').selectAll().where('tenant', '=', tenant).where('connection_id', '=', connectionId).where('entity_type', 'in', types);
  if (localIds) q = q.where('local_id', 'in', localIds);
  return q.orderBy('local_id').execute();
}

export async function insertMapping(db: Executor, row: Insertable<LedgerMappingsTable>): Promise<void> {
  await db.insertInto('ledger_mappings').values(row).execute();
}

export async function updateMapping(db: Executor, tenant: string, mappingId: string, set: Updateable<LedgerMappingsTable>): Promise<void> {
  await db.updateTable('ledger_mappings').set({ ...set, updated_at: new Date() }).where('tenant', '=', tenant).where('mapping_id', '=', mappingId).execute();
}

export async function deleteMapping(db: Executor, tenant: string, mappingId: string): Promise<void> {
  await db.deleteFrom('ledger_mappings').where('tenant', '=', tenant).where('mapping_id', '=', mappingId).execute();
}

/** Clears the default flag of a type (accounts: of one account type) before another mapping takes it. */
export async function clearDefault(db: Executor, tenant: string, connectionId: string, type: LedgerEntityType, localPrefix?: string): Promise<void> {
  let q = db.updateTable('ledger_mappings').set({ is_default: false }).where('tenant', '=', tenant).where('connection_id', '=', connectionId).where('entity_type', '=', type).where('is_default', '=', true);
  if (localPrefix !== undefined) q = q.where(sql<boolean>`split_part(local_id, ':', 1) = ${localPrefix}`);
  await q.execute();
}

export interface MappingListFilter {
  connectionId: string;
  entityType?: LedgerEntityType;
  syncStatus?: LedgerSyncStatus;
  localId?: string;
  externalId?: string;
}

/** Newest first by default; ties break on mapping_id. */
export function mappingList(db: Executor, tenant: string, f: MappingListFilter) {
  let q = db.selectFrom('ledger_mappings as m').where('m.tenant', '=', tenant).where('m.connection_id', '=', f.connectionId);
  if (f.entityType) q = q.where('m.entity_type', '=', f.entityType);
  if (f.syncStatus) q = q.where('m.sync_status', '=', f.syncStatus);
  if (f.localId) q = q.where('m.local_id', '=', f.localId);
  if (f.externalId) q = q.where('m.external_id', '=', f.externalId);
  return defineList({
    from: q,
    page: q.selectAll('m'),
    sorts: { created_at: ['m.created_at'], updated_at: ['m.updated_at'], local_id: ['m.local_id'], last_synced_at: [{ by: 'm.last_synced_at', nullsLast: true }] },
    defaultSort: 'created_at',
    defaultOrder: 'desc',
    tieBreaker: 'm.mapping_id',
    updatedAt: 'm.updated_at',
  });
}

/** The payment mappings of one ledger payment (their external ids are `<payment id>:<invoice id>`). */
export function paymentMappingsOf(db: Executor, tenant: string, connectionId: string, ledgerPaymentId: string): Promise<MappingRow[]> {
  return db
    .selectFrom('ledger_mappings')
    .selectAll()
    .where('tenant', '=', tenant)
    .where('connection_id', '=', connectionId)
    .where('entity_type', '=', 'payment')
    .where('external_id', 'like', `${ledgerPaymentId.replace(/[\\%_]/g, '\\$&')}:%`)
    .execute();
}
