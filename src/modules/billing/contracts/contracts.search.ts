import type { Executor } from '../../../platform/db/executor.ts';
import { joined, listIdsOf } from '../../../platform/search/indexing.ts';
import type { SearchIndexer } from '../../../platform/search/types.ts';

/** Contracts: name as title, client and status as subtitle; client-portal keys find their own client's. */
export const contractSearchIndexer: SearchIndexer = {
  type: 'contract',
  async load(db: Executor, tenant, ids) {
    if (ids.length === 0) return [];
    const rows = await db
      .selectFrom('contracts as c')
      .innerJoin('clients as cl', (j) => j.onRef('cl.tenant', '=', 'c.tenant').onRef('cl.client_id', '=', 'c.client_id'))
      .select(['c.contract_id', 'c.client_id', 'c.contract_name', 'c.contract_description', 'c.status', 'c.currency_code', 'c.updated_at', 'cl.client_name'])
      .where('c.tenant', '=', tenant)
      .where('c.contract_id', 'in', ids)
      .execute();
    return rows.map((r) => ({
      type: 'contract' as const,
      id: r.contract_id,
      title: r.contract_name,
      subtitle: joined(r.client_name, r.status, r.currency_code),
      body: r.contract_description,
      url: `/contracts/${r.contract_id}`,
      clientId: r.client_id,
      updatedAt: r.updated_at,
    }));
  },
  listIds: (db, tenant, afterId, limit) => listIdsOf(db, 'contracts', 'contract_id', tenant, afterId, limit),
};

/** A contract's assignment to a billing profile: found by contract, client or profile name. */
export const clientContractSearchIndexer: SearchIndexer = {
  type: 'client_contract',
  async load(db: Executor, tenant, ids) {
    if (ids.length === 0) return [];
    const rows = await db
      .selectFrom('client_contracts as cc')
      .innerJoin('contracts as c', (j) => j.onRef('c.tenant', '=', 'cc.tenant').onRef('c.contract_id', '=', 'cc.contract_id'))
      .innerJoin('clients as cl', (j) => j.onRef('cl.tenant', '=', 'cc.tenant').onRef('cl.client_id', '=', 'cc.client_id'))
      .innerJoin('client_billing_profiles as bp', (j) => j.onRef('bp.tenant', '=', 'cc.tenant').onRef('bp.billing_profile_id', '=', 'cc.billing_profile_id'))
      .select(['cc.client_contract_id', 'cc.contract_id', 'cc.client_id', 'cc.is_active', 'cc.updated_at', 'c.contract_name', 'cl.client_name', 'bp.name as profile_name'])
      .where('cc.tenant', '=', tenant)
      .where('cc.client_contract_id', 'in', ids)
      .execute();
    return rows.map((r) => ({
      type: 'client_contract' as const,
      id: r.client_contract_id,
      parentType: 'contract',
      parentId: r.contract_id,
      title: r.contract_name,
      subtitle: joined(r.client_name, r.profile_name, r.is_active ? 'active' : 'inactive'),
      url: `/contracts/${r.contract_id}`,
      clientId: r.client_id,
      updatedAt: r.updated_at,
    }));
  },
  listIds: (db, tenant, afterId, limit) => listIdsOf(db, 'client_contracts', 'client_contract_id', tenant, afterId, limit),
};
