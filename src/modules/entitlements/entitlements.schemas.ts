import { Type, type Static } from 'typebox';
import { Id, Nullable } from '../../platform/http/schemas.ts';
import { ACCESS_REASONS } from './features.ts';

export const FeatureAccessBody = Type.Object(
  {
    feature_name: Type.String({ minLength: 1, maxLength: 100, description: 'A feature of GET /api/v1/features' }),
    user_id: Type.Optional(Id),
  },
  { additionalProperties: false, description: 'user_id omitted: the caller, judged by this API key\'s own permissions; another user (needs user:read): judged by their roles' },
);
export type FeatureAccessBody = Static<typeof FeatureAccessBody>;

const access = {
  has_access: Type.Boolean(),
  reason: Type.Enum([...ACCESS_REASONS], {
    description: 'granted, or the first reason access is denied: user_inactive, trial_expired, subscription_inactive (unpaid; read-only features stay), plan_excludes_feature, addon_required, missing_permissions',
  }),
  missing_permissions: Type.Array(Type.String(), { description: 'Permissions the feature needs that the user lacks (filled in whatever the reason)' }),
};

export const FeatureAccess = Type.Object({
  feature_name: Type.String(),
  user_id: Id,
  ...access,
  plan: Type.String({ description: 'The tenant\'s plan' }),
  effective_plan: Type.String({ description: 'The plan counted right now (a running Pro or Premium trial raises it)' }),
  subscription_status: Nullable(Type.Enum(['active', 'trialing', 'past_due', 'unpaid'])),
});

export const FeatureWithAccess = Type.Object({
  feature_name: Type.String(),
  description: Type.String(),
  plans: Type.Array(Type.String(), { description: 'Plans that include the feature' }),
  addons: Type.Array(Type.String(), { description: 'Add-ons that unlock it on any plan' }),
  required_permissions: Type.Array(Type.String()),
  read_only: Type.Boolean({ description: 'Stays available while the subscription is unpaid' }),
  ...access,
});

export const NoQuery = Type.Object({}, { additionalProperties: false });

export const FeatureAccessResponse = Type.Object({ data: FeatureAccess });
export const FeatureListResponse = Type.Object({
  data: Type.Array(FeatureWithAccess),
  meta: Type.Object({
    plan: Type.String(),
    effective_plan: Type.String(),
    addons: Type.Array(Type.String()),
    subscription_status: Nullable(Type.Enum(['active', 'trialing', 'past_due', 'unpaid'])),
  }),
});
