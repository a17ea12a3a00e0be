import type { Insertable } from 'kysely';
import type { Executor } from '../../platform/db/executor.ts';
import type { UsersTable } from '../../platform/db/schema.ts';
import * as repo from './users.repo.ts';

/**
 * Users as other areas need them: look-ups, provisioning outside the users routes (a new tenant's
 * admin), and the updated_at of a change another area stores. Each takes the caller's executor so it
 * joins the caller's transaction.
 */

/** Inserts the user row (no roles, no events) and its search row. */
export function insertUser(db: Executor, user: Insertable<UsersTable>): Promise<repo.UserRow> {
  return repo.insertUser(db, user);
}

export function findUserById(db: Executor, tenant: string, userId: string, lock = false): Promise<repo.UserRow | undefined> {
  return repo.findUserById(db, tenant, userId, lock);
}

/** Case-insensitive. */
export function findUserByEmail(db: Executor, tenant: string, email: string): Promise<repo.UserRow | undefined> {
  return repo.findUserByEmail(db, tenant, email);
}

/** Marks the user changed at `at` by a change stored outside the user row (its roles). */
export function touchUser(db: Executor, tenant: string, userId: string, at: Date): Promise<void> {
  return repo.touchUser(db, tenant, userId, at);
}
