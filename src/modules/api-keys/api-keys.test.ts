import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/harness.ts';
import { apiFor, makeTenant, makeUser } from '../../../test/factories.ts';
import { hashApiKey } from '../../platform/auth/api-key-secret.ts';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => t.close());

const missing = '01890000-0000-7000-8000-000000000000';

describe('POST /api/v1/api-keys', () => {
  it('creates a key for the caller, shows the plaintext once and stores only its hash', async () => {
    const { admin, tenant, adminUserId } = await makeTenant(t);
    const res = await admin.post('/api/v1/api-keys', { name: 'RMM sync', scopes: ['client:read'], expires_at: '2999-01-01T00:00:00.000Z' });
    expect(res.statusCode, res.body).toBe(201);
    const key = res.json().data;
    expect(key.api_key).toMatch(/^psa_[A-Za-z0-9_-]{43}$/);
    expect(key).toMatchObject({ name: 'RMM sync', user_id: adminUserId, scopes: ['client:read'], expires_at: '2999-01-01T00:00:00.000Z', prefix: key.api_key.slice(0, 8), last_used_at: null });
    expect(res.headers.location).toBe(`/api/v1/api-keys/${key.id}`);
    const row = await t.database.db.selectFrom('api_keys').selectAll().where('tenant', '=', tenant).where('api_key_id', '=', key.id).executeTakeFirstOrThrow();
    expect(row.key_hash).toBe(hashApiKey(key.api_key));
    expect(JSON.stringify(row)).not.toContain(key.api_key);
    const activity = await t.database.db.selectFrom('user_activity').select(['activity_type', 'user_id', 'details']).where('tenant', '=', tenant).execute();
    expect(activity).toEqual([{ activity_type: 'api_key_created', user_id: adminUserId, details: { api_key_id: key.id, name: 'RMM sync' } }]);
    const again = await admin.get(`/api/v1/api-keys/${key.id}`);
    expect(again.json().data.api_key).toBeUndefined();
    expect(again.body).not.toContain(key.api_key);
  });

  it('the new key works at once and acts with its scopes', async () => {
    const { admin } = await makeTenant(t);
    const created = (await admin.post('/api/v1/api-keys', { name: 'read only', scopes: ['api_key:read'] })).json().data;
    const narrow = apiFor(t, created.api_key);
    expect((await narrow.get('/api/v1/api-keys')).statusCode).toBe(200);
    const denied = await narrow.post('/api/v1/api-keys', { name: 'x', scopes: ['api_key:read'] });
    expect(denied.statusCode, denied.body).toBe(403);
    expect(denied.json().error.details.required).toEqual(['api_key:create']);
  });

  it('rejects unknown permissions in scopes', async () => {
    const { admin } = await makeTenant(t);
    const res = await admin.post('/api/v1/api-keys', { name: 'k', scopes: ['client:read', 'client:fly'] });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().error.message).toContain('client:fly');
  });

  it('rejects an expiry in the past', async () => {
    const { admin } = await makeTenant(t);
    const res = await admin.post('/api/v1/api-keys', { name: 'k', expires_at: '2000-01-01T00:00:00.000Z' });
    expect(res.statusCode, res.body).toBe(400);
  });

  it('a scoped key cannot mint a broader key', async () => {
    const { tenant } = await makeTenant(t);
    const { api } = await makeUser(t, tenant, { role: 'Admin', scopes: ['api_key:create', 'api_key:read'] });
    const unscoped = await api.post('/api/v1/api-keys', { name: 'wider' });
    expect(unscoped.statusCode, unscoped.body).toBe(403);
    const wider = await api.post('/api/v1/api-keys', { name: 'wider', scopes: ['client:delete'] });
    expect(wider.statusCode, wider.body).toBe(403);
    const same = await api.post('/api/v1/api-keys', { name: 'same', scopes: ['api_key:read'] });
    expect(same.statusCode, same.body).toBe(201);
  });

  it('only api_key:manage may create keys for other users or set a rate limit', async () => {
    const { tenant, admin } = await makeTenant(t);
    const tech = await makeUser(t, tenant, { role: 'Technician' });
    const forOther = await tech.api.post('/api/v1/api-keys', { name: 'k', user_id: (await makeUser(t, tenant, { role: 'Viewer' })).userId });
    expect(forOther.statusCode, forOther.body).toBe(403);
    expect(forOther.json().error.details.required).toEqual(['api_key:manage']);
    const limited = await tech.api.post('/api/v1/api-keys', { name: 'k', rate_limit: { burst: 5, per_minute: 5 } });
    expect(limited.statusCode, limited.body).toBe(403);
    const byAdmin = await admin.post('/api/v1/api-keys', { name: 'for tech', user_id: tech.userId, rate_limit: { burst: 5, per_minute: 10 } });
    expect(byAdmin.statusCode, byAdmin.body).toBe(201);
    expect(byAdmin.json().data).toMatchObject({ user_id: tech.userId, rate_limit: { burst: 5, per_minute: 10 } });
  });

  it('an admin creating a key for a user of another tenant gets a 404', async () => {
    const a = await makeTenant(t);
    const b = await makeTenant(t);
    const res = await a.admin.post('/api/v1/api-keys', { name: 'k', user_id: b.adminUserId });
    expect(res.statusCode, res.body).toBe(404);
  });

  it('validates the body', async () => {
    const { admin } = await makeTenant(t);
    for (const body of [{}, { name: '' }, { name: 'x'.repeat(101) }, { name: 'k', user_id: 'nope' }, { name: 'k', rate_limit: { burst: 0, per_minute: 1 } }, { name: 'k', scopes: [] }]) {
      const res = await admin.post('/api/v1/api-keys', body);
      expect(res.statusCode, `${JSON.stringify(body)} → ${res.body}`).toBe(400);
    }
  });

  it('needs a key (401) and the permission (403)', async () => {
    const { tenant } = await makeTenant(t);
    expect((await t.app.inject({ method: 'POST', url: '/api/v1/api-keys', payload: { name: 'k' } })).statusCode).toBe(401);
    const nobody = await makeUser(t, tenant, {});
    const res = await nobody.api.post('/api/v1/api-keys', { name: 'k' });
    expect(res.statusCode, res.body).toBe(403);
    expect(res.json().error).toMatchObject({ code: 'FORBIDDEN', details: { required: ['api_key:create'] } });
  });
});

describe('GET /api/v1/api-keys and /api/v1/api-keys/{id}', () => {
  it('lists the caller’s own keys without secrets; an admin sees everyone’s', async () => {
    const { tenant, admin } = await makeTenant(t);
    const tech = await makeUser(t, tenant, { role: 'Technician' });
    const own = await tech.api.get('/api/v1/api-keys');
    expect(own.statusCode, own.body).toBe(200);
    expect(own.json().data.map((k: { user_id: string }) => k.user_id)).toEqual([tech.userId]);
    expect(own.json().pagination).toEqual({ page: 1, limit: 25, total: 1, totalPages: 1, hasNext: false, hasPrev: false });
    expect(Object.keys(own.json().data[0]).sort()).toEqual(['api_key_id', 'created_at', 'expires_at', 'id', 'last_used_at', 'name', 'prefix', 'rate_limit', 'scopes', 'user_id']);
    const all = await admin.get('/api/v1/api-keys');
    expect(all.json().pagination.total).toBe(2);
    const filtered = await admin.get(`/api/v1/api-keys?user_id=${tech.userId}`);
    expect(filtered.json().data).toHaveLength(1);
    const forbidden = await tech.api.get(`/api/v1/api-keys?user_id=${(await makeUser(t, tenant, { role: 'Viewer' })).userId}`);
    expect(forbidden.statusCode).toBe(403);
  });

  it('pages through keys', async () => {
    const { admin } = await makeTenant(t);
    for (let i = 0; i < 3; i++) await admin.post('/api/v1/api-keys', { name: `k${i}` });
    const page = await admin.get('/api/v1/api-keys?limit=2&page=2&order=asc');
    expect(page.statusCode, page.body).toBe(200);
    expect(page.json().pagination).toEqual({ page: 2, limit: 2, total: 4, totalPages: 2, hasNext: false, hasPrev: true });
    expect(page.json().data.map((k: { name: string }) => k.name)).toEqual(['k1', 'k2']);
  });

  it('GET by id returns an ETag and honours If-None-Match', async () => {
    const { admin } = await makeTenant(t);
    const id = (await admin.post('/api/v1/api-keys', { name: 'k' })).json().data.id;
    const res = await admin.get(`/api/v1/api-keys/${id}`);
    expect(res.statusCode).toBe(200);
    expect(res.headers.etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    const cached = await admin.get(`/api/v1/api-keys/${id}`, { 'if-none-match': String(res.headers.etag) });
    expect(cached.statusCode).toBe(304);
  });

  it('another tenant’s key, another user’s key (without manage) and an unknown id are 404', async () => {
    const a = await makeTenant(t);
    const b = await makeTenant(t);
    const id = (await a.admin.post('/api/v1/api-keys', { name: 'k' })).json().data.id;
    expect((await b.admin.get(`/api/v1/api-keys/${id}`)).statusCode).toBe(404);
    const tech = await makeUser(t, a.tenant, { role: 'Technician' });
    expect((await tech.api.get(`/api/v1/api-keys/${id}`)).statusCode).toBe(404);
    expect((await a.admin.get(`/api/v1/api-keys/${missing}`)).statusCode).toBe(404);
  });
});

describe('DELETE /api/v1/api-keys/{id}', () => {
  it('revokes a key with immediate effect', async () => {
    const { admin } = await makeTenant(t);
    const created = (await admin.post('/api/v1/api-keys', { name: 'doomed' })).json().data;
    const doomed = apiFor(t, created.api_key);
    expect((await doomed.get('/api/v1/api-keys')).statusCode).toBe(200); // now cached
    const del = await admin.delete(`/api/v1/api-keys/${created.id}`);
    expect(del.statusCode, del.body).toBe(204);
    const revoked = await t.database.db.selectFrom('user_activity').select('details').where('activity_type', '=', 'api_key_revoked').execute();
    expect(revoked.map((r) => r.details.api_key_id)).toContain(created.id);
    expect(del.body).toBe('');
    const after = await doomed.get('/api/v1/api-keys');
    expect(after.statusCode).toBe(401);
    expect((await admin.delete(`/api/v1/api-keys/${created.id}`)).statusCode).toBe(404);
    const listed = await admin.get('/api/v1/api-keys');
    expect(listed.json().data.map((k: { id: string }) => k.id)).not.toContain(created.id);
  });

  it('honours If-Match: a stale ETag is a 412 and the key stays active', async () => {
    const { admin } = await makeTenant(t);
    const id = (await admin.post('/api/v1/api-keys', { name: 'k' })).json().data.id;
    const etag = String((await admin.get(`/api/v1/api-keys/${id}`)).headers.etag);
    const stale = await admin.delete(`/api/v1/api-keys/${id}`, { 'if-match': '"stale"' });
    expect(stale.statusCode, stale.body).toBe(412);
    expect(stale.json().error.code).toBe('PRECONDITION_FAILED');
    expect((await admin.get(`/api/v1/api-keys/${id}`)).statusCode).toBe(200);
    expect((await admin.delete(`/api/v1/api-keys/${id}`, { 'if-match': etag })).statusCode).toBe(204);
  });

  it('a user can revoke their own key but not another user’s', async () => {
    const { tenant, admin, adminUserId } = await makeTenant(t);
    const tech = await makeUser(t, tenant, { role: 'Technician' });
    const adminKeys = await admin.get(`/api/v1/api-keys?user_id=${adminUserId}`);
    const adminKeyId = adminKeys.json().data[0].id;
    expect((await tech.api.delete(`/api/v1/api-keys/${adminKeyId}`)).statusCode).toBe(404);
    expect((await tech.api.delete(`/api/v1/api-keys/${tech.apiKeyId}`)).statusCode).toBe(204);
    expect((await tech.api.get('/api/v1/api-keys')).statusCode).toBe(401);
  });

  it('needs a key, the permission and a valid id', async () => {
    const { tenant } = await makeTenant(t);
    expect((await t.app.inject({ method: 'DELETE', url: `/api/v1/api-keys/${missing}` })).statusCode).toBe(401);
    const nobody = await makeUser(t, tenant, {});
    expect((await nobody.api.delete(`/api/v1/api-keys/${missing}`)).statusCode).toBe(403);
    const { admin } = await makeTenant(t);
    expect((await admin.delete('/api/v1/api-keys/123')).statusCode).toBe(400);
  });
});

describe('last_used_at', () => {
  it('is written on use, at most once a minute', async () => {
    const { tenant } = await makeTenant(t);
    const user = await makeUser(t, tenant, { role: 'Viewer' });
    const read = () => t.database.db.selectFrom('api_keys').select('last_used_at').where('tenant', '=', tenant).where('api_key_id', '=', user.apiKeyId).executeTakeFirstOrThrow();
    expect((await read()).last_used_at).toBeNull();
    await user.api.get('/api/v1/countries');
    await expect.poll(async () => (await read()).last_used_at).not.toBeNull();
    const first = (await read()).last_used_at!.getTime();
    for (let i = 0; i < 3; i++) await user.api.get('/api/v1/countries');
    await new Promise((r) => setTimeout(r, 100));
    expect((await read()).last_used_at!.getTime()).toBe(first);
  });
});
