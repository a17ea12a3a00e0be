import type { Actor } from '../../platform/auth/context.ts';
import type { Executor } from '../../platform/db/executor.ts';
import { validation } from '../../platform/http/errors.ts';
import { assertNotMerged, canSeeClient, findClientRow, type ClientRow } from '../clients/index.ts';

/**
 * The records an opportunity or interaction names, checked as the request states them: a client the actor
 * may see (held FOR SHARE on writes, so a concurrent merge or delete waits; a merge tombstone is a 409), a
 * contact of that client, an active internal user. Each miss is a 400 naming the field.
 */
export async function clientRef(db: Executor, actor: Actor, clientId: string, path: string, mode: 'read' | 'write' = 'write'): Promise<ClientRow> {
  const client = canSeeClient(actor, clientId) ? await findClientRow(db, actor.tenant, clientId, mode === 'write' ? 'share' : 'none') : undefined;
  if (!client) throw validation(path, `no client '${clientId}' in this tenant`);
  if (mode === 'write') assertNotMerged(client);
  return client;
}

export async function contactOfClient(db: Executor, tenant: string, contactId: string, clientId: string, path: string): Promise<{ contact_id: string; full_name: string }> {
  const contact = await db.selectFrom('contacts').select(['contact_id', 'client_id', 'full_name']).where('tenant', '=', tenant).where('contact_id', '=', contactId).executeTakeFirst();
  if (!contact) throw validation(path, `no contact '${contactId}' in this tenant`);
  if (contact.client_id !== clientId) throw validation(path, `contact '${contactId}' does not belong to client '${clientId}'`);
  return contact;
}

export async function internalUser(db: Executor, tenant: string, userId: string, path: string): Promise<void> {
  const user = await db.selectFrom('users').select(['user_id', 'user_type', 'is_inactive']).where('tenant', '=', tenant).where('user_id', '=', userId).executeTakeFirst();
  if (!user || user.user_type === 'client' || user.is_inactive) throw validation(path, `no active internal user '${userId}' in this tenant`);
}
