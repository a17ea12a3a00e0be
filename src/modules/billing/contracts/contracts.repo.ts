import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import type { Executor } from '../../../platform/db/executor.ts';
import { likePattern } from '../../../platform/db/like.ts';
import type {
  BillingFrequency,
  ClientContractsTable,
  ContractLineAttachmentsTable,
  ContractLineType,
  ContractsTable,
  ContractStatus,
} from '../../../platform/db/schema.billing.ts';
import { defineList } from '../../../platform/http/list.ts';

export type ContractRow = Selectable<ContractsTable> & {
  client_name: string;
  client_contract_id: string;
  billing_profile_id: string;
  billing_profile_name: string;
  cc_start_date: string;
  cc_end_date: string | null;
  cc_is_active: boolean;
};

export interface AttachedLineRow {
  contract_id: string;
  contract_line_id: string;
  contract_line_name: string;
  contract_line_type: ContractLineType;
  billing_frequency: BillingFrequency;
  currency_code: string;
  is_active: boolean;
  custom_rate_cents: number | null;
  display_order: number;
}

function contractView(db: Executor, tenant: string) {
  return db
    .selectFrom('contracts as c')
    .innerJoin('clients as cl', (j) => j.onRef('cl.tenant', '=', 'c.tenant').onRef('cl.client_id', '=', 'c.client_id'))
    .innerJoin('client_contracts as cc', (j) => j.onRef('cc.tenant', '=', 'c.tenant').onRef('cc.contract_id', '=', 'c.contract_id'))
    .innerJoin('client_billing_profiles as bp', (j) => j.onRef('bp.tenant', '=', 'cc.tenant').onRef('bp.billing_profile_id', '=', 'cc.billing_profile_id'))
    .where('c.tenant', '=', tenant)
    .selectAll('c')
    .select([
      'cl.client_name',
      'cc.client_contract_id',
      'cc.billing_profile_id',
      'bp.name as billing_profile_name',
      'cc.start_date as cc_start_date',
      'cc.end_date as cc_end_date',
      'cc.is_active as cc_is_active',
    ]);
}

export async function findContract(db: Executor, tenant: string, id: string, lock = false): Promise<ContractRow | undefined> {
  let q = contractView(db, tenant).where('c.contract_id', '=', id);
  if (lock) q = q.forUpdate('c');
  return q.executeTakeFirst();
}

export interface ContractFilter {
  search?: string;
  clientId?: string;
  /** Client-portal scope. */
  onlyClientId?: string;
  status?: ContractStatus;
  frequency?: BillingFrequency;
  currency?: string;
  activeOn?: string;
}

export function contractList(db: Executor, tenant: string, f: ContractFilter) {
  const filtered = <Q extends ReturnType<typeof contractView> | ReturnType<typeof bare>>(q: Q): Q => {
    let r = q as ReturnType<typeof bare>;
    if (f.clientId) r = r.where('c.client_id', '=', f.clientId);
    if (f.onlyClientId) r = r.where('c.client_id', '=', f.onlyClientId);
    if (f.status) r = r.where('c.status', '=', f.status);
    if (f.frequency) r = r.where('c.billing_frequency', '=', f.frequency);
    if (f.currency) r = r.where('c.currency_code', '=', f.currency);
    if (f.search) r = r.where('c.contract_name', 'ilike', likePattern(f.search));
    if (f.activeOn) {
      const day = f.activeOn;
      r = r.where('c.start_date', '<=', day).where((eb) => eb.or([eb('c.end_date', 'is', null), eb('c.end_date', '>=', day)]));
    }
    return r as Q;
  };
  const bare = (d: Executor) => d.selectFrom('contracts as c').where('c.tenant', '=', tenant);
  return defineList({
    from: filtered(bare(db)),
    page: filtered(contractView(db, tenant)),
    sorts: {
      contract_name: [sql`lower(c.contract_name)`],
      start_date: ['c.start_date'],
      end_date: [{ by: 'c.end_date', nullsLast: true }],
      status: ['c.status', sql`lower(c.contract_name)`],
      created_at: ['c.created_at'],
      updated_at: ['c.updated_at'],
    },
    defaultSort: 'contract_name',
    defaultOrder: 'asc',
    tieBreaker: 'c.contract_id',
    updatedAt: 'c.updated_at',
  });
}

export async function insertContract(db: Executor, row: Insertable<ContractsTable>): Promise<void> {
  await db.insertInto('contracts').values(row).execute();
}

export async function updateContract(db: Executor, tenant: string, id: string, set: Updateable<ContractsTable>): Promise<void> {
  await db.updateTable('contracts').set(set).where('tenant', '=', tenant).where('contract_id', '=', id).execute();
}

export async function deleteContract(db: Executor, tenant: string, id: string): Promise<void> {
  await db.deleteFrom('contracts').where('tenant', '=', tenant).where('contract_id', '=', id).execute();
}

export async function insertClientContract(db: Executor, row: Insertable<ClientContractsTable>): Promise<void> {
  await db.insertInto('client_contracts').values(row).execute();
}

export async function updateClientContract(db: Executor, tenant: string, id: string, set: Updateable<ClientContractsTable>): Promise<void> {
  await db.updateTable('client_contracts').set(set).where('tenant', '=', tenant).where('client_contract_id', '=', id).execute();
}

/** The lines attached to these contracts, in display order. */
export async function linesOfContracts(db: Executor, tenant: string, contractIds: readonly string[]): Promise<Map<string, AttachedLineRow[]>> {
  const out = new Map<string, AttachedLineRow[]>();
  if (contractIds.length === 0) return out;
  const rows = await db
    .selectFrom('contract_line_attachments as a')
    .innerJoin('contract_lines as l', (j) => j.onRef('l.tenant', '=', 'a.tenant').onRef('l.contract_line_id', '=', 'a.contract_line_id'))
    .select(['a.contract_id', 'a.contract_line_id', 'l.contract_line_name', 'l.contract_line_type', 'l.billing_frequency', 'l.currency_code', 'l.is_active', 'a.custom_rate_cents', 'a.display_order'])
    .where('a.tenant', '=', tenant)
    .where('a.contract_id', 'in', contractIds)
    .orderBy('a.display_order')
    .orderBy(sql`lower(l.contract_line_name)`)
    .orderBy('a.contract_line_id')
    .execute();
  for (const r of rows) out.set(r.contract_id, [...(out.get(r.contract_id) ?? []), r]);
  return out;
}

export async function findAttachment(db: Executor, tenant: string, contractId: string, lineId: string): Promise<Selectable<ContractLineAttachmentsTable> | undefined> {
  return db
    .selectFrom('contract_line_attachments')
    .selectAll()
    .where('tenant', '=', tenant)
    .where('contract_id', '=', contractId)
    .where('contract_line_id', '=', lineId)
    .executeTakeFirst();
}

/** The display order after the contract's last attached line. */
export async function nextDisplayOrder(db: Executor, tenant: string, contractId: string): Promise<number> {
  const r = await db
    .selectFrom('contract_line_attachments')
    .select((eb) => eb.fn.max('display_order').as('m'))
    .where('tenant', '=', tenant)
    .where('contract_id', '=', contractId)
    .executeTakeFirst();
  return r?.m === null || r?.m === undefined ? 0 : Number(r.m) + 1;
}

export async function insertAttachment(db: Executor, row: Insertable<ContractLineAttachmentsTable>): Promise<void> {
  await db.insertInto('contract_line_attachments').values(row).execute();
}

export async function deleteAttachment(db: Executor, tenant: string, contractId: string, lineId: string): Promise<void> {
  await db.deleteFrom('contract_line_attachments').where('tenant', '=', tenant).where('contract_id', '=', contractId).where('contract_line_id', '=', lineId).execute();
}

export async function lineById(db: Executor, tenant: string, lineId: string) {
  return db
    .selectFrom('contract_lines')
    .select(['contract_line_id', 'contract_line_name', 'currency_code', 'is_active'])
    .where('tenant', '=', tenant)
    .where('contract_line_id', '=', lineId)
    .forUpdate()
    .executeTakeFirst();
}
