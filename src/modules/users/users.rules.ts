import type { Transaction } from 'kysely';
import type { Actor } from '../../platform/auth/context.ts';
import type { DB } from '../../platform/db/schema.ts';
import { AppError, conflict, validation } from '../../platform/http/errors.ts';
import { assertNotMerged, findClientRow } from '../clients/index.ts';
import { findUserIdBy } from './users.repo.ts';
import { optionalText } from '../../platform/http/text.ts';

export { optionalText };
import type { UserType } from './users.schemas.ts';


const TZ_SHAPE = /^[A-Za-z][A-Za-z0-9_+-]*(?:\/[A-Za-z0-9_+-]+)*$/;

/** An IANA time zone name, as Intl knows it, stored in its canonical form (`US/Eastern` → `America/New_York`). */
export function timeZone(tz: string | null | undefined, path: string): string | null | undefined {
  const given = optionalText(tz);
  if (given === undefined || given === null) return given;
  if (TZ_SHAPE.test(given)) {
    try {
      return new Intl.DateTimeFormat('en-US', { timeZone: given }).resolvedOptions().timeZone;
    } catch {
      // not a zone Intl knows: falls through to the error below
    }
  }
  throw validation(path, `'${given}' is not an IANA time zone name (such as Europe/Berlin or America/New_York)`);
}

export const emailOf = (email: string): string => email.trim().toLowerCase();

/** 409 when another user of the tenant already has this username or e-mail (regardless of case). */
export async function assertUnique(trx: Transaction<DB>, tenant: string, field: 'username' | 'email', value: string, self?: string): Promise<void> {
  const holder = await findUserIdBy(trx, tenant, field, value);
  if (holder && holder !== self) {
    throw conflict(`A user with ${field} '${value}' already exists (${field === 'username' ? 'usernames' : 'e-mail addresses'} are unique regardless of case)`, {
      field,
      user_id: holder,
    });
  }
}

/**
 * client users belong to one existing, unmerged client of the tenant (held FOR SHARE until commit);
 * other user types have none. A client-portal actor can only place users in their own client.
 */
export async function assertClientRule(trx: Transaction<DB>, actor: Actor, userType: UserType, clientId: string | null, path: string): Promise<void> {
  if (actor.clientId && (userType !== 'client' || clientId !== actor.clientId)) {
    throw new AppError('FORBIDDEN', 'Client-portal keys can only manage client users of their own client');
  }
  if (userType !== 'client') {
    if (clientId !== null) throw validation(`${path}.client_id`, `only client users belong to a client; user_type is '${userType}'`);
    return;
  }
  if (clientId === null) throw validation(`${path}.client_id`, 'client users need the client_id of the client they belong to');
  const client = await findClientRow(trx, actor.tenant, clientId, 'share');
  if (!client) throw validation(`${path}.client_id`, `no client '${clientId}' in this tenant`);
  assertNotMerged(client);
}
