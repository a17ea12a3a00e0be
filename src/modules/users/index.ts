/**
 * Users as other modules need them (look-ups, provisioning). The users API itself arrives with the
 * users-and-roles area.
 */
export { insertUser, findUserById, findUserByEmail, assignRole, type UserRow } from './users.repo.ts';
export { hashPassword } from './passwords.ts';
export { recordActivity, ACTIVITY_TYPES, type ActivityType, type ActivityInput } from './activity.repo.ts';
