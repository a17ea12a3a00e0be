import { sql } from 'kysely';
import type { Executor } from '../../platform/db/executor.ts';
import { conflict, unprocessable, validation } from '../../platform/http/errors.ts';
import { findClientRow } from './clients.repo.ts';

/** The ids above a client, nearest first (its parent, the parent's parent, …), in one recursive query. */
export async function ancestorsOf(db: Executor, tenant: string, clientId: string): Promise<string[]> {
  const { rows } = await sql<{ client_id: string }>`
    with recursive up(client_id, depth) as (
      select parent_client_id, 1 from clients where tenant = ${tenant} and client_id = ${clientId} and parent_client_id is not null
      union all
      select c.parent_client_id, up.depth + 1 from clients c join up on c.tenant = ${tenant} and c.client_id = up.client_id
      where c.parent_client_id is not null and up.depth < 1000
    )
    select client_id from up order by depth
  `.execute(db);
  return rows.map((r) => r.client_id);
}

/**
 * A parent a client may take: in the tenant (else 400 naming the field), not a merge tombstone (409), and
 * not the client itself or one of its descendants, which would make the client its own ancestor (422).
 */
export async function assertParentAllowed(db: Executor, tenant: string, clientId: string | undefined, parentId: string): Promise<void> {
  const parent = await findClientRow(db, tenant, parentId);
  if (!parent) throw validation('body.parent_client_id', `no client '${parentId}' in this tenant`);
  if (parent.merged_into_client_id) throw conflict(`Client '${parentId}' was merged into '${parent.merged_into_client_id}'; choose that client as the parent`, { merged_into_client_id: parent.merged_into_client_id });
  if (clientId === undefined) return;
  if (parentId === clientId || (await ancestorsOf(db, tenant, parentId)).includes(clientId)) {
    throw unprocessable(`Client '${parentId}' is '${clientId}' or one of its descendants; a client cannot be its own ancestor`, { parent_client_id: parentId });
  }
}
