import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import type { Executor } from '../../../platform/db/executor.ts';
import { likePattern } from '../../../platform/db/like.ts';
import type { BillingFrequency, ContractLineServicesTable, ContractLinesTable, ContractLineType } from '../../../platform/db/schema.billing.ts';
import { defineList } from '../../../platform/http/list.ts';

export type LineRow = Selectable<ContractLinesTable> & { contract_count: number };

export interface LineServiceRow {
  contract_line_id: string;
  service_id: string;
  service_name: string;
  item_kind: 'service' | 'product';
  billing_method: 'fixed' | 'hourly' | 'usage';
  quantity: number;
  custom_rate_cents: number | null;
  default_rate: number;
  currency_code: string;
}

/** How many contracts the line is attached to (correlated to the outer `l`). */
const contractCount = sql<number>`(select count(*) from contract_line_attachments a where a.tenant = l.tenant and a.contract_line_id = l.contract_line_id)`;

function lineView(db: Executor, tenant: string) {
  return db
    .selectFrom('contract_lines as l')
    .where('l.tenant', '=', tenant)
    .selectAll('l')
    .select(contractCount.as('contract_count'));
}

export async function findLine(db: Executor, tenant: string, id: string, lock = false): Promise<LineRow | undefined> {
  let q = lineView(db, tenant).where('l.contract_line_id', '=', id);
  if (lock) q = q.forUpdate('l');
  const row = await q.executeTakeFirst();
  return row && { ...row, contract_count: Number(row.contract_count) };
}

export interface LineFilter {
  search?: string;
  type?: ContractLineType;
  frequency?: BillingFrequency;
  currency?: string;
  isActive?: boolean;
  contractId?: string;
  /** Client-portal scope: only lines attached to this client's contracts. */
  onlyClientId?: string;
}

export function lineList(db: Executor, tenant: string, f: LineFilter) {
  const filtered = <Q extends ReturnType<typeof bare>>(q: Q): Q => {
    let r = q as ReturnType<typeof bare>;
    if (f.type) r = r.where('l.contract_line_type', '=', f.type);
    if (f.frequency) r = r.where('l.billing_frequency', '=', f.frequency);
    if (f.currency) r = r.where('l.currency_code', '=', f.currency);
    if (f.isActive !== undefined) r = r.where('l.is_active', '=', f.isActive);
    if (f.search) r = r.where('l.contract_line_name', 'ilike', likePattern(f.search));
    if (f.contractId || f.onlyClientId) {
      r = r.where((eb) =>
        eb.exists(
          eb
            .selectFrom('contract_line_attachments as a')
            .innerJoin('contracts as c', (j) => j.onRef('c.tenant', '=', 'a.tenant').onRef('c.contract_id', '=', 'a.contract_id'))
            .select(sql`1`.as('x'))
            .whereRef('a.tenant', '=', 'l.tenant')
            .whereRef('a.contract_line_id', '=', 'l.contract_line_id')
            .$if(f.contractId !== undefined, (q) => q.where('a.contract_id', '=', f.contractId!))
            .$if(f.onlyClientId !== undefined, (q) => q.where('c.client_id', '=', f.onlyClientId!)),
        ),
      );
    }
    return r as Q;
  };
  const bare = (d: Executor) => d.selectFrom('contract_lines as l').where('l.tenant', '=', tenant);
  return defineList({
    from: filtered(bare(db)),
    page: filtered(bare(db)).selectAll('l').select(contractCount.as('contract_count')),
    sorts: {
      contract_line_name: [sql`lower(l.contract_line_name)`],
      contract_line_type: ['l.contract_line_type', sql`lower(l.contract_line_name)`],
      created_at: ['l.created_at'],
      updated_at: ['l.updated_at'],
    },
    defaultSort: 'contract_line_name',
    defaultOrder: 'asc',
    tieBreaker: 'l.contract_line_id',
    updatedAt: 'l.updated_at',
  });
}

export async function insertLine(db: Executor, row: Insertable<ContractLinesTable>): Promise<void> {
  await db.insertInto('contract_lines').values(row).execute();
}

export async function updateLine(db: Executor, tenant: string, id: string, set: Updateable<ContractLinesTable>): Promise<void> {
  await db.updateTable('contract_lines').set(set).where('tenant', '=', tenant).where('contract_line_id', '=', id).execute();
}

export async function deleteLine(db: Executor, tenant: string, id: string): Promise<void> {
  await db.deleteFrom('contract_lines').where('tenant', '=', tenant).where('contract_line_id', '=', id).execute();
}

/** The services of these lines with their catalogue names, in name order. */
export async function servicesOfLines(db: Executor, tenant: string, lineIds: readonly string[]): Promise<Map<string, LineServiceRow[]>> {
  const out = new Map<string, LineServiceRow[]>();
  if (lineIds.length === 0) return out;
  const rows = await db
    .selectFrom('contract_line_services as ls')
    .innerJoin('service_catalog as s', (j) => j.onRef('s.tenant', '=', 'ls.tenant').onRef('s.service_id', '=', 'ls.service_id'))
    .select(['ls.contract_line_id', 'ls.service_id', 's.service_name', 's.item_kind', 's.billing_method', 'ls.quantity', 'ls.custom_rate_cents', 's.default_rate', 's.currency_code'])
    .where('ls.tenant', '=', tenant)
    .where('ls.contract_line_id', 'in', lineIds)
    .orderBy(sql`lower(s.service_name)`)
    .orderBy('ls.service_id')
    .execute();
  for (const r of rows) out.set(r.contract_line_id, [...(out.get(r.contract_line_id) ?? []), r]);
  return out;
}

export async function findLineService(db: Executor, tenant: string, lineId: string, serviceId: string): Promise<Selectable<ContractLineServicesTable> | undefined> {
  return db
    .selectFrom('contract_line_services')
    .selectAll()
    .where('tenant', '=', tenant)
    .where('contract_line_id', '=', lineId)
    .where('service_id', '=', serviceId)
    .executeTakeFirst();
}

export async function insertLineService(db: Executor, row: Insertable<ContractLineServicesTable>): Promise<void> {
  await db.insertInto('contract_line_services').values(row).execute();
}

export async function updateLineService(db: Executor, tenant: string, lineId: string, serviceId: string, set: Updateable<ContractLineServicesTable>): Promise<void> {
  await db.updateTable('contract_line_services').set(set).where('tenant', '=', tenant).where('contract_line_id', '=', lineId).where('service_id', '=', serviceId).execute();
}

export async function deleteLineService(db: Executor, tenant: string, lineId: string, serviceId: string): Promise<void> {
  await db.deleteFrom('contract_line_services').where('tenant', '=', tenant).where('contract_line_id', '=', lineId).where('service_id', '=', serviceId).execute();
}

/** Whether a client-portal actor's client has a contract this line is attached to. */
export async function lineServesClient(db: Executor, tenant: string, lineId: string, clientId: string): Promise<boolean> {
  const row = await db
    .selectFrom('contract_line_attachments as a')
    .innerJoin('contracts as c', (j) => j.onRef('c.tenant', '=', 'a.tenant').onRef('c.contract_id', '=', 'a.contract_id'))
    .select('a.contract_id')
    .where('a.tenant', '=', tenant)
    .where('a.contract_line_id', '=', lineId)
    .where('c.client_id', '=', clientId)
    .executeTakeFirst();
  return row !== undefined;
}
