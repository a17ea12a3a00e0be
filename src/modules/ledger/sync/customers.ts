import type { OurClient } from '../books.ts';
import { insertMapping, mappingOfLocal, updateMapping, type MappingRow } from '../mappings/mappings.repo.ts';
import { newId } from '../../../platform/ids.ts';
import { LedgerProviderError, type CustomerInput, type LedgerCustomer } from '../providers/provider.ts';
import type { SyncContext } from './context.ts';
import { matchKey, requestIdOf } from './keys.ts';
import type { Outcome } from './tally.ts';
import type { CustomerSyncBody } from './sync.schemas.ts';

export type CustomerSyncParams = CustomerSyncBody;

const customerInput = (c: OurClient): CustomerInput => ({
  displayName: c.client_name.slice(0, 500),
  companyName: c.client_name.slice(0, 500),
  email: c.email,
  phone: c.phone_no,
  currency: c.default_currency_code,
});

/** The ledger's customers by match key, read once per run (only when a client needs matching). */
export class CustomerDirectory {
  private byKey: Promise<Map<string, LedgerCustomer[]>> | undefined;

  constructor(private readonly ctx: SyncContext) {}

  async find(name: string): Promise<LedgerCustomer[]> {
    this.byKey ??= this.ctx.c.provider.listCustomers(this.ctx.c.session).then((all) => {
      const map = new Map<string, LedgerCustomer[]>();
      for (const cu of all) map.set(matchKey(cu.displayName), [...(map.get(matchKey(cu.displayName)) ?? []), cu]);
      return map;
    });
    return (await this.byKey).get(matchKey(name)) ?? [];
  }
}

async function writeLink(ctx: SyncContext, client: OurClient, cu: LedgerCustomer, existing: MappingRow | undefined): Promise<void> {
  const { tenant } = ctx.actor;
  const metadata = JSON.stringify({ version: cu.version, client_updated_at: client.updated_at });
  if (existing) {
    await updateMapping(ctx.db, tenant, existing.mapping_id, { external_id: cu.id, external_name: cu.displayName, sync_status: 'synced', sync_error: null, last_synced_at: new Date(), metadata });
    return;
  }
  try {
    await insertMapping(ctx.db, { tenant, mapping_id: newId(), connection_id: ctx.c.connection.connection_id, entity_type: 'customer', local_id: client.client_id, external_id: cu.id, external_name: cu.displayName, last_synced_at: new Date(), metadata });
  } catch (err) {
    // Another run linked this client meanwhile (same customer: the request id is the same) — keep theirs.
    if ((err as { code?: unknown }).code !== '23505') throw err;
  }
}

/**
 * The ledger customer of a client, linking or creating it when there is none: a customer whose name matches
 * (case, punctuation and legal suffixes aside) is linked when it is the only one; otherwise one is created
 * with a request id derived from the client, so a retry never creates a second.
 */
export async function ensureCustomer(ctx: SyncContext, dir: CustomerDirectory, client: OurClient): Promise<{ id: string; outcome: Outcome }> {
  const existing = await mappingOfLocal(ctx.db, ctx.actor.tenant, ctx.c.connection.connection_id, 'customer', client.client_id);
  if (existing) return { id: existing.external_id, outcome: 'unchanged' };
  const matches = (await dir.find(client.client_name)).filter((cu) => cu.active);
  if (matches.length > 1) {
    throw new LedgerProviderError('conflict', `${matches.length} QuickBooks customers match '${client.client_name}' (${matches.map((m) => m.id).join(', ')}); map the client by hand`);
  }
  if (matches.length === 1) {
    await writeLink(ctx, client, matches[0]!, undefined);
    return { id: matches[0]!.id, outcome: 'linked' };
  }
  const { realmId } = ctx.c.session;
  const created = await ctx.c.provider.createCustomer(ctx.c.session, customerInput(client), requestIdOf(ctx.actor.tenant, realmId, 'customer', client.client_id));
  await writeLink(ctx, client, created, undefined);
  return { id: created.id, outcome: 'created' };
}

/**
 * Pushes one client: links or creates its customer (create, bidirectional), or updates the linked customer
 * when the client changed since the last sync (update, bidirectional; always with force_update). A customer
 * changed in the ledger since our last sync while the client changed too is a conflict, left for a person
 * unless force_update says ours wins.
 */
async function syncOne(ctx: SyncContext, dir: CustomerDirectory, client: OurClient, p: CustomerSyncParams): Promise<void> {
  const type = p.sync_type ?? 'bidirectional';
  const { tenant } = ctx.actor;
  const mapping = await mappingOfLocal(ctx.db, tenant, ctx.c.connection.connection_id, 'customer', client.client_id);
  if (!mapping) {
    if (type === 'update') return ctx.tally.record('customer', client.client_id, null, 'skipped', 'Not linked to a ledger customer (sync_type update links nothing)');
    const r = await ensureCustomer(ctx, dir, client);
    return ctx.tally.record('customer', client.client_id, r.id, r.outcome);
  }
  if (type === 'create') return ctx.tally.record('customer', client.client_id, mapping.external_id, 'unchanged', 'Already linked');
  const seen = mapping.metadata as { version?: string; client_updated_at?: string };
  const clientChanged = seen.client_updated_at !== client.updated_at;
  if (!clientChanged && !p.force_update) return ctx.tally.record('customer', client.client_id, mapping.external_id, 'unchanged');
  const remote = await ctx.c.provider.getCustomer(ctx.c.session, mapping.external_id);
  if (remote.version !== seen.version && !p.force_update) {
    await updateMapping(ctx.db, tenant, mapping.mapping_id, { sync_status: 'conflict', sync_error: 'Changed in QuickBooks and here since the last sync' });
    return ctx.tally.record('customer', client.client_id, mapping.external_id, 'conflict', 'Changed in QuickBooks and here since the last sync; sync with force_update to overwrite QuickBooks');
  }
  const { realmId } = ctx.c.session;
  const updated = await ctx.c.provider.updateCustomer(ctx.c.session, remote.id, remote.version, customerInput(client), requestIdOf(tenant, realmId, 'customer-update', client.client_id, client.updated_at, remote.version));
  await writeLink(ctx, client, updated, mapping);
  return ctx.tally.record('customer', client.client_id, updated.id, 'updated');
}

/** A failure that ends the whole run: the ledger refuses us or is down, so every further call would fail too. */
export const isFatal = (err: unknown): boolean => err instanceof LedgerProviderError && ['auth_failed', 'throttled', 'unavailable', 'unreachable', 'timeout'].includes(err.reason);

export async function syncCustomers(ctx: SyncContext, p: CustomerSyncParams): Promise<void> {
  const clients = p.client_id ? [await ctx.books.client(ctx.actor, p.client_id)] : await ctx.books.clients(ctx.actor, { includeInactive: p.include_inactive ?? false });
  const dir = new CustomerDirectory(ctx);
  for (const client of clients) {
    if (await ctx.tally.cancelled()) return;
    try {
      await syncOne(ctx, dir, client, p);
    } catch (err) {
      if (isFatal(err) || !(err instanceof LedgerProviderError)) throw err;
      await ctx.tally.record('customer', client.client_id, null, err.reason === 'conflict' ? 'conflict' : 'failed', err.message);
    }
  }
}
