import type { Executor } from '../../platform/db/executor.ts';
import type { TenantPlan } from './features.ts';

export async function findTenantPlan(db: Executor, tenant: string): Promise<TenantPlan | undefined> {
  return db
    .selectFrom('tenants')
    .select(['plan', 'addons', 'subscription_status', 'trial_end', 'solo_pro_trial_end', 'premium_trial_end', 'premium_trial_confirmed', 'premium_trial_effective_date'])
    .where('tenant_id', '=', tenant)
    .executeTakeFirst();
}

export async function findUserState(db: Executor, tenant: string, userId: string) {
  return db.selectFrom('users').select(['user_id', 'is_inactive']).where('tenant', '=', tenant).where('user_id', '=', userId).executeTakeFirst();
}

export async function roleIdsOfUser(db: Executor, tenant: string, userId: string): Promise<string[]> {
  const rows = await db.selectFrom('user_roles').select('role_id').where('tenant', '=', tenant).where('user_id', '=', userId).execute();
  return rows.map((r) => r.role_id);
}
