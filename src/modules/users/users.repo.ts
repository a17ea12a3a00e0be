import type { Insertable, Selectable } from 'kysely';
import type { Executor } from '../../platform/db/executor.ts';
import type { UsersTable } from '../../platform/db/schema.ts';

export type UserRow = Selectable<UsersTable>;

export async function insertUser(db: Executor, user: Insertable<UsersTable>): Promise<UserRow> {
  return db.insertInto('users').values(user).returningAll().executeTakeFirstOrThrow();
}

export async function findUserById(db: Executor, tenant: string, userId: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('tenant', '=', tenant).where('user_id', '=', userId).executeTakeFirst();
}

export async function findUserByEmail(db: Executor, tenant: string, email: string): Promise<UserRow | undefined> {
  return db
    .selectFrom('users')
    .selectAll()
    .where('tenant', '=', tenant)
    .where((eb) => eb(eb.fn('lower', ['email']), '=', email.toLowerCase()))
    .executeTakeFirst();
}

export async function assignRole(db: Executor, tenant: string, userId: string, roleId: string): Promise<void> {
  await db.insertInto('user_roles').values({ tenant, user_id: userId, role_id: roleId }).onConflict((oc) => oc.doNothing()).execute();
}
