import { Type, type Static } from 'typebox';
import { Id, Nullable, Timestamp, dataOf, listOf, listQuery } from '../../platform/http/schemas.ts';

export const TeamMember = Type.Object({
  user_id: Id,
  username: Type.String(),
  first_name: Nullable(Type.String()),
  last_name: Nullable(Type.String()),
  joined_at: Timestamp,
});
export type TeamMember = Static<typeof TeamMember>;

export const Team = Type.Object({
  team_id: Id,
  team_name: Type.String(),
  description: Nullable(Type.String()),
  manager_id: Nullable(Id),
  members: Type.Array(TeamMember, { description: 'Ordered by username; the manager is always a member' }),
  member_count: Type.Integer({ minimum: 0 }),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type Team = Static<typeof Team>;

const teamName = Type.String({ minLength: 1, maxLength: 100, description: 'Trimmed; unique per tenant regardless of case' });
const description = Nullable(Type.String({ maxLength: 500 }));
const managerId = (description: string) => Nullable(Type.String({ format: 'uuid', description }));
const userIds = (description: string) => Type.Array(Id, { minItems: 1, maxItems: 100, uniqueItems: true, description });

export const CreateTeamBody = Type.Object(
  {
    team_name: teamName,
    description: Type.Optional(description),
    manager_id: Type.Optional(managerId('An active internal user of the tenant; becomes a member too')),
    member_ids: Type.Optional(userIds('Initial members: active internal users of the tenant')),
  },
  { additionalProperties: false },
);
export type CreateTeamBody = Static<typeof CreateTeamBody>;

export const UpdateTeamBody = Type.Object(
  {
    team_name: Type.Optional(teamName),
    description: Type.Optional(description),
    manager_id: Type.Optional(managerId('null removes the manager (who stays a member); a new manager becomes a member')),
  },
  { additionalProperties: false, minProperties: 1, description: 'Partial update; members change through /teams/{id}/members' },
);
export type UpdateTeamBody = Static<typeof UpdateTeamBody>;

export const TEAM_SORT_FIELDS = ['team_name', 'created_at', 'updated_at'] as const;
export type TeamSortField = (typeof TEAM_SORT_FIELDS)[number];

export const ListTeamsQuery = listQuery(TEAM_SORT_FIELDS, {
  search: Type.Optional(Type.String({ maxLength: 100, description: 'Case-insensitive substring of the name or description; blank means no search' })),
  manager_id: Type.Optional(Id),
  member_id: Type.Optional(Type.String({ format: 'uuid', description: 'Only teams this user is a member of' })),
});
export type ListTeamsQuery = Static<typeof ListTeamsQuery>;

export const MEMBER_SORT_FIELDS = ['username', 'joined_at'] as const;
export type MemberSortField = (typeof MEMBER_SORT_FIELDS)[number];
export const ListMembersQuery = listQuery(MEMBER_SORT_FIELDS, {});
export type ListMembersQuery = Static<typeof ListMembersQuery>;

export const AddMembersBody = Type.Object(
  { user_ids: userIds('Users to add; current members are left as they are') },
  { additionalProperties: false },
);
export type AddMembersBody = Static<typeof AddMembersBody>;

export const TeamMemberParams = Type.Object({ id: Id, userId: Id }, { additionalProperties: false });

/** A team as seen from one of its members. */
export const Membership = Type.Object({
  team_id: Id,
  team_name: Type.String(),
  manager_id: Nullable(Id),
  is_manager: Type.Boolean(),
  joined_at: Timestamp,
});
export type Membership = Static<typeof Membership>;

export const JoinTeamBody = Type.Object({ team_id: Id }, { additionalProperties: false });
export type JoinTeamBody = Static<typeof JoinTeamBody>;
export const UserTeamParams = Type.Object({ id: Id, teamId: Id }, { additionalProperties: false });

export const NoQuery = Type.Object({}, { additionalProperties: false });

export const TeamResponse = dataOf(Team);
export const TeamListResponse = listOf(Team);
export const MemberListResponse = listOf(TeamMember);
export const MembershipResponse = dataOf(Membership);
export const MembershipListResponse = Type.Object({ data: Type.Array(Membership, { description: 'Ordered by team name' }) });
