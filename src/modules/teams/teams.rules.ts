import type { Transaction } from 'kysely';
import type { Actor } from '../../platform/auth/context.ts';
import type { DB } from '../../platform/db/schema.ts';
import { conflict, unprocessable, validation } from '../../platform/http/errors.ts';
import { recordActivity } from '../users/index.ts';
import { emitMembersChanged } from './teams.events.ts';
import { addMembers, findCandidates, removeMember, type CandidateRow, type TeamRow } from './teams.repo.ts';

/**
 * The users behind `userIds`, all of whom may be team members: 400 naming ids that are no users of the
 * tenant, 422 naming client-portal users (teams are internal) and inactive users.
 */
export async function eligibleMembers(trx: Transaction<DB>, tenant: string, userIds: readonly string[], path: string): Promise<CandidateRow[]> {
  const found = await findCandidates(trx, tenant, userIds);
  const unknown = userIds.filter((id) => !found.some((u) => u.user_id === id));
  if (unknown.length > 0) throw validation(path, `no such user(s) in this tenant: ${unknown.join(', ')}`);
  const clients = found.filter((u) => u.user_type === 'client');
  if (clients.length > 0) {
    throw unprocessable(`Only internal users can be team members; client-portal user(s): ${clients.map((u) => u.username).join(', ')}`, {
      user_ids: clients.map((u) => u.user_id),
    });
  }
  const inactive = found.filter((u) => u.is_inactive);
  if (inactive.length > 0) {
    throw unprocessable(`Inactive user(s) cannot join a team: ${inactive.map((u) => u.username).join(', ')}`, { user_ids: inactive.map((u) => u.user_id) });
  }
  return found;
}

/** Adds members, records team_join for each newcomer and emits team.updated; returns the newcomers. */
export async function join(trx: Transaction<DB>, actor: Actor, team: TeamRow, userIds: readonly string[], at: Date): Promise<string[]> {
  const added = await addMembers(trx, actor.tenant, team.team_id, userIds, at);
  for (const userId of added) {
    await recordActivity(trx, {
      tenant: actor.tenant, user_id: userId, actor_user_id: actor.userId, activity_type: 'team_join',
      details: { team_id: team.team_id, team_name: team.team_name },
    });
  }
  return added;
}

/** Removes one member, records team_leave and emits team.updated; false when not a member. The manager must be replaced first (409). */
export async function leave(trx: Transaction<DB>, actor: Actor, team: TeamRow, userId: string): Promise<boolean> {
  if (team.manager_id === userId) {
    throw conflict(`User '${userId}' manages team '${team.team_name}'; set another manager (or none) before removing them`, { team_id: team.team_id, manager_id: userId });
  }
  if (!(await removeMember(trx, actor.tenant, team.team_id, userId))) return false;
  await recordActivity(trx, {
    tenant: actor.tenant, user_id: userId, actor_user_id: actor.userId, activity_type: 'team_leave',
    details: { team_id: team.team_id, team_name: team.team_name },
  });
  await emitMembersChanged(trx, actor.tenant, team.team_id, [], [userId]);
  return true;
}
