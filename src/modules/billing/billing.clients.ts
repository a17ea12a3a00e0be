import type { Actor } from '../../platform/auth/context.ts';
import type { Executor } from '../../platform/db/executor.ts';
import { validation } from '../../platform/http/errors.ts';
import { assertNotMerged, canSeeClient, findClientRow, type ClientRow } from '../clients/index.ts';

/**
 * The client a request body names (`body.client_id`): one the actor may see in its tenant, else a 400
 * naming the field. `write` holds the row FOR SHARE until commit (a concurrent merge or delete of the
 * client waits for this write) and refuses a merge tombstone (409).
 */
export async function clientOfBody(db: Executor, actor: Actor, clientId: string, mode: 'read' | 'write'): Promise<ClientRow> {
  const client = canSeeClient(actor, clientId) ? await findClientRow(db, actor.tenant, clientId, mode === 'write' ? 'share' : 'none') : undefined;
  if (!client) throw validation('body.client_id', `no client '${clientId}' in this tenant`);
  if (mode === 'write') assertNotMerged(client);
  return client;
}
