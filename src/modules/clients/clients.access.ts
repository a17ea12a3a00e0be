import type { Actor } from '../../platform/auth/context.ts';
import type { Executor } from '../../platform/db/executor.ts';
import { conflict, notFound } from '../../platform/http/errors.ts';
import { findClientRow as selectClientRow, type ClientRow, type RowLock } from './clients.repo.ts';

/**
 * The one client a client-portal actor may see, or undefined for internal actors. (Authentication
 * refuses portal accounts that name no client, so a portal actor always has one.)
 */
export const portalClientId = (actor: Actor): string | undefined => actor.clientId ?? undefined;

export const isPortalActor = (actor: Actor): boolean => portalClientId(actor) !== undefined;

export function canSeeClient(actor: Actor, clientId: string): boolean {
  const only = portalClientId(actor);
  return only === undefined || only === clientId;
}

/** The client row, optionally locked, whether or not an actor may see it: for callers that check visibility themselves. */
export function findClientRow(db: Executor, tenant: string, clientId: string, lock: RowLock = 'none'): Promise<ClientRow | undefined> {
  return selectClientRow(db, tenant, clientId, lock);
}

/** The client row if it exists in the actor's tenant and the actor may see it; otherwise 404. */
export async function requireVisibleClient(db: Executor, actor: Actor, clientId: string, lock: RowLock = 'none'): Promise<ClientRow> {
  const row = canSeeClient(actor, clientId) ? await selectClientRow(db, actor.tenant, clientId, lock) : undefined;
  if (!row) throw notFound('Client', clientId);
  return row;
}

export function assertNotMerged(row: Pick<ClientRow, 'client_id' | 'merged_into_client_id'>): void {
  if (row.merged_into_client_id !== null) {
    throw conflict(`Client '${row.client_id}' was merged into client '${row.merged_into_client_id}' and is read-only`, {
      merged_into_client_id: row.merged_into_client_id,
    });
  }
}

/**
 * For writes to a client's sub-resources: locks the client row (serialising concurrent writes to the
 * same client), then 404 when invisible and 409 when it is a merge tombstone.
 */
export async function lockWritableClient(db: Executor, actor: Actor, clientId: string): Promise<ClientRow> {
  const row = await requireVisibleClient(db, actor, clientId, 'update');
  assertNotMerged(row);
  return row;
}
