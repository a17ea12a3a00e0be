import type { MemberRow, TeamRow } from './teams.repo.ts';
import type { Membership, Team, TeamMember } from './teams.schemas.ts';

export const toMember = (row: MemberRow): TeamMember => ({
  user_id: row.user_id,
  username: row.username,
  first_name: row.first_name,
  last_name: row.last_name,
  joined_at: row.joined_at.toISOString(),
});

export function toTeam(row: TeamRow, members: readonly MemberRow[]): Team {
  return {
    team_id: row.team_id,
    team_name: row.team_name,
    description: row.description,
    manager_id: row.manager_id,
    members: members.map(toMember),
    member_count: members.length,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

export const toMembership = (userId: string, row: { team_id: string; team_name: string; manager_id: string | null; joined_at: Date }): Membership => ({
  team_id: row.team_id,
  team_name: row.team_name,
  manager_id: row.manager_id,
  is_manager: row.manager_id === userId,
  joined_at: row.joined_at.toISOString(),
});
