/**
 * The feature registry: what each product feature needs. A feature is available to a user when the
 * tenant's (effective) plan includes it or the tenant has one of the add-ons that unlock it, the
 * subscription is in good standing, and the user holds every permission it needs.
 */
export const PLANS = ['solo', 'pro', 'premium'] as const;
export type Plan = (typeof PLANS)[number];

export const ADDONS = ['rmm', 'ai'] as const;
export type Addon = (typeof ADDONS)[number];

export interface Feature {
  name: string;
  description: string;
  /** Plans that include the feature. */
  plans: readonly Plan[];
  /** Add-ons that unlock the feature on any plan. */
  addons: readonly Addon[];
  /** Permissions (resource:action) the user needs to use it. */
  permissions: readonly string[];
  /** Only reads data: stays available while the subscription is unpaid, so a tenant can still get at its records. */
  readOnly: boolean;
}

const ALL: readonly Plan[] = PLANS;
const PRO_UP: readonly Plan[] = ['pro', 'premium'];
const feature = (f: Omit<Feature, 'addons' | 'readOnly'> & Partial<Pick<Feature, 'addons' | 'readOnly'>>): Feature => ({ addons: [], readOnly: false, ...f });

export const FEATURES: readonly Feature[] = [
  feature({ name: 'client_management', description: 'Clients, their locations and contacts', plans: ALL, permissions: ['client:read'] }),
  feature({ name: 'ticketing', description: 'Service desk tickets', plans: ALL, permissions: ['ticket:read'] }),
  feature({ name: 'asset_management', description: 'Managed devices and their maintenance', plans: ALL, permissions: ['asset:read'] }),
  feature({ name: 'time_tracking', description: 'Time entries and timesheets', plans: ALL, permissions: ['time_entry:read'] }),
  feature({ name: 'billing', description: 'Invoices and billing', plans: ALL, permissions: ['invoice:read', 'billing:read'] }),
  feature({ name: 'knowledge_base', description: 'Knowledge-base articles', plans: ALL, permissions: ['kb:read'] }),
  feature({ name: 'reporting', description: 'Standard reports', plans: ALL, permissions: ['client:read'], readOnly: true }),
  feature({ name: 'data_export', description: 'Export of the tenant\'s records', plans: ALL, permissions: ['client:read'], readOnly: true }),
  feature({ name: 'project_management', description: 'Projects, phases and tasks', plans: PRO_UP, permissions: ['project:read'] }),
  feature({ name: 'contracts', description: 'Service contracts', plans: PRO_UP, permissions: ['contract:read'] }),
  feature({ name: 'client_portal', description: 'The portal where clients raise and follow tickets', plans: PRO_UP, permissions: ['client:read', 'contact:read'] }),
  feature({ name: 'team_management', description: 'Teams of technicians', plans: PRO_UP, permissions: ['team:read'] }),
  feature({ name: 'opportunities', description: 'Sales opportunities and forecasts', plans: PRO_UP, permissions: ['opportunity:read'] }),
  feature({ name: 'automation', description: 'Workflow automation rules', plans: PRO_UP, permissions: ['automation:read'] }),
  feature({ name: 'webhooks', description: 'Outbound webhooks', plans: PRO_UP, permissions: ['webhook:read'] }),
  feature({ name: 'document_storage', description: 'Documents and key-value storage', plans: PRO_UP, permissions: ['storage:read'] }),
  feature({ name: 'accounting_sync', description: 'Sync with the accounting ledger', plans: PRO_UP, permissions: ['ledger:write'] }),
  feature({ name: 'advanced_reporting', description: 'Profitability and utilisation analytics', plans: ['premium'], permissions: ['invoice:read', 'time_entry:read'], readOnly: true }),
  feature({ name: 'inbound_webhooks', description: 'Inbound webhook receivers', plans: ['premium'], permissions: ['inbound_webhook:read'] }),
  feature({ name: 'rmm_integration', description: 'Remote monitoring and management integration', plans: [], addons: ['rmm'], permissions: ['asset:update'] }),
  feature({ name: 'ai_assistant', description: 'AI assistant for tickets and documentation', plans: [], addons: ['ai'], permissions: ['ticket:read'] }),
];

const BY_NAME = new Map(FEATURES.map((f) => [f.name, f]));
export const findFeature = (name: string): Feature | undefined => BY_NAME.get(name);

export const ACCESS_REASONS = [
  'granted', 'plan_excludes_feature', 'addon_required', 'subscription_inactive', 'trial_expired', 'missing_permissions', 'user_inactive',
] as const;
export type AccessReason = (typeof ACCESS_REASONS)[number];

/** The tenant's billing state (the `tenants` columns). */
export interface TenantPlan {
  plan: string;
  addons: readonly string[];
  subscription_status: 'active' | 'trialing' | 'past_due' | 'unpaid' | null;
  trial_end: Date | null;
  solo_pro_trial_end: Date | null;
  premium_trial_end: Date | null;
  premium_trial_confirmed: boolean;
  premium_trial_effective_date: Date | null;
}

/**
 * The plan the tenant is entitled to right now: a Solo tenant inside its Pro trial counts as Pro; a Solo
 * or Pro tenant inside its Premium trial, or whose confirmed Premium upgrade has taken effect, counts as
 * Premium. Anything else is the `plan` column as it stands.
 */
export function effectivePlan(t: TenantPlan, now: Date): string {
  const future = (d: Date | null) => d !== null && d.getTime() > now.getTime();
  const upgradable = t.plan === 'solo' || t.plan === 'pro';
  if (upgradable && t.premium_trial_confirmed && t.premium_trial_effective_date !== null && t.premium_trial_effective_date.getTime() <= now.getTime()) return 'premium';
  if (upgradable && future(t.premium_trial_end)) return 'premium';
  if (t.plan === 'solo' && future(t.solo_pro_trial_end)) return 'pro';
  return t.plan;
}

export interface AccessSubject {
  permissions: ReadonlySet<string>;
  isInactive: boolean;
}

export interface AccessDecision {
  has_access: boolean;
  reason: AccessReason;
  missing_permissions: string[];
  effective_plan: string;
}

/**
 * Decides access, reporting the first reason that denies it, in this order: the user is inactive; the
 * trial has ended (status trialing with trial_end past: nothing is available); the subscription is
 * unpaid (only read-only features stay; past_due is a grace period with full access); the plan does not
 * include the feature (addon_required when an add-on would unlock it); permissions are missing.
 * `missing_permissions` is always filled in, whatever the reason.
 */
export function decideAccess(feature: Feature, tenant: TenantPlan, subject: AccessSubject, now: Date): AccessDecision {
  const missing = feature.permissions.filter((p) => !subject.permissions.has(p));
  const plan = effectivePlan(tenant, now);
  const decide = (reason: AccessReason): AccessDecision => ({ has_access: reason === 'granted', reason, missing_permissions: missing, effective_plan: plan });

  if (subject.isInactive) return decide('user_inactive');
  if (tenant.subscription_status === 'trialing' && tenant.trial_end !== null && tenant.trial_end.getTime() <= now.getTime()) return decide('trial_expired');
  if (tenant.subscription_status === 'unpaid' && !feature.readOnly) return decide('subscription_inactive');
  const inPlan = (feature.plans as readonly string[]).includes(plan);
  const byAddon = feature.addons.some((a) => tenant.addons.includes(a));
  if (!inPlan && !byAddon) return decide(feature.addons.length > 0 ? 'addon_required' : 'plan_excludes_feature');
  if (missing.length > 0) return decide('missing_permissions');
  return decide('granted');
}
