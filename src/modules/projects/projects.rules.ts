import type { Transaction } from 'kysely';
import type { Actor } from '../../platform/auth/context.ts';
import type { Executor } from '../../platform/db/executor.ts';
import type { DB } from '../../platform/db/schema.ts';
import { notFound, validation } from '../../platform/http/errors.ts';
import { assertNotMerged, canSeeClient, findClientRow, portalClientId } from '../clients/index.ts';
import { findProjectView, type ProjectViewRow } from './projects.repo.ts';
import { findProjectStatus, type ProjectStatusRow } from './statuses/statuses.repo.ts';

/** The project if it exists in the actor's tenant and the actor may see it (portal keys: their client's only); otherwise 404. */
export async function requireVisibleProject(db: Executor, actor: Actor, projectId: string, lock = false): Promise<ProjectViewRow> {
  const row = await findProjectView(db, actor.tenant, projectId, lock);
  if (!row || !visibleTo(actor, row.client_id)) throw notFound('Project', projectId);
  return row;
}

/** Portal keys see projects of their own client; a project without a client is internal. */
export function visibleTo(actor: Actor, clientId: string | null): boolean {
  return portalClientId(actor) === undefined || (clientId !== null && canSeeClient(actor, clientId));
}

/** Hours are given in hours with at most two decimals (Alga stored minutes and lost the unit). */
export function checkHours(value: number | null | undefined, path: string): void {
  if (value === undefined || value === null) return;
  if (Math.abs(Math.round(value * 100) - value * 100) > 1e-6) throw validation(path, 'at most two decimals');
}

/** start ≤ end when both are set. */
export function checkDates(start: string | null, end: string | null, path: string): void {
  if (start !== null && end !== null && end < start) throw validation(path, `end_date ${end} is before start_date ${start}`);
}

export async function findUserRef(db: Executor, tenant: string, userId: string) {
  return db.selectFrom('users').select(['user_id', 'user_type', 'is_inactive']).where('tenant', '=', tenant).where('user_id', '=', userId).executeTakeFirst();
}

/** An assignee must be an active internal user; a 400 names the field otherwise. */
export async function checkAssignee(db: Executor, tenant: string, userId: string | null, path: string): Promise<void> {
  if (userId === null) return;
  const user = await findUserRef(db, tenant, userId);
  if (!user) throw validation(path, `no user '${userId}'`);
  if (user.user_type === 'client') throw validation(path, 'is a client-portal user; work is assigned to internal users');
  if (user.is_inactive) throw validation(path, `user '${userId}' is inactive`);
}

export async function checkTeam(db: Executor, tenant: string, teamId: string | null, path: string): Promise<void> {
  if (teamId === null) return;
  const team = await db.selectFrom('teams').select('team_id').where('tenant', '=', tenant).where('team_id', '=', teamId).executeTakeFirst();
  if (!team) throw validation(path, `no team '${teamId}'`);
}

/** The project's references, by column (contact_id is the API's contact_name_id). */
export interface ProjectRefs {
  client_id: string | null;
  contact_id: string | null;
  assigned_to: string | null;
  assigned_team_id: string | null;
  status_id: string;
}
export type ProjectRefField = keyof ProjectRefs;

/**
 * Checks the references of the project's next state that this write touches: the client exists (and
 * is the caller's own for portal keys; a merged client is a 409), the contact belongs to the client,
 * the owner is an active internal user, the team and status exist. Returns the status when it changed.
 */
export async function checkProjectRefs(trx: Transaction<DB>, actor: Actor, next: ProjectRefs, changed: ReadonlySet<ProjectRefField>): Promise<{ status?: ProjectStatusRow }> {
  const { tenant } = actor;
  const only = portalClientId(actor);
  if (changed.has('client_id')) {
    if (only !== undefined && next.client_id !== only) throw validation('body.client_id', 'client-portal keys can only use their own client');
    if (next.client_id !== null) {
      // Held FOR SHARE until commit, so a concurrent merge or delete of the client waits for this write.
      const client = await findClientRow(trx, tenant, next.client_id, 'share');
      if (!client) throw validation('body.client_id', `no client '${next.client_id}'`);
      assertNotMerged(client);
    }
  }
  if (next.contact_id !== null && (changed.has('contact_id') || changed.has('client_id'))) {
    const contact = await trx.selectFrom('contacts').select(['contact_id', 'client_id']).where('tenant', '=', tenant).where('contact_id', '=', next.contact_id).executeTakeFirst();
    if (!contact) throw validation('body.contact_name_id', `no contact '${next.contact_id}'`);
    if (next.client_id === null || contact.client_id !== next.client_id) {
      throw validation('body.contact_name_id', changed.has('contact_id')
        ? `contact '${next.contact_id}' does not belong to the project's client`
        : 'the project\'s contact belongs to its current client; send contact_name_id (a contact of the new client, or null) together with client_id');
    }
  }
  if (changed.has('assigned_to')) await checkAssignee(trx, tenant, next.assigned_to, 'body.assigned_to');
  if (changed.has('assigned_team_id')) await checkTeam(trx, tenant, next.assigned_team_id, 'body.assigned_team_id');
  let status: ProjectStatusRow | undefined;
  if (changed.has('status_id')) {
    status = await findProjectStatus(trx, tenant, next.status_id);
    if (!status) throw validation('body.status_id', `no project status '${next.status_id}'`);
  }
  return { status };
}
