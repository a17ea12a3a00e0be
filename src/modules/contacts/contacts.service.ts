import type { Kysely, Transaction, Updateable } from 'kysely';
import type { Actor } from '../../platform/auth/context.ts';
import { withTransaction } from '../../platform/db/executor.ts';
import type { ContactsTable, DB } from '../../platform/db/schema.ts';
import { assertIfMatch } from '../../platform/http/etag.ts';
import { notFound, validation } from '../../platform/http/errors.ts';
import { optionalText, requiredText } from '../../platform/http/text.ts';
import { emptyPage, keptListPage } from '../../platform/http/list.ts';
import { newId } from '../../platform/ids.ts';
import {
  assertNotMerged,
  findClientRow,
  portalClientId,
  removeContactFromBillingProfiles,
  requireVisibleClient,
} from '../clients/index.ts';
import { syncSearch } from '../../platform/search/writer.ts';
import { CONTACT_EVENTS, emitContactEvent } from './contacts.events.ts';
import { toContact } from './contacts.mapper.ts';
import { contactList, deleteContact, findContact, insertContact, updateContact, type ContactRow } from './contacts.repo.ts';
import type {
  Contact,
  CreateContactBody,
  ListClientContactsQuery,
  ListContactsQuery,
  UpdateContactBody,
} from './contacts.schemas.ts';



export function createContactsService(deps: { db: Kysely<DB> }) {
  const { db } = deps;

  /**
   * The client a contact may be attached to: it must exist in the tenant (and be the actor's own client
   * for a portal key), and it must not be a merge tombstone. Held FOR SHARE until commit so a
   * concurrent merge or delete waits.
   */
  const assertAssignableClient = async (trx: Transaction<DB>, actor: Actor, clientId: string | null) => {
    const only = portalClientId(actor);
    if (only !== undefined && clientId !== only) {
      throw validation('body.client_id', 'client-portal keys can only attach contacts to their own client');
    }
    if (clientId === null) return;
    const client = await findClientRow(trx, actor.tenant, clientId, 'share');
    if (!client) throw validation('body.client_id', 'no such client');
    assertNotMerged(client);
  };

  const visibleContact = async (executor: Kysely<DB> | Transaction<DB>, actor: Actor, id: string, lock = false): Promise<ContactRow> => {
    const row = await findContact(executor, actor.tenant, id, lock);
    const only = portalClientId(actor);
    if (!row || (only !== undefined && row.client_id !== only)) throw notFound('Contact', id);
    return row;
  };

  const list = async (actor: Actor, query: ListClientContactsQuery, clientId: string | undefined) => {
    const filter = { clientId, isInactive: query.is_inactive, search: query.search?.trim() || undefined };
    return keptListPage(db, query, 'contacts', { tenant: actor.tenant, filter }, (i) => contactList(db, i.tenant, i.filter), (rows) => rows.map(toContact));
  };

  return {
    /** All contacts visible to the actor; a portal key sees only its own client's. */
    async list(actor: Actor, query: ListContactsQuery) {
      const only = portalClientId(actor);
      if (only !== undefined && query.client_id !== undefined && query.client_id !== only) return emptyPage(query);
      return list(actor, query, only ?? query.client_id);
    },

    async listForClient(actor: Actor, clientId: string, query: ListClientContactsQuery) {
      await requireVisibleClient(db, actor, clientId);
      return list(actor, query, clientId);
    },

    async get(actor: Actor, id: string): Promise<Contact> {
      return toContact(await visibleContact(db, actor, id));
    },

    async create(actor: Actor, body: CreateContactBody): Promise<Contact> {
      const name = requiredText(body.full_name, 'body.full_name');
      const clientId = body.client_id !== undefined ? body.client_id : (portalClientId(actor) ?? null);
      return withTransaction(db, async (trx) => {
        await assertAssignableClient(trx, actor, clientId);
        const now = new Date();
        const row = await insertContact(trx, {
          tenant: actor.tenant,
          contact_id: newId(),
          client_id: clientId,
          full_name: name,
          email: optionalText(body.email) ?? null,
          phone: optionalText(body.phone) ?? null,
          role: optionalText(body.role) ?? null,
          is_inactive: body.is_inactive ?? false,
          created_at: now,
          updated_at: now,
        });
        await syncSearch(trx, actor.tenant, 'contact', [row.contact_id]);
        await emitContactEvent(trx, actor.tenant, CONTACT_EVENTS.created, row);
        return toContact(row);
      });
    },

    /** Partial update; moving a contact to another client needs that client to accept contacts. A no-op changes nothing. */
    async update(actor: Actor, id: string, body: UpdateContactBody, ifMatch?: string): Promise<Contact> {
      const next: Updateable<ContactsTable> = {
        full_name: body.full_name === undefined ? undefined : requiredText(body.full_name, 'body.full_name'),
        client_id: body.client_id,
        email: optionalText(body.email),
        phone: optionalText(body.phone),
        role: optionalText(body.role),
        is_inactive: body.is_inactive,
      };
      return withTransaction(db, async (trx) => {
        const current = await visibleContact(trx, actor, id, true);
        assertIfMatch(ifMatch, toContact(current));
        const changes: Record<string, unknown> = {};
        for (const [k, v] of Object.entries(next)) if (v !== undefined && v !== current[k as keyof ContactRow]) changes[k] = v;
        const changed = Object.keys(changes);
        if (changed.length === 0) return toContact(current);
        if ('client_id' in changes) {
          await assertAssignableClient(trx, actor, body.client_id ?? null);
          // Billing-profile contacts must belong to the profile's client: leaving the client leaves its profiles.
          await removeContactFromBillingProfiles(trx, actor.tenant, id);
        }

        const row = await updateContact(trx, actor.tenant, id, { ...changes, updated_at: new Date() });
        await syncSearch(trx, actor.tenant, 'contact', [id]);
        await emitContactEvent(trx, actor.tenant, CONTACT_EVENTS.updated, row, {
          changed_fields: changed,
          ...('client_id' in changes ? { previous_client_id: current.client_id } : {}),
        });
        return toContact(row);
      });
    },

    /** Also removes the contact from every billing profile's contact list (the foreign key cascades). */
    async remove(actor: Actor, id: string, ifMatch?: string): Promise<void> {
      await withTransaction(db, async (trx) => {
        const current = await visibleContact(trx, actor, id, true);
        assertIfMatch(ifMatch, toContact(current));
        await deleteContact(trx, actor.tenant, id);
        await syncSearch(trx, actor.tenant, 'contact', [id]);
        await emitContactEvent(trx, actor.tenant, CONTACT_EVENTS.deleted, current);
      });
    },
  };
}

export type ContactsService = ReturnType<typeof createContactsService>;
