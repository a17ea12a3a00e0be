import type { Actor } from '../../../platform/auth/context.ts';
import { pageOfArray } from '../../../platform/http/list.ts';
import type { ConnectionsService } from '../connection/connections.service.ts';
import type { LedgerAccount, LedgerItem, LedgerPaymentMethod, LedgerProvider, LedgerSession, LedgerTaxCode, LedgerTerm } from '../providers/provider.ts';
import type { ReferenceQuery } from './reference.schemas.ts';

/** How long a read of the ledger's lists is reused: they change rarely, and the ledger counts every call. */
export const REFERENCE_TTL_MS = 60_000;

type Kind = 'accounts' | 'items' | 'tax_codes' | 'terms' | 'payment_methods';

const views = {
  accounts: (a: LedgerAccount) => ({ id: a.id, name: a.name, full_name: a.fullName, classification: a.classification, account_type: a.type, sub_type: a.subType, active: a.active, currency_code: a.currency }),
  items: (i: LedgerItem) => ({ id: i.id, name: i.name, type: i.type, active: i.active, description: i.description, unit_price_cents: i.unitPriceCents, income_account_id: i.incomeAccountId }),
  tax_codes: (t: LedgerTaxCode) => ({ id: t.id, name: t.name, description: t.description, active: t.active, taxable: t.taxable }),
  terms: (t: LedgerTerm) => ({ id: t.id, name: t.name, type: t.type, due_days: t.dueDays, active: t.active }),
  payment_methods: (m: LedgerPaymentMethod) => ({ id: m.id, name: m.name, type: m.type, active: m.active }),
};

const readers: Record<Kind, (p: LedgerProvider, s: LedgerSession) => Promise<{ name: string; active: boolean }[]>> = {
  accounts: (p, s) => p.listAccounts(s),
  items: (p, s) => p.listItems(s),
  tax_codes: (p, s) => p.listTaxCodes(s),
  terms: (p, s) => p.listTerms(s),
  payment_methods: (p, s) => p.listPaymentMethods(s),
};

/** The ledger's reference lists, read through and kept for a minute per tenant, company and kind. */
export function createReferenceService(connections: ConnectionsService) {
  const cache = new Map<string, { at: number; rows: { name: string; active: boolean }[] }>();

  async function rows(tenant: string, realmId: string | undefined, kind: Kind, refresh = false) {
    const c = await connections.connected(tenant, realmId);
    const key = `${tenant}:${c.connection.connection_id}:${kind}`;
    const hit = cache.get(key);
    if (hit && !refresh && Date.now() - hit.at < REFERENCE_TTL_MS) return hit.rows;
    const fresh = await connections.call(tenant, c.connection, () => readers[kind](c.provider, c.session));
    cache.set(key, { at: Date.now(), rows: fresh });
    return fresh;
  }

  async function list<K extends Kind>(actor: Actor, kind: K, query: ReferenceQuery) {
    const all = await rows(actor.tenant, query.realm_id, kind, query.refresh);
    const needle = query.search?.toLowerCase();
    const picked = all.filter((r) => (query.active === undefined || r.active === query.active) && (!needle || r.name.toLowerCase().includes(needle)));
    const view = views[kind] as (r: unknown) => ReturnType<(typeof views)[K]>;
    const page = pageOfArray(query, picked);
    return { ...page, data: page.data.map(view) };
  }

  return {
    list,
    /** The cached list for other ledger services (mapping validation, export preflight). */
    accounts: (tenant: string, realmId: string | undefined) => rows(tenant, realmId, 'accounts') as Promise<LedgerAccount[]>,
    taxCodes: (tenant: string, realmId: string | undefined) => rows(tenant, realmId, 'tax_codes') as Promise<LedgerTaxCode[]>,
    items: (tenant: string, realmId: string | undefined, refresh = false) => rows(tenant, realmId, 'items', refresh) as Promise<LedgerItem[]>,
    /** Forget a kind after a write that changed it (an item created by an export). */
    forget: (tenant: string, connectionId: string, kind: Kind) => cache.delete(`${tenant}:${connectionId}:${kind}`),
  };
}

export type ReferenceService = ReturnType<typeof createReferenceService>;
