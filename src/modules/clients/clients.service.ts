import cc from 'currency-codes';
import type { Kysely, Transaction, Updateable } from 'kysely';
import type { Actor } from '../../platform/auth/context.ts';
import { assertParentAllowed } from './clients.hierarchy.ts';
import { withTransaction } from '../../platform/db/executor.ts';
import type { ClientsTable, DB } from '../../platform/db/schema.ts';
import { assertIfMatch } from '../../platform/http/etag.ts';
import { conflict, notFound, unprocessable, validation } from '../../platform/http/errors.ts';
import { optionalText, requiredText } from '../../platform/http/text.ts';
import { keptListPage } from '../../platform/http/list.ts';
import { newId } from '../../platform/ids.ts';
import { assertNotMerged, canSeeClient, portalClientId } from './clients.access.ts';
import { countClientDependents } from './clients.dependents.ts';
import { syncSearch } from '../../platform/search/writer.ts';
import { rowsNamingClient } from './clients.search.ts';
import { CLIENT_EVENTS, emitClientEvent, emitClientUpdated } from './clients.events.ts';
import { toClient } from './clients.mapper.ts';
import {
  clientList,
  clientStatsRows,
  deleteClient,
  findClientIdByName,
  findClientView,
  insertClient,
  updateClient,
  type ClientViewRow,
} from './clients.repo.ts';
import {
  BILLING_CYCLES,
  CLIENT_TYPES,
  type Client,
  type ClientStats,
  type CreateClientBody,
  type ListClientsQuery,
  type UpdateClientBody,
} from './clients.schemas.ts';
import { insertBillingProfile, renameDefaultProfile } from './billing-profiles/billing-profiles.repo.ts';
import { findDefaultLocation, updateLocation } from './locations/locations.repo.ts';
import { addLocation, normalizeLocationFields } from './locations/locations.rules.ts';
import type { LocationCreateBody } from './locations/locations.schemas.ts';


function currencyCode(code: string): string {
  const upper = code.toUpperCase();
  if (!cc.code(upper)) throw validation('body.default_currency_code', `'${code}' is not an ISO 4217 currency code`);
  return upper;
}


/** email and phone_no of a new client live on its default location, so they need one. */
function initialLocation(body: CreateClientBody): LocationCreateBody | undefined {
  const contact = { email: optionalText(body.email), phone: optionalText(body.phone_no) };
  if (!body.location) {
    for (const [field, value] of [['email', contact.email], ['phone_no', contact.phone]] as const) {
      if (value) {
        throw validation(`body.${field}`, `${field} is stored on the client's default location; send it together with a \`location\` object (country_code and country_name are required there)`);
      }
    }
    return undefined;
  }
  if (body.location.is_active === false) throw validation('body.location.is_active', 'the first location becomes the client\'s default and must be active');
  const location = { ...body.location };
  for (const [field, locField, value] of [['email', 'email', contact.email], ['phone_no', 'phone', contact.phone]] as const) {
    if (!value) continue;
    const given = optionalText(location[locField]);
    if (given && given !== value) throw validation(`body.${field}`, `differs from body.location.${locField}; send one of them`);
    location[locField] = value;
  }
  normalizeLocationFields(location, 'body.location');
  return location;
}

async function assertNameFree(trx: Transaction<DB>, tenant: string, name: string, self?: string): Promise<void> {
  const existing = await findClientIdByName(trx, tenant, name);
  if (existing && existing !== self) {
    throw conflict(`A client named '${name}' already exists (names are unique regardless of case)`, { client_id: existing });
  }
}

/** The body's client columns, normalised (email and phone_no live on the default location, so apart). */
function clientUpdate(body: UpdateClientBody): Updateable<ClientsTable> {
  return {
    client_name: body.client_name === undefined ? undefined : requiredText(body.client_name, 'body.client_name'),
    client_type: body.client_type,
    billing_cycle: body.billing_cycle,
    default_currency_code: body.default_currency_code === undefined ? undefined : currencyCode(body.default_currency_code),
    client_since: body.client_since,
    payment_terms: optionalText(body.payment_terms),
    tax_id_number: optionalText(body.tax_id_number),
    is_inactive: body.is_inactive,
    parent_client_id: body.parent_client_id,
  };
}

/** The columns of `next` whose values differ from the current row. */
function changedColumns(current: ClientViewRow, next: Updateable<ClientsTable>): Updateable<ClientsTable> {
  const changes: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(next)) {
    if (v !== undefined && v !== current[k as keyof ClientViewRow]) changes[k] = v;
  }
  return changes as Updateable<ClientsTable>;
}

export function createClientsService(deps: { db: Kysely<DB> }) {
  const { db } = deps;

  const view = async (executor: Kysely<DB> | Transaction<DB>, actor: Actor, id: string, lock = false): Promise<ClientViewRow> => {
    const row = canSeeClient(actor, id) ? await findClientView(executor, actor.tenant, id, lock) : undefined;
    if (!row) throw notFound('Client', id);
    return row;
  };

  return {
    async list(actor: Actor, query: ListClientsQuery) {
      const filter = {
        onlyClientId: portalClientId(actor),
        clientType: query.client_type,
        billingCycle: query.billing_cycle,
        isInactive: query.is_inactive,
        isMerged: query.is_merged,
        includeMerged: query.include_merged,
        parentClientId: query.parent_client_id,
        search: query.search?.trim() || undefined,
      };
      return keptListPage(db, query, 'clients', { tenant: actor.tenant, filter }, (i) => clientList(db, i.tenant, i.filter), (rows) => rows.map(toClient));
    },

    async stats(actor: Actor): Promise<ClientStats> {
      const stats: ClientStats = {
        total_clients: 0,
        active_clients: 0,
        inactive_clients: 0,
        merged_clients: 0,
        clients_by_billing_cycle: Object.fromEntries(BILLING_CYCLES.map((c) => [c, 0])),
        clients_by_client_type: Object.fromEntries(CLIENT_TYPES.map((c) => [c, 0])),
      };
      for (const r of await clientStatsRows(db, actor.tenant, portalClientId(actor))) {
        if (r.is_merged) {
          stats.merged_clients += r.n;
          continue;
        }
        stats.total_clients += r.n;
        if (r.is_inactive) stats.inactive_clients += r.n;
        else stats.active_clients += r.n;
        stats.clients_by_billing_cycle[r.billing_cycle] = (stats.clients_by_billing_cycle[r.billing_cycle] ?? 0) + r.n;
        stats.clients_by_client_type[r.client_type] = (stats.clients_by_client_type[r.client_type] ?? 0) + r.n;
      }
      return stats;
    },

    async get(actor: Actor, id: string): Promise<Client> {
      return toClient(await view(db, actor, id));
    },

    /** Creates the client, its default location (when given) and its default billing profile together. */
    async create(actor: Actor, body: CreateClientBody): Promise<Client> {
      const name = requiredText(body.client_name, 'body.client_name');
      const currency = currencyCode(body.default_currency_code ?? 'USD');
      const location = initialLocation(body);
      return withTransaction(db, async (trx) => {
        await assertNameFree(trx, actor.tenant, name);
        if (body.parent_client_id) await assertParentAllowed(trx, actor.tenant, undefined, body.parent_client_id);
        const clientId = newId();
        const now = new Date();
        await insertClient(trx, {
          tenant: actor.tenant,
          client_id: clientId,
          client_name: name,
          client_type: body.client_type ?? 'company',
          billing_cycle: body.billing_cycle,
          payment_terms: optionalText(body.payment_terms) ?? null,
          default_currency_code: currency,
          client_since: body.client_since ?? null,
          tax_id_number: optionalText(body.tax_id_number) ?? null,
          is_inactive: body.is_inactive ?? false,
          merged_into_client_id: null,
          merged_at: null,
          merged_by: null,
          parent_client_id: body.parent_client_id ?? null,
          notes: null,
          notes_updated_at: null,
          created_at: now,
          updated_at: now,
        });
        const loc = location ? await addLocation(trx, actor.tenant, clientId, location, now, 'body.location') : undefined;
        const profile = await insertBillingProfile(trx, {
          tenant: actor.tenant,
          billing_profile_id: newId(),
          client_id: clientId,
          name,
          is_default: true,
          created_at: now,
          updated_at: now,
        });
        await syncSearch(trx, actor.tenant, 'client', [clientId]);
        await emitClientEvent(trx, actor.tenant, CLIENT_EVENTS.created, clientId, {
          location_id: loc?.location_id ?? null,
          billing_profile_id: profile.billing_profile_id,
        });
        return toClient(await view(trx, actor, clientId));
      });
    },

    /** Partial update; email and phone_no change the default active location. A no-op changes nothing. */
    async update(actor: Actor, id: string, body: UpdateClientBody, ifMatch?: string): Promise<Client> {
      const next = clientUpdate(body);
      return withTransaction(db, async (trx) => {
        const current = await view(trx, actor, id, true);
        assertNotMerged(current);
        assertIfMatch(ifMatch, toClient(current));
        const changes = changedColumns(current, next);
        const changed = Object.keys(changes);
        const now = new Date();

        if (changes.client_name !== undefined) await assertNameFree(trx, actor.tenant, changes.client_name, id);
        if (changes.parent_client_id) await assertParentAllowed(trx, actor.tenant, id, changes.parent_client_id);
        const email = optionalText(body.email);
        const phone = optionalText(body.phone_no);
        if (email !== undefined || phone !== undefined) {
          const location = await findDefaultLocation(trx, actor.tenant, id);
          if (!location) {
            throw unprocessable(
              `Client '${id}' has no default active location to hold email and phone_no; add one with POST /api/v1/clients/${id}/locations first`,
            );
          }
          const set = { email: email === undefined ? location.email : email, phone: phone === undefined ? location.phone : phone };
          if (set.email !== location.email) changed.push('email');
          if (set.phone !== location.phone) changed.push('phone_no');
          if (set.email !== location.email || set.phone !== location.phone) {
            await updateLocation(trx, actor.tenant, location.location_id, { ...set, updated_at: now });
          }
        }
        if (changed.length === 0) return toClient(current);

        await updateClient(trx, actor.tenant, id, { ...changes, updated_at: now });
        if (changes.client_name !== undefined) {
          await renameDefaultProfile(trx, actor.tenant, id, current.client_name, changes.client_name, now);
          const naming = await rowsNamingClient(trx, actor.tenant, id);
          for (const [type, ids] of Object.entries(naming)) await syncSearch(trx, actor.tenant, type, ids);
        }
        await syncSearch(trx, actor.tenant, 'client', [id]);
        await emitClientUpdated(trx, actor.tenant, id, changed);
        return toClient(await view(trx, actor, id));
      });
    },

    /** Refused while anything still points at the client; its locations, billing profiles and notes go with it. */
    async remove(actor: Actor, id: string, ifMatch?: string): Promise<void> {
      await withTransaction(db, async (trx) => {
        const current = await view(trx, actor, id, true);
        assertNotMerged(current);
        assertIfMatch(ifMatch, toClient(current));
        const dependents = await countClientDependents(trx, actor.tenant, id);
        if (Object.keys(dependents).length > 0) {
          const list = Object.entries(dependents).map(([k, n]) => `${n} ${k}`).join(', ');
          throw conflict(`Client '${id}' still has dependent records (${list}); remove or reassign them first`, dependents);
        }
        await deleteClient(trx, actor.tenant, id);
        await syncSearch(trx, actor.tenant, 'client', [id]);
        await emitClientEvent(trx, actor.tenant, CLIENT_EVENTS.deleted, id);
      });
    },
  };
}

export type ClientsService = ReturnType<typeof createClientsService>;
