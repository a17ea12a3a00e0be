import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Updateable } from 'kysely';
import { buildTestApp, type TestApp } from '../../../test/harness.ts';
import { makeTenant, makeUser } from '../../../test/factories.ts';
import { anonymous, expectError, randomId } from '../../../test/client-factories.ts';
import type { TenantsTable } from '../../platform/db/schema.ts';
import { FEATURES } from './features.ts';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => t.close());

const DAY = 86_400_000;
const ago = (days: number) => new Date(Date.now() - days * DAY);
const ahead = (days: number) => new Date(Date.now() + days * DAY);

/** Billing state is owned by the billing system, so the tests set the tenant's columns directly. */
async function setPlan(tenant: string, set: Updateable<TenantsTable>): Promise<void> {
  await t.database.db.updateTable('tenants').set(set).where('tenant_id', '=', tenant).execute();
}

describe('POST /api/v1/feature-access', () => {
  it('grants a feature of the tenant’s plan to a caller holding its permissions', async () => {
    const { admin, tenant, adminUserId } = await makeTenant(t);
    await setPlan(tenant, { subscription_status: 'active' });
    const res = await admin.post('/api/v1/feature-access', { feature_name: 'accounting_sync' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toEqual({
      feature_name: 'accounting_sync', user_id: adminUserId, has_access: true, reason: 'granted', missing_permissions: [],
      plan: 'pro', effective_plan: 'pro', subscription_status: 'active',
    });
  });

  it('answers plan_excludes_feature for a feature outside the plan', async () => {
    const { admin, tenant } = await makeTenant(t);
    await setPlan(tenant, { plan: 'solo' });
    const res = await admin.post('/api/v1/feature-access', { feature_name: 'accounting_sync' });
    expect(res.json().data).toMatchObject({ has_access: false, reason: 'plan_excludes_feature', plan: 'solo', effective_plan: 'solo', subscription_status: null });
    await setPlan(tenant, { solo_pro_trial_end: ahead(3) });
    expect((await admin.post('/api/v1/feature-access', { feature_name: 'accounting_sync' })).json().data).toMatchObject({ has_access: true, reason: 'granted', plan: 'solo', effective_plan: 'pro' });
  });

  it('answers addon_required until the tenant has the add-on', async () => {
    const { admin, tenant } = await makeTenant(t);
    await setPlan(tenant, { plan: 'premium' });
    expect((await admin.post('/api/v1/feature-access', { feature_name: 'rmm_integration' })).json().data).toMatchObject({ has_access: false, reason: 'addon_required' });
    await setPlan(tenant, { addons: ['rmm'] });
    expect((await admin.post('/api/v1/feature-access', { feature_name: 'rmm_integration' })).json().data).toMatchObject({ has_access: true, reason: 'granted' });
  });

  it('answers subscription_inactive when unpaid, except for read-only features; past_due is a grace period', async () => {
    const { admin, tenant } = await makeTenant(t);
    await setPlan(tenant, { subscription_status: 'unpaid' });
    expect((await admin.post('/api/v1/feature-access', { feature_name: 'ticketing' })).json().data).toMatchObject({ has_access: false, reason: 'subscription_inactive', subscription_status: 'unpaid' });
    expect((await admin.post('/api/v1/feature-access', { feature_name: 'data_export' })).json().data).toMatchObject({ has_access: true, reason: 'granted' });
    await setPlan(tenant, { subscription_status: 'past_due' });
    expect((await admin.post('/api/v1/feature-access', { feature_name: 'ticketing' })).json().data).toMatchObject({ has_access: true, reason: 'granted', subscription_status: 'past_due' });
  });

  it('answers trial_expired once a trial has ended, and grants while it runs', async () => {
    const { admin, tenant } = await makeTenant(t);
    await setPlan(tenant, { subscription_status: 'trialing', trial_end: ago(1) });
    expect((await admin.post('/api/v1/feature-access', { feature_name: 'ticketing' })).json().data).toMatchObject({ has_access: false, reason: 'trial_expired', subscription_status: 'trialing' });
    await setPlan(tenant, { trial_end: ahead(1) });
    expect((await admin.post('/api/v1/feature-access', { feature_name: 'ticketing' })).json().data).toMatchObject({ has_access: true, reason: 'granted' });
  });

  it('answers missing_permissions naming them, judged by the caller’s own (scoped) key', async () => {
    const { tenant } = await makeTenant(t);
    const tech = await makeUser(t, tenant, { role: 'Technician' });
    const res = await tech.api.post('/api/v1/feature-access', { feature_name: 'accounting_sync' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ user_id: tech.userId, has_access: false, reason: 'missing_permissions', missing_permissions: ['ledger:write'] });
    const scoped = await makeUser(t, tenant, { role: 'Admin', scopes: ['client:read'] });
    expect((await scoped.api.post('/api/v1/feature-access', { feature_name: 'ticketing' })).json().data).toMatchObject({ reason: 'missing_permissions', missing_permissions: ['ticket:read'] });
    expect((await scoped.api.post('/api/v1/feature-access', { feature_name: 'client_management', user_id: scoped.userId })).json().data).toMatchObject({ reason: 'granted' });
  });

  it('checks another user by their roles, and answers user_inactive for an inactive user', async () => {
    const { admin, tenant } = await makeTenant(t);
    const finance = await makeUser(t, tenant, { role: 'Finance' });
    const res = await admin.post('/api/v1/feature-access', { feature_name: 'accounting_sync', user_id: finance.userId });
    expect(res.json().data).toMatchObject({ user_id: finance.userId, has_access: true, reason: 'granted' });
    expect((await admin.post('/api/v1/feature-access', { feature_name: 'automation', user_id: finance.userId })).json().data).toMatchObject({ reason: 'missing_permissions', missing_permissions: ['automation:read'] });
    await t.database.db.updateTable('users').set({ is_inactive: true }).where('tenant', '=', tenant).where('user_id', '=', finance.userId).execute();
    expect((await admin.post('/api/v1/feature-access', { feature_name: 'accounting_sync', user_id: finance.userId })).json().data).toMatchObject({ has_access: false, reason: 'user_inactive' });
  });

  it('answers 404 for an unknown feature, and for an unknown or foreign user', async () => {
    const a = await makeTenant(t);
    const b = await makeTenant(t);
    const res = await a.admin.post('/api/v1/feature-access', { feature_name: 'time_travel' });
    expectError(res, 404, 'NOT_FOUND');
    expect(res.json().error.message).toContain('time_travel');
    expectError(await a.admin.post('/api/v1/feature-access', { feature_name: 'ticketing', user_id: randomId() }), 404, 'NOT_FOUND');
    expectError(await b.admin.post('/api/v1/feature-access', { feature_name: 'ticketing', user_id: a.adminUserId }), 404, 'NOT_FOUND');
  });

  it('rejects bad bodies with 400', async () => {
    const { admin } = await makeTenant(t);
    for (const body of [{}, { feature_name: '' }, { feature_name: 'x'.repeat(101) }, { feature_name: 'ticketing', user_id: 'me' }, { feature_name: 'ticketing', extra: true }, { feature_name: 7 }]) {
      expectError(await admin.post('/api/v1/feature-access', body), 400, 'VALIDATION_ERROR');
    }
  });

  it('needs a key (401), and user:read to check someone else (403); checking oneself needs nothing', async () => {
    const { tenant, adminUserId } = await makeTenant(t);
    expectError(await anonymous(t).post('/api/v1/feature-access', { feature_name: 'ticketing' }), 401, 'UNAUTHORIZED');
    const portal = await makeUser(t, tenant, { role: 'Client User', userType: 'client', clientId: randomId() });
    const denied = await portal.api.post('/api/v1/feature-access', { feature_name: 'ticketing', user_id: adminUserId });
    expectError(denied, 403, 'FORBIDDEN');
    expect(denied.json().error.details.required).toEqual(['user:read']);
    const bare = await makeUser(t, tenant);
    expect((await bare.api.post('/api/v1/feature-access', { feature_name: 'ticketing' })).json().data).toMatchObject({ reason: 'missing_permissions' });
  });
});

describe('GET /api/v1/features', () => {
  it('lists every feature with the caller’s access and the tenant’s plan', async () => {
    const { tenant } = await makeTenant(t);
    await setPlan(tenant, { plan: 'pro', addons: ['ai'], subscription_status: 'active' });
    const tech = await makeUser(t, tenant, { role: 'Technician' });
    const res = await tech.api.get('/api/v1/features');
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body.meta).toEqual({ plan: 'pro', effective_plan: 'pro', addons: ['ai'], subscription_status: 'active' });
    expect(body.data.map((f: { feature_name: string }) => f.feature_name)).toEqual(FEATURES.map((f) => f.name));
    const by = (name: string) => body.data.find((f: { feature_name: string }) => f.feature_name === name);
    expect(by('ticketing')).toEqual({
      feature_name: 'ticketing', description: expect.any(String), plans: ['solo', 'pro', 'premium'], addons: [], required_permissions: ['ticket:read'],
      read_only: false, has_access: true, reason: 'granted', missing_permissions: [],
    });
    expect(by('ai_assistant')).toMatchObject({ has_access: true, reason: 'granted' });
    expect(by('advanced_reporting')).toMatchObject({ has_access: false, reason: 'plan_excludes_feature' });
    expect(by('accounting_sync')).toMatchObject({ has_access: false, reason: 'missing_permissions', missing_permissions: ['ledger:write'] });
  });

  it('rejects query parameters (400) and needs a key (401)', async () => {
    const { admin } = await makeTenant(t);
    expectError(await admin.get('/api/v1/features?plan=pro'), 400, 'VALIDATION_ERROR');
    expectError(await anonymous(t).get('/api/v1/features'), 401, 'UNAUTHORIZED');
  });
});
