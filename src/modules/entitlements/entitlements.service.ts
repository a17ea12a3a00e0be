import type { Kysely } from 'kysely';
import { requirePermission, type Actor } from '../../platform/auth/context.ts';
import type { DB } from '../../platform/db/schema.ts';
import { AppError, notFound } from '../../platform/http/errors.ts';
import { permissionsOfRoles } from '../roles/index.ts';
import { FEATURES, decideAccess, effectivePlan, findFeature, type AccessSubject, type TenantPlan } from './features.ts';
import { findTenantPlan, findUserState, roleIdsOfUser } from './entitlements.repo.ts';
import type { FeatureAccessBody } from './entitlements.schemas.ts';

export function createEntitlementsService(deps: { db: Kysely<DB> }) {
  const { db } = deps;

  const tenantPlan = async (tenant: string): Promise<TenantPlan> => {
    const plan = await findTenantPlan(db, tenant);
    if (!plan) throw new AppError('INTERNAL_ERROR', 'The caller\'s tenant is missing');
    return plan;
  };

  /** The caller is judged by the key's effective permissions; another user by their roles (needs user:read). */
  const subjectOf = async (actor: Actor, userId: string): Promise<AccessSubject> => {
    if (userId === actor.userId) return { permissions: actor.permissions, isInactive: false };
    requirePermission(actor, 'user:read');
    const user = await findUserState(db, actor.tenant, userId);
    if (!user) throw notFound('User', userId);
    const permissions = await permissionsOfRoles(db, actor.tenant, await roleIdsOfUser(db, actor.tenant, userId));
    return { permissions: new Set(permissions), isInactive: user.is_inactive };
  };

  return {
    async check(actor: Actor, body: FeatureAccessBody) {
      const feature = findFeature(body.feature_name);
      if (!feature) throw new AppError('NOT_FOUND', `Feature '${body.feature_name}' not found; GET /api/v1/features lists them`);
      const userId = body.user_id ?? actor.userId;
      const subject = await subjectOf(actor, userId);
      const plan = await tenantPlan(actor.tenant);
      const decision = decideAccess(feature, plan, subject, new Date());
      return {
        feature_name: feature.name,
        user_id: userId,
        has_access: decision.has_access,
        reason: decision.reason,
        missing_permissions: decision.missing_permissions,
        plan: plan.plan,
        effective_plan: decision.effective_plan,
        subscription_status: plan.subscription_status,
      };
    },

    /** Every feature with the caller's access to it. */
    async list(actor: Actor) {
      const plan = await tenantPlan(actor.tenant);
      const now = new Date();
      const subject: AccessSubject = { permissions: actor.permissions, isInactive: false };
      return {
        data: FEATURES.map((f) => {
          const { effective_plan: _plan, ...decision } = decideAccess(f, plan, subject, now);
          return {
            feature_name: f.name,
            description: f.description,
            plans: [...f.plans],
            addons: [...f.addons],
            required_permissions: [...f.permissions],
            read_only: f.readOnly,
            ...decision,
          };
        }),
        meta: { plan: plan.plan, effective_plan: effectivePlan(plan, now), addons: [...plan.addons], subscription_status: plan.subscription_status },
      };
    },
  };
}

export type EntitlementsService = ReturnType<typeof createEntitlementsService>;
