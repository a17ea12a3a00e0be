import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import type { Executor } from '../../platform/db/executor.ts';
import { everyColumn, preparedQuery } from '../../platform/db/prepared.ts';
import { likePattern } from '../../platform/db/like.ts';
import type { BillingCycle, ClientType, ClientsTable } from '../../platform/db/schema.ts';
import { rowVersion } from '../../platform/http/list-cache.ts';
import { defineList, whenUnfiltered } from '../../platform/http/list.ts';

export type ClientRow = Selectable<ClientsTable>;

/** A client row (less its notes) with the contact details of its default location (null when it has none). */
export interface ClientViewRow extends Omit<ClientRow, 'notes' | 'notes_updated_at'> {
  loc_email: string | null;
  loc_phone: string | null;
  loc_address_line1: string | null;
  loc_address_line2: string | null;
  loc_city: string | null;
  loc_state_province: string | null;
  loc_postal_code: string | null;
  loc_country_name: string | null;
}


const LOCATION_COLUMNS = [
  'l.email as loc_email',
  'l.phone as loc_phone',
  'l.address_line1 as loc_address_line1',
  'l.address_line2 as loc_address_line2',
  'l.city as loc_city',
  'l.state_province as loc_state_province',
  'l.postal_code as loc_postal_code',
  'l.country_name as loc_country_name',
] as const;

/** The client columns the API shows (not `notes`: they have their own endpoint and may be large). */
const CLIENT_COLUMNS = [
  'c.tenant', 'c.client_id', 'c.client_name', 'c.client_type', 'c.billing_cycle', 'c.payment_terms',
  'c.default_currency_code', 'c.client_since', 'c.tax_id_number', 'c.is_inactive', 'c.merged_into_client_id',
  'c.merged_at', 'c.merged_by', 'c.parent_client_id', 'c.created_at', 'c.updated_at',
] as const;

/**
 * clients LEFT JOIN its default location. The default is always active (a CHECK says so) and unique
 * (a partial unique index), so the join never multiplies rows.
 */
function clientView(db: Executor, tenant: string) {
  return db
    .selectFrom('clients as c')
    .leftJoin('client_locations as l', (j) =>
      j.onRef('l.tenant', '=', 'c.tenant').onRef('l.client_id', '=', 'c.client_id').on('l.is_default', '=', true),
    )
    .where('c.tenant', '=', tenant)
    .select(CLIENT_COLUMNS)
    .select(LOCATION_COLUMNS);
}

// The single-client read is the hottest query of the area: prepared once, in both lock modes.
const clientViewById = preparedQuery(['tenant', 'clientId'], (db, v) => clientView(db, v.tenant).where('c.client_id', '=', v.clientId));
const clientViewByIdForUpdate = preparedQuery(['tenant', 'clientId'], (db, v) =>
  clientView(db, v.tenant).where('c.client_id', '=', v.clientId).forUpdate('c'),
);

export async function findClientView(db: Executor, tenant: string, clientId: string, lock = false): Promise<ClientViewRow | undefined> {
  const rows = await (lock ? clientViewByIdForUpdate : clientViewById)(db, { tenant, clientId });
  return rows[0];
}

export type RowLock = 'none' | 'share' | 'update';

const CLIENT_ROW_COLUMNS = everyColumn<ClientsTable>()([
  'tenant', 'client_id', 'client_name', 'client_type', 'billing_cycle', 'payment_terms', 'default_currency_code', 'client_since',
  'tax_id_number', 'notes', 'notes_updated_at', 'is_inactive', 'merged_into_client_id', 'merged_at', 'merged_by', 'parent_client_id',
  'created_at', 'updated_at',
]);

const clientRowById = (lock: RowLock) =>
  preparedQuery(['tenant', 'clientId'], (db, v) => {
    const q = db.selectFrom('clients').select(CLIENT_ROW_COLUMNS).where('tenant', '=', v.tenant).where('client_id', '=', v.clientId);
    return lock === 'share' ? q.forShare() : lock === 'update' ? q.forUpdate() : q;
  });
// Prepared in each lock mode: every ticket, project and asset create locks its client with it.
const clientRowQueries: Record<RowLock, ReturnType<typeof clientRowById>> = { none: clientRowById('none'), share: clientRowById('share'), update: clientRowById('update') };

export async function findClientRow(db: Executor, tenant: string, clientId: string, lock: RowLock = 'none'): Promise<ClientRow | undefined> {
  return (await clientRowQueries[lock](db, { tenant, clientId }))[0];
}

export async function findClientIdByName(db: Executor, tenant: string, name: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('clients')
    .select('client_id')
    .where('tenant', '=', tenant)
    .where(sql<string>`lower(client_name)`, '=', sql<string>`lower(${name})`)
    .executeTakeFirst();
  return row?.client_id;
}

export async function insertClient(db: Executor, row: Insertable<ClientsTable>): Promise<void> {
  await db.insertInto('clients').values(row).execute();
}

export async function updateClient(db: Executor, tenant: string, clientId: string, set: Updateable<ClientsTable>): Promise<void> {
  await db.updateTable('clients').set(set).where('tenant', '=', tenant).where('client_id', '=', clientId).execute();
}

export async function deleteClient(db: Executor, tenant: string, clientId: string): Promise<void> {
  await db.deleteFrom('clients').where('tenant', '=', tenant).where('client_id', '=', clientId).execute();
}

export interface ClientListFilter {
  /** Client-portal scope: only this client. */
  onlyClientId?: string;
  clientType?: ClientType;
  billingCycle?: BillingCycle;
  isInactive?: boolean;
  isMerged?: boolean;
  /** Tombstones are listed only when asked for (isMerged true, or this). */
  includeMerged?: boolean;
  parentClientId?: string;
  search?: string;
}

function filteredClients(db: Executor, tenant: string, f: ClientListFilter) {
  let q = db.selectFrom('clients as c').where('c.tenant', '=', tenant);
  if (f.onlyClientId !== undefined) q = q.where('c.client_id', '=', f.onlyClientId);
  if (f.clientType !== undefined) q = q.where('c.client_type', '=', f.clientType);
  if (f.billingCycle !== undefined) q = q.where('c.billing_cycle', '=', f.billingCycle);
  if (f.isInactive !== undefined) q = q.where('c.is_inactive', '=', f.isInactive);
  if (f.isMerged !== undefined) q = q.where('c.merged_into_client_id', f.isMerged ? 'is not' : 'is', null);
  else if (!f.includeMerged) q = q.where('c.merged_into_client_id', 'is', null);
  if (f.parentClientId !== undefined) q = q.where('c.parent_client_id', '=', f.parentClientId);
  if (f.search !== undefined) {
    const p = likePattern(f.search);
    q = q.where((eb) =>
      eb.or([
        eb('c.client_name', 'ilike', p),
        eb('c.tax_id_number', 'ilike', p),
        // Uncorrelated, so PostgreSQL hashes the matching default locations once instead of probing per client.
        eb(
          'c.client_id',
          'in',
          eb
            .selectFrom('client_locations as l')
            .select('l.client_id')
            .where('l.tenant', '=', tenant)
            .where('l.is_default', '=', true)
            .where((lb) => lb.or([lb('l.email', 'ilike', p), lb('l.phone', 'ilike', p), lb('l.city', 'ilike', p)])),
        ),
      ]),
    );
  }
  return q;
}

/**
 * The page is picked from `clients` alone (an index walk for the name and timestamp sorts) and only its
 * rows are joined to their default location; the count never touches locations unless the search needs
 * them. Ties break on client_id in the requested direction (a total order, so pages never overlap).
 */
export function clientList(db: Executor, tenant: string, f: ClientListFilter) {
  return defineList({
    from: filteredClients(db, tenant, f),
    page: filteredClients(db, tenant, f).select(CLIENT_COLUMNS),
    sorts: {
      client_name: [sql`lower(c.client_name)`],
      created_at: ['c.created_at'],
      updated_at: ['c.updated_at'],
      client_since: [{ by: 'c.client_since', nullsLast: true }],
      billing_cycle: ['c.billing_cycle'],
    },
    defaultSort: 'client_name',
    defaultOrder: 'asc',
    tieBreaker: 'c.client_id',
    updatedAt: 'c.updated_at',
    // The maintained total counts the tenant's clients that are not merged: exactly this list unfiltered.
    counter: whenUnfiltered({ ...f, includeMerged: f.includeMerged || undefined }, { tenant, list: 'clients' }),
    // The late-joined default location's version is read on the page's 25 rows (after the limit).
    version: rowVersion('c.tenant', ['c'], [sql`(select l.xmin from client_locations l where l.tenant = c.tenant and l.client_id = c.client_id and l.is_default)`]),
    lateJoin: (page) =>
      db
        .selectFrom(page.as('c'))
        .leftJoin('client_locations as l', (j) =>
          j.onRef('l.tenant', '=', 'c.tenant').onRef('l.client_id', '=', 'c.client_id').on('l.is_default', '=', true),
        )
        .select(CLIENT_COLUMNS)
        .select(LOCATION_COLUMNS),
  });
}

export interface ClientStatsRow {
  billing_cycle: BillingCycle;
  client_type: ClientType;
  is_inactive: boolean;
  is_merged: boolean;
  n: number;
}

export async function clientStatsRows(db: Executor, tenant: string, onlyClientId?: string): Promise<ClientStatsRow[]> {
  let q = db
    .selectFrom('clients')
    .where('tenant', '=', tenant)
    .select((eb) => [
      'billing_cycle',
      'client_type',
      'is_inactive',
      sql<boolean>`merged_into_client_id is not null`.as('is_merged'),
      eb.fn.countAll<number>().as('n'),
    ])
    .groupBy(['billing_cycle', 'client_type', 'is_inactive', sql`merged_into_client_id is not null`]);
  if (onlyClientId !== undefined) q = q.where('client_id', '=', onlyClientId);
  const rows = await q.execute();
  return rows.map((r) => ({ ...r, n: Number(r.n) }));
}
