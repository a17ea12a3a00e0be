import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../harness.ts';
import { makeTenant, makeUser } from '../factories.ts';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp({ env: { PSA_AUTH_FAILURE_BURST: '5', PSA_AUTH_FAILURE_PER_MINUTE: '1' } }); });
afterAll(async () => t.close());

const fromIp = (ip: string, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'GET', url: '/api/v1/countries', remoteAddress: ip, headers });

describe('API key authentication', () => {
  it('a missing key is a 401 in the nested envelope', async () => {
    const res = await fromIp('10.0.0.1');
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ error: { code: 'UNAUTHORIZED', message: expect.stringContaining('X-API-Key'), request_id: expect.any(String) } });
  });

  it('malformed, unknown and empty keys are 401 without revealing which', async () => {
    for (const key of ['nonsense', `psa_${'a'.repeat(43)}`, ' ', `psa_${'a'.repeat(500)}`]) {
      const res = await fromIp('10.0.0.2', { 'x-api-key': key });
      expect(res.statusCode, key).toBe(401);
      expect(res.json().error.code).toBe('UNAUTHORIZED');
    }
  });

  it('a client-portal user whose account names no client cannot authenticate (never unconfined)', async () => {
    const { tenant } = await makeTenant(t);
    const portal = await makeUser(t, tenant, { role: 'Client User', userType: 'client' });
    expect((await portal.api.get('/api/v1/countries')).statusCode).toBe(401);
  });

  it('an expired key is a 401', async () => {
    const { tenant } = await makeTenant(t);
    const user = await makeUser(t, tenant, { role: 'Viewer', expiresAt: new Date(Date.now() - 1000) });
    expect((await user.api.get('/api/v1/countries')).statusCode).toBe(401);
  });

  it('a key whose user was deactivated stops working as soon as the change is announced', async () => {
    const { tenant } = await makeTenant(t);
    const user = await makeUser(t, tenant, { role: 'Viewer' });
    expect((await user.api.get('/api/v1/countries')).statusCode).toBe(200);
    await t.database.db.updateTable('users').set({ is_inactive: true }).where('tenant', '=', tenant).where('user_id', '=', user.userId).execute();
    t.app.keyCache.invalidateTenant(tenant);
    expect((await user.api.get('/api/v1/countries')).statusCode).toBe(401);
  });

  it('a NOTIFY on the auth channel invalidates cached keys of that tenant', async () => {
    const { tenant } = await makeTenant(t);
    const user = await makeUser(t, tenant, { role: 'Viewer' });
    expect((await user.api.get('/api/v1/api-keys')).statusCode).toBe(200);
    await t.database.db.deleteFrom('user_roles').where('tenant', '=', tenant).where('user_id', '=', user.userId).execute();
    const { sql } = await import('kysely');
    await sql`select pg_notify('psa_auth_invalidate', ${tenant})`.execute(t.database.db);
    await expect.poll(async () => (await user.api.get('/api/v1/api-keys')).statusCode).toBe(403);
  });

  it('the key names its tenant: no header or parameter can switch tenants', async () => {
    const a = await makeTenant(t);
    const b = await makeTenant(t);
    const res = await a.admin.get('/api/v1/api-keys', { 'x-tenant-id': b.tenant });
    expect(res.json().data.every((k: { user_id: string }) => k.user_id === a.adminUserId)).toBe(true);
  });

  it('repeated failures from one IP are rate limited with 429 and Retry-After; other IPs are not affected', async () => {
    const ip = '10.9.9.9';
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) statuses.push((await fromIp(ip, { 'x-api-key': 'wrong' })).statusCode);
    expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
    expect(statuses.slice(5)).toEqual([429, 429]);
    const limited = await fromIp(ip, { 'x-api-key': 'wrong' });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(limited.json().error.code).toBe('RATE_LIMITED');
    expect((await fromIp('10.9.9.10', { 'x-api-key': 'wrong' })).statusCode).toBe(401);
    const { admin } = await makeTenant(t);
    const ok = await t.app.inject({ method: 'GET', url: '/api/v1/countries', remoteAddress: ip, headers: { 'x-api-key': admin.key } });
    expect(ok.statusCode).toBe(200);
  });
});

describe('permissions', () => {
  it('a key without the route’s permission gets 403 naming it', async () => {
    const { tenant } = await makeTenant(t);
    const user = await makeUser(t, tenant, { role: 'Technician' });
    const res = await user.api.get('/api/v1/api-keys?user_id=01890000-0000-7000-8000-000000000000');
    expect(res.statusCode, res.body).toBe(403);
    expect(res.json().error).toMatchObject({ code: 'FORBIDDEN', details: { required: ['api_key:manage'] } });
  });

  it('a key’s scopes narrow its user’s permissions', async () => {
    const { tenant } = await makeTenant(t);
    const user = await makeUser(t, tenant, { role: 'Admin', scopes: ['client:read'] });
    const res = await user.api.get('/api/v1/api-keys');
    expect(res.statusCode, res.body).toBe(403);
    expect(res.json().error.details.required).toEqual(['api_key:read']);
  });

  it('a key cannot gain permissions through scopes its user lacks', async () => {
    const { tenant } = await makeTenant(t);
    const user = await makeUser(t, tenant, { role: 'Viewer', scopes: ['api_key:manage', 'api_key:read'] });
    const other = await makeUser(t, tenant, { role: 'Viewer' });
    const res = await user.api.get(`/api/v1/api-keys?user_id=${other.userId}`);
    expect(res.statusCode, res.body).toBe(403);
  });

  it('the built-in roles exist in every new tenant', async () => {
    const { tenant } = await makeTenant(t);
    const roles = await t.database.db.selectFrom('roles').select(['role_name', 'is_client_portal']).where('tenant', '=', tenant).orderBy('role_name').execute();
    expect(roles.map((r) => r.role_name)).toEqual(['Admin', 'Client Admin', 'Client User', 'Finance', 'Manager', 'Technician', 'Viewer']);
    expect(roles.filter((r) => r.is_client_portal).map((r) => r.role_name)).toEqual(['Client Admin', 'Client User']);
  });
});
