import { describe, expect, it } from 'vitest';
import { isPermission } from '../../platform/auth/permissions.ts';
import { ADDONS, FEATURES, PLANS, decideAccess, effectivePlan, findFeature, type TenantPlan } from './features.ts';
import '../../modules.ts';

const now = new Date('2026-06-01T12:00:00.000Z');
const past = new Date('2026-05-01T00:00:00.000Z');
const future = new Date('2026-07-01T00:00:00.000Z');
const base: TenantPlan = {
  plan: 'pro', addons: [], subscription_status: 'active', trial_end: null, solo_pro_trial_end: null,
  premium_trial_end: null, premium_trial_confirmed: false, premium_trial_effective_date: null,
};
const everyone = { permissions: new Set(FEATURES.flatMap((f) => f.permissions)), isInactive: false };

describe('the feature registry', () => {
  it('names only known plans, add-ons and permissions, each feature once, and every feature is reachable', () => {
    expect(new Set(FEATURES.map((f) => f.name)).size).toBe(FEATURES.length);
    for (const f of FEATURES) {
      expect(f.name).toMatch(/^[a-z_]+$/);
      for (const p of f.plans) expect(PLANS).toContain(p);
      for (const a of f.addons) expect(ADDONS).toContain(a);
      for (const p of f.permissions) expect(isPermission(p), `${f.name}: ${p}`).toBe(true);
      expect(f.plans.length + f.addons.length, f.name).toBeGreaterThan(0);
    }
    expect(findFeature('accounting_sync')).toMatchObject({ plans: ['pro', 'premium'], permissions: ['ledger:write'] });
    expect(findFeature('rmm_integration')!.addons).toEqual(['rmm']);
    expect(findFeature('nope')).toBeUndefined();
  });
});

describe('effectivePlan', () => {
  it('raises Solo to Pro during its Pro trial, and Solo or Pro to Premium during a Premium trial', () => {
    expect(effectivePlan({ ...base, plan: 'solo' }, now)).toBe('solo');
    expect(effectivePlan({ ...base, plan: 'solo', solo_pro_trial_end: future }, now)).toBe('pro');
    expect(effectivePlan({ ...base, plan: 'solo', solo_pro_trial_end: past }, now)).toBe('solo');
    expect(effectivePlan({ ...base, premium_trial_end: future }, now)).toBe('premium');
    expect(effectivePlan({ ...base, premium_trial_end: past }, now)).toBe('pro');
    expect(effectivePlan({ ...base, premium_trial_end: past, premium_trial_confirmed: true, premium_trial_effective_date: past }, now)).toBe('premium');
    expect(effectivePlan({ ...base, premium_trial_end: past, premium_trial_confirmed: true, premium_trial_effective_date: future }, now)).toBe('pro');
    expect(effectivePlan({ ...base, plan: 'enterprise', premium_trial_end: future }, now)).toBe('enterprise');
  });
});

describe('decideAccess', () => {
  const decide = (name: string, tenant: Partial<TenantPlan>, subject = everyone) => decideAccess(findFeature(name)!, { ...base, ...tenant }, subject, now);

  it('grants a feature of the plan to a user with its permissions', () => {
    expect(decide('accounting_sync', {})).toEqual({ has_access: true, reason: 'granted', missing_permissions: [], effective_plan: 'pro' });
  });

  it('explains each denial with a stable reason, in order', () => {
    expect(decide('ticketing', {}, { permissions: new Set(), isInactive: true })).toMatchObject({ reason: 'user_inactive', missing_permissions: ['ticket:read'] });
    expect(decide('ticketing', { subscription_status: 'trialing', trial_end: past })).toMatchObject({ has_access: false, reason: 'trial_expired' });
    expect(decide('reporting', { subscription_status: 'trialing', trial_end: past }).reason).toBe('trial_expired');
    expect(decide('ticketing', { subscription_status: 'unpaid' }).reason).toBe('subscription_inactive');
    expect(decide('advanced_reporting', {}).reason).toBe('plan_excludes_feature');
    expect(decide('ai_assistant', { plan: 'premium' }).reason).toBe('addon_required');
    expect(decide('accounting_sync', {}, { permissions: new Set(['ledger:read']), isInactive: false })).toMatchObject({ reason: 'missing_permissions', missing_permissions: ['ledger:write'] });
    expect(decide('project_management', { plan: 'enterprise' }).reason).toBe('plan_excludes_feature');
  });

  it('keeps read-only features while unpaid, gives full access while past due or in a running trial', () => {
    expect(decide('reporting', { subscription_status: 'unpaid' }).reason).toBe('granted');
    expect(decide('advanced_reporting', { plan: 'premium', subscription_status: 'unpaid' }).reason).toBe('granted');
    expect(decide('automation', { subscription_status: 'past_due' }).reason).toBe('granted');
    expect(decide('automation', { subscription_status: 'trialing', trial_end: future }).reason).toBe('granted');
    expect(decide('automation', { subscription_status: 'trialing', trial_end: null }).reason).toBe('granted');
    expect(decide('automation', { subscription_status: null }).reason).toBe('granted');
  });

  it('unlocks add-on features on any plan, and plan features through a running trial', () => {
    expect(decide('rmm_integration', { plan: 'solo', addons: ['rmm'] }).reason).toBe('granted');
    expect(decide('project_management', { plan: 'solo' }).reason).toBe('plan_excludes_feature');
    expect(decide('project_management', { plan: 'solo', solo_pro_trial_end: future })).toMatchObject({ reason: 'granted', effective_plan: 'pro' });
    expect(decide('advanced_reporting', { premium_trial_end: future }).reason).toBe('granted');
  });
});
