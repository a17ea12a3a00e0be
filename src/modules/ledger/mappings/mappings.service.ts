import type { Kysely } from 'kysely';
import type { Actor } from '../../../platform/auth/context.ts';
import { withTransaction, type Executor } from '../../../platform/db/executor.ts';
import type { DB } from '../../../platform/db/schema.ts';
import type { LedgerEntityType } from '../../../platform/db/schema.ledger.ts';
import { AppError, conflict, notFound, unprocessable, validation } from '../../../platform/http/errors.ts';
import { listPage } from '../../../platform/http/list.ts';
import { newId } from '../../../platform/ids.ts';
import { iso } from '../../../platform/time.ts';
import type { Connected, ConnectionsService } from '../connection/connections.service.ts';
import { LedgerProviderError } from '../providers/provider.ts';
import type { ReferenceService } from '../reference/reference.service.ts';
import type { OurBooks } from '../books.ts';
import {
  clearDefault,
  deleteMapping,
  findMapping,
  insertMapping,
  mappingList,
  mappingOfLocal,
  mappingsOf,
  updateMapping,
  type MappingRow,
} from './mappings.repo.ts';
import type {
  CreateMappingBody,
  ListMappingsQuery,
  ListTypedMappingsQuery,
  Mapping,
  PutAccountMappingsBody,
  PutTaxCodeMappingsBody,
  UpdateMappingBody,
} from './mappings.schemas.ts';
import { PAYMENT_METHODS } from '../../billing/index.ts';

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ACCOUNT_KEY_RE = /^(income|expense|asset|liability|equity|bank|receivable):[^:]{1,200}$/;

/** A tax region as a mapping key: trimmed, lower case (regions match in any case). */
export const taxRegionKey = (region: string): string => region.trim().toLowerCase();

export const toMapping = (r: MappingRow, realmId: string): Mapping => ({
  mapping_id: r.mapping_id,
  realm_id: realmId,
  entity_type: r.entity_type,
  local_id: r.local_id,
  external_id: r.external_id,
  external_name: r.external_name,
  is_default: r.is_default,
  sync_status: r.sync_status,
  last_synced_at: r.last_synced_at ? iso(r.last_synced_at) : null,
  sync_error: r.sync_error,
  metadata: r.metadata,
  created_at: iso(r.created_at),
  updated_at: iso(r.updated_at),
});

function metadataOf(value: unknown): Record<string, unknown> {
  if (value === undefined) return {};
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw validation('body.metadata', 'must be a JSON object');
  if (JSON.stringify(value).length > 4096) throw validation('body.metadata', 'must be at most 4 KiB serialized');
  return value as Record<string, unknown>;
}

/**
 * The mapping ledger: one table of (entity type, our id or key) ↔ the ledger's id, per connected company.
 * Every write checks both sides: our record exists and is visible, the ledger's record exists.
 */
export function createMappingsService(deps: { db: Kysely<DB>; connections: ConnectionsService; reference: ReferenceService; books: OurBooks }) {
  const { db, connections, reference, books } = deps;

  /** Our side exists (a 422 naming the field when not) and the key is in its canonical form. */
  async function localSide(actor: Actor, type: LedgerEntityType, raw: string): Promise<string> {
    const id = raw.trim();
    const needUuid = ['customer', 'invoice', 'payment', 'item'].includes(type);
    if (needUuid && !UUID_RE.test(id)) throw validation('body.local_id', `must be the UUID of our ${type === 'customer' ? 'client' : type === 'item' ? 'catalogue service or product' : type}`);
    try {
      if (type === 'customer') await books.client(actor, id);
      if (type === 'invoice') await books.invoice(actor, id);
      if (type === 'payment') await books.payment(actor, id);
      if (type === 'item') await books.catalogItem(actor, id);
    } catch (err) {
      if (err instanceof AppError && err.code === 'NOT_FOUND') throw unprocessable(`local_id: ${err.message}`, { reason: 'local_not_found' });
      throw err;
    }
    if (type === 'account' && !ACCOUNT_KEY_RE.test(id)) throw validation('body.local_id', 'must be <account_type>:<name>, account_type one of income, expense, asset, liability, equity, bank, receivable');
    if (type === 'payment_method' && !(PAYMENT_METHODS as readonly string[]).includes(id)) throw validation('body.local_id', `must be one of ${PAYMENT_METHODS.join(', ')}`);
    if (type === 'tax_code') return taxRegionKey(id);
    return id;
  }

  /** The ledger's side exists; returns its name. A record the ledger does not have is a 422. */
  async function externalSide(actor: Actor, c: Connected, type: LedgerEntityType, externalId: string): Promise<string | null> {
    const realm = c.connection.realm_id;
    const missing = () => unprocessable(`QuickBooks company ${realm} has no ${type.replace('_', ' ')} '${externalId}'`, { reason: 'external_not_found', entity_type: type, external_id: externalId });
    const inList = async (list: Promise<{ id: string; name: string }[]>) => {
      const hit = (await list).find((r) => r.id === externalId);
      if (!hit) throw missing();
      return hit.name;
    };
    try {
      return await connections.call(actor.tenant, c.connection, async () => {
        switch (type) {
          case 'account': return inList(reference.accounts(actor.tenant, realm));
          case 'tax_code': return inList(reference.taxCodes(actor.tenant, realm));
          case 'item': return inList(reference.items(actor.tenant, realm));
          case 'term': return inList(c.provider.listTerms(c.session));
          case 'payment_method': return inList(c.provider.listPaymentMethods(c.session));
          case 'customer': return (await c.provider.getCustomer(c.session, externalId)).displayName;
          case 'invoice': return (await c.provider.getInvoice(c.session, externalId)).docNumber;
          case 'payment': return (await c.provider.getPayment(c.session, externalId)).reference;
        }
      });
    } catch (err) {
      if (err instanceof AppError && err.code === 'UPSTREAM_ERROR' && (err.details as { reason?: string }).reason === 'not_found') throw missing();
      if (err instanceof LedgerProviderError && err.reason === 'not_found') throw missing();
      throw err;
    }
  }

  const defaultScope = (type: LedgerEntityType, localId: string) => (type === 'account' ? localId.split(':')[0] : undefined);

  /** Creates or replaces the mapping of one local key (the PUT lists). */
  async function upsert(trx: Executor, tenant: string, c: Connected, m: { type: LedgerEntityType; localId: string; externalId: string; name: string | null; isDefault: boolean }): Promise<void> {
    if (m.isDefault) await clearDefault(trx, tenant, c.connection.connection_id, m.type, defaultScope(m.type, m.localId));
    const existing = await mappingOfLocal(trx, tenant, c.connection.connection_id, m.type, m.localId);
    if (existing) {
      await updateMapping(trx, tenant, existing.mapping_id, { external_id: m.externalId, external_name: m.name, is_default: m.isDefault, sync_status: 'synced', sync_error: null });
    } else {
      await insertMapping(trx, { tenant, mapping_id: newId(), connection_id: c.connection.connection_id, entity_type: m.type, local_id: m.localId, external_id: m.externalId, external_name: m.name, is_default: m.isDefault, metadata: '{}' });
    }
  }

  async function typedList(actor: Actor, type: LedgerEntityType, query: ListTypedMappingsQuery | ListMappingsQuery) {
    const c = await connections.connected(actor.tenant, query.realm_id);
    const list = mappingList(db, actor.tenant, { connectionId: c.connection.connection_id, entityType: type, syncStatus: query.sync_status, localId: query.local_id, externalId: query.external_id });
    return listPage(query, list, (rows) => rows.map((r) => toMapping(r, c.connection.realm_id)));
  }

  async function visible(actor: Actor, mappingId: string, type?: LedgerEntityType): Promise<{ row: MappingRow; c: Connected }> {
    const row = await findMapping(db, actor.tenant, mappingId);
    if (!row || (type && row.entity_type !== type)) throw notFound('Mapping', mappingId);
    const live = (await connections.status(actor)).connections.find((x) => x.connection_id === row.connection_id);
    if (!live || live.status === 'disconnected') throw notFound('Mapping', mappingId);
    return { row, c: await connections.connected(actor.tenant, live.realm_id) };
  }

  const duplicate = (err: unknown, what: string) => {
    if ((err as { code?: unknown } | null)?.code === '23505') throw conflict(`${what} is already mapped`, { reason: 'already_mapped' });
    throw err;
  };

  return {
    async list(actor: Actor, query: ListMappingsQuery) {
      const c = await connections.connected(actor.tenant, query.realm_id);
      const list = mappingList(db, actor.tenant, { connectionId: c.connection.connection_id, entityType: query.entity_type, syncStatus: query.sync_status, localId: query.local_id, externalId: query.external_id });
      return listPage(query, list, (rows) => rows.map((r) => toMapping(r, c.connection.realm_id)));
    },
    listOf: typedList,

    async get(actor: Actor, mappingId: string): Promise<Mapping> {
      const { row, c } = await visible(actor, mappingId);
      return toMapping(row, c.connection.realm_id);
    },

    async create(actor: Actor, realmId: string | undefined, body: CreateMappingBody): Promise<Mapping> {
      const c = await connections.connected(actor.tenant, realmId);
      const localId = await localSide(actor, body.entity_type, body.local_id);
      const metadata = metadataOf(body.metadata);
      const name = body.external_name !== undefined ? body.external_name : await externalSide(actor, c, body.entity_type, body.external_id);
      const mappingId = newId();
      await withTransaction(db, async (trx) => {
        if (body.is_default) await clearDefault(trx, actor.tenant, c.connection.connection_id, body.entity_type, defaultScope(body.entity_type, localId));
        await insertMapping(trx, {
          tenant: actor.tenant, mapping_id: mappingId, connection_id: c.connection.connection_id, entity_type: body.entity_type, local_id: localId,
          external_id: body.external_id, external_name: name, is_default: body.is_default ?? false, metadata: JSON.stringify(metadata), last_synced_at: null,
        });
      }).catch((err) => duplicate(err, `This ${body.entity_type.replace('_', ' ')} (local '${localId}' or external '${body.external_id}')`));
      return toMapping((await findMapping(db, actor.tenant, mappingId))!, c.connection.realm_id);
    },

    async update(actor: Actor, mappingId: string, body: UpdateMappingBody): Promise<Mapping> {
      const { row, c } = await visible(actor, mappingId);
      const accepted = body.sync_status === 'synced' && row.sync_status !== 'synced' ? await acceptRemote(actor, c, row) : {};
      const externalId = body.external_id ?? row.external_id;
      const name = body.external_name !== undefined ? body.external_name : body.external_id !== undefined ? await externalSide(actor, c, row.entity_type, externalId) : row.external_name;
      await withTransaction(db, async (trx) => {
        if (body.is_default) await clearDefault(trx, actor.tenant, c.connection.connection_id, row.entity_type, defaultScope(row.entity_type, row.local_id));
        await updateMapping(trx, actor.tenant, mappingId, {
          external_id: externalId,
          external_name: name,
          ...(body.is_default !== undefined ? { is_default: body.is_default } : {}),
          ...(body.metadata !== undefined ? { metadata: JSON.stringify(metadataOf(body.metadata)) } : {}),
          ...(body.external_id !== undefined && body.external_id !== row.external_id ? { sync_status: 'synced' as const, sync_error: null } : {}),
          ...accepted,
        });
      }).catch((err) => duplicate(err, `External ${row.entity_type.replace('_', ' ')} '${externalId}'`));
      return toMapping((await findMapping(db, actor.tenant, mappingId))!, c.connection.realm_id);
    },

    async remove(actor: Actor, mappingId: string, type?: LedgerEntityType): Promise<void> {
      await visible(actor, mappingId, type);
      await deleteMapping(db, actor.tenant, mappingId);
    },

    /** Upserts account mappings by `<account_type>:<local_name>`; replace_existing drops the others. */
    async putAccounts(actor: Actor, realmId: string | undefined, body: PutAccountMappingsBody): Promise<Mapping[]> {
      const c = await connections.connected(actor.tenant, realmId);
      const entries = body.mappings.map((m, i) => ({ i, localId: `${m.account_type}:${(m.local_name ?? 'default').trim()}`, externalId: m.qbo_account_id, isDefault: m.is_default ?? false, scope: m.account_type }));
      return putList(actor, c, 'account', entries, body.replace_existing ?? false, 'qbo_account_id');
    },

    async putTaxCodes(actor: Actor, realmId: string | undefined, body: PutTaxCodeMappingsBody): Promise<Mapping[]> {
      const c = await connections.connected(actor.tenant, realmId);
      const entries = body.mappings.map((m, i) => ({ i, localId: taxRegionKey(m.tax_region), externalId: m.qbo_tax_code_id, isDefault: m.is_default ?? false, scope: '' }));
      return putList(actor, c, 'tax_code', entries, body.replace_existing ?? false, 'qbo_tax_code_id');
    },
  };

  /**
   * Accepting a drifted or conflicting mapping: both records as they are now become the baseline (the ledger's
   * version, our last change), so the next sync reports or pushes only what changes after this.
   */
  async function acceptRemote(actor: Actor, c: Connected, row: MappingRow) {
    const seen = row.metadata;
    const now = await connections.call(actor.tenant, c.connection, async () => {
      if (row.entity_type === 'invoice') {
        const inv = await c.provider.getInvoice(c.session, row.external_id);
        const ours = await books.invoice(actor, row.local_id);
        return { ...seen, version: inv.version, total_cents: inv.totalCents, doc_number: inv.docNumber, voided: inv.voided, invoice_updated_at: ours.updated_at };
      }
      if (row.entity_type === 'customer') {
        const ours = await books.client(actor, row.local_id);
        return { ...seen, version: (await c.provider.getCustomer(c.session, row.external_id)).version, client_updated_at: ours.updated_at };
      }
      return seen;
    });
    return { metadata: JSON.stringify(now), sync_status: 'synced' as const, sync_error: null, last_synced_at: new Date() };
  }

  async function putList(actor: Actor, c: Connected, type: 'account' | 'tax_code', entries: { i: number; localId: string; externalId: string; isDefault: boolean; scope: string }[], replace: boolean, field: string): Promise<Mapping[]> {
    const seen = new Set<string>();
    const defaults = new Set<string>();
    for (const e of entries) {
      if (seen.has(e.localId)) throw validation(`body.mappings.${e.i}`, `maps '${e.localId}' a second time`);
      seen.add(e.localId);
      if (e.isDefault && defaults.has(e.scope)) throw validation(`body.mappings.${e.i}.is_default`, type === 'account' ? `a second default for account type '${e.scope}'` : 'a second default tax code');
      if (e.isDefault) defaults.add(e.scope);
    }
    const read = (): Promise<{ id: string; name: string }[]> => (type === 'account' ? reference.accounts(actor.tenant, c.connection.realm_id) : reference.taxCodes(actor.tenant, c.connection.realm_id));
    const list = await connections.call(actor.tenant, c.connection, read);
    const names = new Map(list.map((r) => [r.id, r.name]));
    for (const e of entries) {
      if (!names.has(e.externalId)) throw unprocessable(`mappings[${e.i}].${field}: QuickBooks company ${c.connection.realm_id} has no ${type === 'account' ? 'account' : 'tax code'} '${e.externalId}'`, { reason: 'external_not_found', index: e.i });
    }
    const id = c.connection.connection_id;
    await withTransaction(db, async (trx) => {
      if (replace) {
        const keep = new Set(entries.map((e) => e.localId));
        for (const old of await mappingsOf(trx, actor.tenant, id, [type])) if (!keep.has(old.local_id)) await deleteMapping(trx, actor.tenant, old.mapping_id);
      }
      for (const e of entries) await upsert(trx, actor.tenant, c, { type, localId: e.localId, externalId: e.externalId, name: names.get(e.externalId) ?? null, isDefault: e.isDefault });
    });
    return (await mappingsOf(db, actor.tenant, id, [type])).map((r) => toMapping(r, c.connection.realm_id));
  }
}

export type MappingsService = ReturnType<typeof createMappingsService>;
