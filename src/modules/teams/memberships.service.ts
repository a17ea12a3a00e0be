import type { Kysely } from 'kysely';
import { requirePermission, type Actor } from '../../platform/auth/context.ts';
import { withTransaction } from '../../platform/db/executor.ts';
import type { DB } from '../../platform/db/schema.ts';
import { assertIfMatch } from '../../platform/http/etag.ts';
import { notFound, validation } from '../../platform/http/errors.ts';
import { emitMembersChanged } from './teams.events.ts';
import { toMembership } from './teams.mapper.ts';
import { findCandidates, findMembership, findTeamRow, membershipsOfUser, updateTeam } from './teams.repo.ts';
import { eligibleMembers, join, leave } from './teams.rules.ts';
import { teamView } from './teams.service.ts';
import type { Membership } from './teams.schemas.ts';

type Executor = Parameters<typeof findCandidates>[0];

async function assertUser(executor: Executor, tenant: string, userId: string): Promise<void> {
  if ((await findCandidates(executor, tenant, [userId])).length === 0) throw notFound('User', userId);
}

/** A user's teams, seen from the user: /users/{id}/teams. */
export function createMembershipsService(deps: { db: Kysely<DB> }) {
  const { db } = deps;

  return {
    /** Your own teams need no permission; someone else's need team:read. */
    async list(actor: Actor, userId: string): Promise<Membership[]> {
      if (userId !== actor.userId) requirePermission(actor, 'team:read');
      await assertUser(db, actor.tenant, userId);
      return (await membershipsOfUser(db, actor.tenant, userId)).map((m) => toMembership(userId, m));
    },

    /** Joins the team; `created` is false when the user already was a member (nothing changes then). */
    async join(actor: Actor, userId: string, teamId: string): Promise<{ membership: Membership; created: boolean }> {
      return withTransaction(db, async (trx) => {
        await assertUser(trx, actor.tenant, userId);
        const team = await findTeamRow(trx, actor.tenant, teamId, true);
        if (!team) throw validation('body.team_id', `no team '${teamId}' in this tenant`);
        const existing = await findMembership(trx, actor.tenant, teamId, userId);
        if (existing) return { membership: toMembership(userId, existing), created: false };
        await eligibleMembers(trx, actor.tenant, [userId], 'params.id');
        const now = new Date();
        await join(trx, actor, team, [userId], now);
        await updateTeam(trx, actor.tenant, teamId, { updated_at: now });
        await emitMembersChanged(trx, actor.tenant, teamId, [userId], []);
        return { membership: toMembership(userId, (await findMembership(trx, actor.tenant, teamId, userId))!), created: true };
      });
    },

    /** Leaves the team: 404 for an unknown user or team, or when the user is not a member. */
    async leave(actor: Actor, userId: string, teamId: string, ifMatch?: string): Promise<void> {
      await withTransaction(db, async (trx) => {
        await assertUser(trx, actor.tenant, userId);
        const { row, team } = await teamView(trx, actor.tenant, teamId, true);
        assertIfMatch(ifMatch, team);
        if (!(await leave(trx, actor, row, userId))) throw notFound('Team membership', `${teamId}/${userId}`);
        await updateTeam(trx, actor.tenant, teamId, { updated_at: new Date() });
      });
    },
  };
}

export type MembershipsService = ReturnType<typeof createMembershipsService>;
