import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import type { Executor } from '../../platform/db/executor.ts';
import type { TeamsTable, UsersTable } from '../../platform/db/schema.ts';
import { likePattern } from '../../platform/db/like.ts';
import { defineList } from '../../platform/http/list.ts';

export type TeamRow = Selectable<TeamsTable>;
export interface MemberRow {
  team_id: string;
  user_id: string;
  username: string;
  first_name: string | null;
  last_name: string | null;
  joined_at: Date;
}
export type CandidateRow = Pick<Selectable<UsersTable>, 'user_id' | 'username' | 'user_type' | 'is_inactive'>;

export async function findTeamRow(db: Executor, tenant: string, teamId: string, lock = false): Promise<TeamRow | undefined> {
  let q = db.selectFrom('teams').selectAll().where('tenant', '=', tenant).where('team_id', '=', teamId);
  if (lock) q = q.forUpdate();
  return q.executeTakeFirst();
}

export async function findTeamIdByName(db: Executor, tenant: string, name: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('teams')
    .select('team_id')
    .where('tenant', '=', tenant)
    .where(sql<string>`lower(team_name)`, '=', sql<string>`lower(${name})`)
    .executeTakeFirst();
  return row?.team_id;
}

export async function insertTeam(db: Executor, row: Insertable<TeamsTable>): Promise<void> {
  await db.insertInto('teams').values(row).execute();
}

export async function updateTeam(db: Executor, tenant: string, teamId: string, set: Updateable<TeamsTable>): Promise<void> {
  await db.updateTable('teams').set(set).where('tenant', '=', tenant).where('team_id', '=', teamId).execute();
}

export async function deleteTeam(db: Executor, tenant: string, teamId: string): Promise<void> {
  await db.deleteFrom('teams').where('tenant', '=', tenant).where('team_id', '=', teamId).execute();
}

/** Teams the user manages lose their manager. */
export async function clearManager(db: Executor, tenant: string, userId: string): Promise<void> {
  await db.updateTable('teams').set({ manager_id: null, updated_at: new Date() }).where('tenant', '=', tenant).where('manager_id', '=', userId).execute();
}

/** Users of the tenant among `userIds` (unknown ones are simply absent). */
export async function findCandidates(db: Executor, tenant: string, userIds: readonly string[]): Promise<CandidateRow[]> {
  if (userIds.length === 0) return [];
  return db.selectFrom('users').select(['user_id', 'username', 'user_type', 'is_inactive']).where('tenant', '=', tenant).where('user_id', 'in', userIds).execute();
}

const memberColumns = ['tm.team_id', 'tm.user_id', 'u.username', 'u.first_name', 'u.last_name', 'tm.joined_at'] as const;

function membersQuery(db: Executor, tenant: string) {
  return db
    .selectFrom('team_members as tm')
    .innerJoin('users as u', (j) => j.onRef('u.tenant', '=', 'tm.tenant').onRef('u.user_id', '=', 'tm.user_id'))
    .where('tm.tenant', '=', tenant);
}

/** The members of several teams at once (team_id → members by username). */
export async function membersOfTeams(db: Executor, tenant: string, teamIds: readonly string[]): Promise<Map<string, MemberRow[]>> {
  const out = new Map<string, MemberRow[]>();
  if (teamIds.length === 0) return out;
  const rows = await membersQuery(db, tenant)
    .select(memberColumns)
    .where('tm.team_id', 'in', teamIds)
    .orderBy(sql`lower(u.username)`)
    .orderBy('tm.user_id')
    .execute();
  for (const r of rows) {
    const list = out.get(r.team_id) ?? [];
    list.push(r);
    out.set(r.team_id, list);
  }
  return out;
}

/** A team's members; `updated_since` means joined since. Ties break on user_id. */
export function memberList(db: Executor, tenant: string, teamId: string) {
  return defineList({
    from: membersQuery(db, tenant).where('tm.team_id', '=', teamId),
    page: membersQuery(db, tenant).where('tm.team_id', '=', teamId).select(memberColumns),
    sorts: { username: [sql`lower(u.username)`], joined_at: ['tm.joined_at'] },
    defaultSort: 'username',
    defaultOrder: 'asc',
    tieBreaker: 'tm.user_id',
    updatedAt: 'tm.joined_at',
  });
}

/** Adds members; returns the ids actually added (current members are skipped). */
export async function addMembers(db: Executor, tenant: string, teamId: string, userIds: readonly string[], at: Date): Promise<string[]> {
  if (userIds.length === 0) return [];
  const rows = await db
    .insertInto('team_members')
    .values(userIds.map((user_id) => ({ tenant, team_id: teamId, user_id, joined_at: at })))
    .onConflict((oc) => oc.doNothing())
    .returning('user_id')
    .execute();
  return rows.map((r) => r.user_id);
}

export async function removeMember(db: Executor, tenant: string, teamId: string, userId: string): Promise<boolean> {
  const res = await db.deleteFrom('team_members').where('tenant', '=', tenant).where('team_id', '=', teamId).where('user_id', '=', userId).executeTakeFirst();
  return Number(res.numDeletedRows) > 0;
}

export async function findMembership(db: Executor, tenant: string, teamId: string, userId: string) {
  return db
    .selectFrom('team_members as tm')
    .innerJoin('teams as t', (j) => j.onRef('t.tenant', '=', 'tm.tenant').onRef('t.team_id', '=', 'tm.team_id'))
    .select(['t.team_id', 't.team_name', 't.manager_id', 'tm.joined_at'])
    .where('tm.tenant', '=', tenant)
    .where('tm.team_id', '=', teamId)
    .where('tm.user_id', '=', userId)
    .executeTakeFirst();
}

export async function membershipsOfUser(db: Executor, tenant: string, userId: string) {
  return db
    .selectFrom('team_members as tm')
    .innerJoin('teams as t', (j) => j.onRef('t.tenant', '=', 'tm.tenant').onRef('t.team_id', '=', 'tm.team_id'))
    .select(['t.team_id', 't.team_name', 't.manager_id', 'tm.joined_at'])
    .where('tm.tenant', '=', tenant)
    .where('tm.user_id', '=', userId)
    .orderBy(sql`lower(t.team_name)`)
    .orderBy('t.team_id')
    .execute();
}

export interface TeamListFilter {
  search?: string;
  managerId?: string;
  memberId?: string;
}

function filteredTeams(db: Executor, tenant: string, f: TeamListFilter) {
  let q = db.selectFrom('teams as t').where('t.tenant', '=', tenant);
  if (f.managerId !== undefined) q = q.where('t.manager_id', '=', f.managerId);
  if (f.memberId !== undefined) {
    const memberId = f.memberId;
    q = q.where('t.team_id', 'in', (eb) => eb.selectFrom('team_members as m').select('m.team_id').where('m.tenant', '=', tenant).where('m.user_id', '=', memberId));
  }
  if (f.search !== undefined) {
    const p = likePattern(f.search);
    q = q.where((eb) => eb.or([eb('t.team_name', 'ilike', p), eb('t.description', 'ilike', p)]));
  }
  return q;
}

/** Ties break on team_id in the requested direction. */
export function teamList(db: Executor, tenant: string, f: TeamListFilter) {
  return defineList({
    from: filteredTeams(db, tenant, f),
    page: filteredTeams(db, tenant, f).selectAll('t'),
    sorts: { team_name: [sql`lower(t.team_name)`], created_at: ['t.created_at'], updated_at: ['t.updated_at'] },
    defaultSort: 'team_name',
    defaultOrder: 'asc',
    tieBreaker: 't.team_id',
    updatedAt: 't.updated_at',
  });
}
