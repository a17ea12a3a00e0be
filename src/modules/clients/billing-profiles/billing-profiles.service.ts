import type { Kysely } from 'kysely';
import type { Actor } from '../../../platform/auth/context.ts';
import { withTransaction, type Executor } from '../../../platform/db/executor.ts';
import type { DB } from '../../../platform/db/schema.ts';
import { AppError, notFound } from '../../../platform/http/errors.ts';
import { lockWritableClient, requireVisibleClient } from '../clients.access.ts';
import { emitClientUpdated } from '../clients.events.ts';
import { toBillingProfile, toProfileContact } from './billing-profiles.mapper.ts';
import {
  contactsOfClient,
  findBillingProfile,
  listBillingProfiles,
  listProfileContacts,
  removeContactFromProfiles,
  replaceProfileContacts,
  touchBillingProfile,
} from './billing-profiles.repo.ts';
import type { BillingProfile, ProfileContact, PutProfileContactsBody } from './billing-profiles.schemas.ts';

export function createBillingProfilesService(deps: { db: Kysely<DB> }) {
  const { db } = deps;

  return {
    async list(actor: Actor, clientId: string): Promise<BillingProfile[]> {
      await requireVisibleClient(db, actor, clientId);
      return (await listBillingProfiles(db, actor.tenant, clientId)).map(toBillingProfile);
    },

    async listContacts(actor: Actor, clientId: string, profileId: string): Promise<ProfileContact[]> {
      await requireVisibleClient(db, actor, clientId);
      if (!(await findBillingProfile(db, actor.tenant, clientId, profileId))) throw notFound('Billing profile', profileId);
      return (await listProfileContacts(db, actor.tenant, profileId)).map(toProfileContact);
    },

    /** Replaces the profile's managing contacts atomically; every contact must belong to the same client. */
    async replaceContacts(actor: Actor, clientId: string, profileId: string, body: PutProfileContactsBody): Promise<ProfileContact[]> {
      const seen = new Set<string>();
      const duplicates = new Set<string>();
      for (const c of body.contacts) (seen.has(c.contact_id) ? duplicates : seen).add(c.contact_id);
      if (duplicates.size > 0) {
        throw new AppError('VALIDATION_ERROR', `body.contacts: each contact may appear once; repeated: ${[...duplicates].join(', ')}`, [
          { path: 'body.contacts', message: 'contact_id values must be unique', contact_ids: [...duplicates] },
        ]);
      }
      const contacts = body.contacts.map((c) => ({ contact_id: c.contact_id, can_view_profile_tickets: c.can_view_profile_tickets ?? false }));

      return withTransaction(db, async (trx) => {
        await lockWritableClient(trx, actor, clientId);
        const profile = await findBillingProfile(trx, actor.tenant, clientId, profileId, true);
        if (!profile) throw notFound('Billing profile', profileId);
        const ids = contacts.map((c) => c.contact_id);
        const own = await contactsOfClient(trx, actor.tenant, clientId, ids);
        const foreign = ids.filter((id) => !own.has(id));
        if (foreign.length > 0) {
          throw new AppError('VALIDATION_ERROR', `body.contacts: not contacts of client '${clientId}': ${foreign.join(', ')}`, [
            { path: 'body.contacts', message: 'every contact must belong to this client', contact_ids: foreign },
          ]);
        }
        await replaceProfileContacts(trx, actor.tenant, profileId, contacts);
        await touchBillingProfile(trx, actor.tenant, profileId, new Date());
        await emitClientUpdated(trx, actor.tenant, clientId, ['billing_profile_contacts'], { billing_profile_id: profileId });
        return (await listProfileContacts(trx, actor.tenant, profileId)).map(toProfileContact);
      });
    },
  };
}

export type BillingProfilesService = ReturnType<typeof createBillingProfilesService>;

/**
 * Takes a contact off every billing profile's list, in the caller's transaction: contacts calls it when
 * a contact moves to another client, since a profile lists only its own client's contacts.
 */
export function removeContactFromBillingProfiles(trx: Executor, tenant: string, contactId: string): Promise<void> {
  return removeContactFromProfiles(trx, tenant, contactId);
}

/**
 * The billing profile a client's contract is assigned to: the one named, if it is this client's, else
 * the client's default. For billing, in the caller's transaction; undefined when there is none.
 */
export async function billingProfileForContract(db: Executor, tenant: string, clientId: string, profileId?: string): Promise<{ billing_profile_id: string; name: string } | undefined> {
  const profile = profileId ? await findBillingProfile(db, tenant, clientId, profileId) : (await listBillingProfiles(db, tenant, clientId))[0];
  return profile && { billing_profile_id: profile.billing_profile_id, name: profile.name };
}
