import { sql, type Insertable } from 'kysely';
import type { Executor } from '../../platform/db/executor.ts';
import type { AuthFlowsTable } from '../../platform/db/schema.ts';

export async function insertAuthFlow(db: Executor, flow: Insertable<AuthFlowsTable>): Promise<void> {
  await db.insertInto('auth_flows').values(flow).execute();
}

/** Takes a flow out (state is single-use): a second callback with the same state finds nothing. */
export async function takeAuthFlow(db: Executor, state: string, provider: string) {
  return db.deleteFrom('auth_flows').where('state', '=', state).where('provider', '=', provider).returningAll().executeTakeFirst();
}

export async function purgeExpiredAuthFlows(db: Executor): Promise<void> {
  await db.deleteFrom('auth_flows').where('expires_at', '<', sql<Date>`now()`).execute();
}

/** The account an identity provider's verified email names in one tenant (no provisioning: it must exist). */
export async function findUserByTenantEmail(db: Executor, tenantSlug: string, email: string) {
  return db
    .selectFrom('users as u')
    .innerJoin('tenants as t', 't.tenant_id', 'u.tenant')
    .select(['u.tenant', 'u.user_id', 'u.is_inactive', 'u.user_type', 'u.client_id'])
    .where('t.slug', '=', tenantSlug.toLowerCase())
    .where((eb) => eb(eb.fn('lower', ['u.email']), '=', email.toLowerCase()))
    .executeTakeFirst();
}
