import type { Kysely, Transaction } from 'kysely';
import type { Actor } from '../../platform/auth/context.ts';
import { withTransaction } from '../../platform/db/executor.ts';
import type { DB } from '../../platform/db/schema.ts';
import { assertIfMatch } from '../../platform/http/etag.ts';
import { conflict, notFound } from '../../platform/http/errors.ts';
import { optionalText, requiredText } from '../../platform/http/text.ts';
import { listPage } from '../../platform/http/list.ts';
import { newId } from '../../platform/ids.ts';
import { recordActivity } from '../users/index.ts';
import { TEAM_EVENTS, emitMembersChanged, emitTeamEvent } from './teams.events.ts';
import { toMember, toTeam } from './teams.mapper.ts';
import { deleteTeam, findTeamIdByName, findTeamRow, insertTeam, memberList, membersOfTeams, teamList, updateTeam, type TeamRow } from './teams.repo.ts';
import { eligibleMembers, join, leave } from './teams.rules.ts';
import type { AddMembersBody, CreateTeamBody, ListMembersQuery, ListTeamsQuery, Team, UpdateTeamBody } from './teams.schemas.ts';



async function assertNameFree(trx: Transaction<DB>, tenant: string, name: string, self?: string): Promise<void> {
  const existing = await findTeamIdByName(trx, tenant, name);
  if (existing && existing !== self) throw conflict(`A team named '${name}' already exists (names are unique regardless of case)`, { team_id: existing });
}

type Executor = Kysely<DB> | Transaction<DB>;

/** The team with its members; 404 when the tenant has no such team. */
export async function teamView(executor: Executor, tenant: string, id: string, lock = false): Promise<{ row: TeamRow; team: Team }> {
  const row = await findTeamRow(executor, tenant, id, lock);
  if (!row) throw notFound('Team', id);
  const members = await membersOfTeams(executor, tenant, [id]);
  return { row, team: toTeam(row, members.get(id) ?? []) };
}

export function createTeamsService(deps: { db: Kysely<DB> }) {
  const { db } = deps;

  return {
    async list(actor: Actor, query: ListTeamsQuery) {
      const filter = { search: query.search?.trim() || undefined, managerId: query.manager_id, memberId: query.member_id };
      return listPage(query, teamList(db, actor.tenant, filter), async (rows) => {
        const members = await membersOfTeams(db, actor.tenant, rows.map((r) => r.team_id));
        return rows.map((r) => toTeam(r, members.get(r.team_id) ?? []));
      });
    },

    async get(actor: Actor, id: string): Promise<Team> {
      return (await teamView(db, actor.tenant, id)).team;
    },

    /** Creates the team with its manager and initial members (each recorded as team_join). */
    async create(actor: Actor, body: CreateTeamBody): Promise<Team> {
      const name = requiredText(body.team_name, 'body.team_name');
      return withTransaction(db, async (trx) => {
        const managerId = body.manager_id ?? null;
        const memberIds = [...new Set([...(body.member_ids ?? []), ...(managerId ? [managerId] : [])])];
        if (managerId) await eligibleMembers(trx, actor.tenant, [managerId], 'body.manager_id');
        await eligibleMembers(trx, actor.tenant, memberIds, 'body.member_ids');
        await assertNameFree(trx, actor.tenant, name);
        const now = new Date();
        const row: TeamRow = {
          tenant: actor.tenant,
          team_id: newId(),
          team_name: name,
          description: optionalText(body.description) ?? null,
          manager_id: managerId,
          created_at: now,
          updated_at: now,
        };
        await insertTeam(trx, row);
        const added = await join(trx, actor, row, memberIds, now);
        await emitTeamEvent(trx, actor.tenant, TEAM_EVENTS.created, row.team_id, { manager_id: managerId, member_ids: added });
        return (await teamView(trx, actor.tenant, row.team_id)).team;
      });
    },

    /** Partial update; a new manager joins the team if not yet a member. */
    async update(actor: Actor, id: string, body: UpdateTeamBody, ifMatch?: string): Promise<Team> {
      const name = body.team_name === undefined ? undefined : requiredText(body.team_name, 'body.team_name');
      return withTransaction(db, async (trx) => {
        const { row, team } = await teamView(trx, actor.tenant, id, true);
        assertIfMatch(ifMatch, team);
        const set: { team_name?: string; description?: string | null; manager_id?: string | null } = {};
        if (name !== undefined && name !== row.team_name) {
          await assertNameFree(trx, actor.tenant, name, id);
          set.team_name = name;
        }
        const description = optionalText(body.description);
        if (description !== undefined && description !== row.description) set.description = description;
        let joined: string[] = [];
        if (body.manager_id !== undefined && body.manager_id !== row.manager_id) {
          if (body.manager_id !== null) {
            await eligibleMembers(trx, actor.tenant, [body.manager_id], 'body.manager_id');
            joined = await join(trx, actor, { ...row, ...set }, [body.manager_id], new Date());
          }
          set.manager_id = body.manager_id;
        }
        const changed = Object.keys(set);
        if (changed.length === 0) return team;
        await updateTeam(trx, actor.tenant, id, { ...set, updated_at: new Date() });
        await emitTeamEvent(trx, actor.tenant, TEAM_EVENTS.updated, id, {
          changed_fields: joined.length > 0 ? [...changed, 'members'] : changed,
          ...(joined.length > 0 ? { added_user_ids: joined, removed_user_ids: [] } : {}),
        });
        return (await teamView(trx, actor.tenant, id)).team;
      });
    },

    /** Deletes the team; every member's activity records that they left it. */
    async remove(actor: Actor, id: string, ifMatch?: string): Promise<void> {
      await withTransaction(db, async (trx) => {
        const { row, team } = await teamView(trx, actor.tenant, id, true);
        assertIfMatch(ifMatch, team);
        for (const m of team.members) {
          await recordActivity(trx, {
            tenant: actor.tenant, user_id: m.user_id, actor_user_id: actor.userId, activity_type: 'team_leave',
            details: { team_id: id, team_name: row.team_name, reason: 'team_deleted' },
          });
        }
        await deleteTeam(trx, actor.tenant, id);
        await emitTeamEvent(trx, actor.tenant, TEAM_EVENTS.deleted, id, { team_name: row.team_name, member_ids: team.members.map((m) => m.user_id) });
      });
    },

    async members(actor: Actor, id: string, query: ListMembersQuery) {
      await teamView(db, actor.tenant, id);
      return listPage(query, memberList(db, actor.tenant, id), (rows) => rows.map(toMember));
    },

    /** Adds members (idempotent: current members are skipped) and answers with the team. */
    async addMembers(actor: Actor, id: string, body: AddMembersBody): Promise<Team> {
      return withTransaction(db, async (trx) => {
        const { row, team } = await teamView(trx, actor.tenant, id, true);
        await eligibleMembers(trx, actor.tenant, body.user_ids, 'body.user_ids');
        const now = new Date();
        const added = await join(trx, actor, row, body.user_ids, now);
        if (added.length === 0) return team;
        await updateTeam(trx, actor.tenant, id, { updated_at: now });
        await emitMembersChanged(trx, actor.tenant, id, added, []);
        return (await teamView(trx, actor.tenant, id)).team;
      });
    },

    async removeMember(actor: Actor, id: string, userId: string, ifMatch?: string): Promise<void> {
      await withTransaction(db, async (trx) => {
        const { row, team } = await teamView(trx, actor.tenant, id, true);
        assertIfMatch(ifMatch, team);
        if (!(await leave(trx, actor, row, userId))) throw notFound('Team member', userId);
        await updateTeam(trx, actor.tenant, id, { updated_at: new Date() });
      });
    },
  };
}

export type TeamsService = ReturnType<typeof createTeamsService>;
