import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../harness.ts';
import { makeTenant, makeUser } from '../factories.ts';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => t.close());

const keysOf = async (tenant: string) =>
  t.database.db.selectFrom('api_keys').select('api_key_id').where('tenant', '=', tenant).where('revoked_at', 'is', null).execute();

describe('Idempotency-Key on POST', () => {
  it('replays the first response for a repeat and does the work once', async () => {
    const { tenant, admin } = await makeTenant(t);
    const headers = { 'idempotency-key': 'create-key-1' };
    const first = await admin.post('/api/v1/api-keys', { name: 'once' }, headers);
    expect(first.statusCode, first.body).toBe(201);
    const second = await admin.post('/api/v1/api-keys', { name: 'once' }, headers);
    expect(second.statusCode).toBe(201);
    expect(second.body).toBe(first.body);
    expect(second.headers.location).toBe(first.headers.location);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(await keysOf(tenant)).toHaveLength(2); // the tenant's initial key + one
    // The stored response holds a one-time secret (the new key): it must not rest in plaintext.
    const stored = await t.database.db.selectFrom('idempotency_keys').select('response_body').where('tenant', '=', tenant).executeTakeFirstOrThrow();
    expect(stored.response_body).not.toContain(first.json().data.api_key);
  });

  it('the same key with a different body is a 409', async () => {
    const { admin } = await makeTenant(t);
    const headers = { 'idempotency-key': 'k-2' };
    await admin.post('/api/v1/api-keys', { name: 'a' }, headers);
    const res = await admin.post('/api/v1/api-keys', { name: 'b' }, headers);
    expect(res.statusCode, res.body).toBe(409);
    expect(res.json().error.code).toBe('CONFLICT');
  });

  it('keys are scoped per user and per tenant', async () => {
    const a = await makeTenant(t);
    const b = await makeTenant(t);
    const headers = { 'idempotency-key': 'shared-name' };
    const ra = await a.admin.post('/api/v1/api-keys', { name: 'x' }, headers);
    const rb = await b.admin.post('/api/v1/api-keys', { name: 'x' }, headers);
    expect(rb.statusCode).toBe(201);
    expect(rb.json().data.id).not.toBe(ra.json().data.id);
    const other = await makeUser(t, a.tenant, { role: 'Admin' });
    const rc = await other.api.post('/api/v1/api-keys', { name: 'x' }, headers);
    expect(rc.json().data.id).not.toBe(ra.json().data.id);
  });

  it('error responses below 500 are replayed too', async () => {
    const { admin } = await makeTenant(t);
    const headers = { 'idempotency-key': 'bad-scope' };
    const first = await admin.post('/api/v1/api-keys', { name: 'x', scopes: ['no:such'] }, headers);
    expect(first.statusCode).toBe(400);
    const again = await admin.post('/api/v1/api-keys', { name: 'x', scopes: ['no:such'] }, headers);
    expect(again.statusCode).toBe(400);
    expect(again.headers['idempotent-replayed']).toBe('true');
  });

  it('a request still in flight makes a concurrent repeat a 409, never a second execution', async () => {
    const { tenant, admin } = await makeTenant(t);
    const headers = { 'idempotency-key': 'race' };
    const results = await Promise.all([1, 2, 3].map(() => admin.post('/api/v1/api-keys', { name: 'race' }, headers)));
    const created = results.filter((r) => r.statusCode === 201);
    expect(created.length).toBeGreaterThanOrEqual(1);
    expect(new Set(created.map((r) => r.json().data.id)).size).toBe(1);
    for (const r of results) expect([201, 409]).toContain(r.statusCode);
    expect(await keysOf(tenant)).toHaveLength(2);
  });

  it('an expired record no longer replays', async () => {
    const { tenant, admin } = await makeTenant(t);
    const headers = { 'idempotency-key': 'old' };
    const first = await admin.post('/api/v1/api-keys', { name: 'old' }, headers);
    await t.database.db.updateTable('idempotency_keys').set({ expires_at: new Date(Date.now() - 1000) }).where('tenant', '=', tenant).execute();
    const second = await admin.post('/api/v1/api-keys', { name: 'old' }, headers);
    expect(second.statusCode).toBe(201);
    expect(second.json().data.id).not.toBe(first.json().data.id);
  });

  it('an in-flight marker left by a request that died is freed after a minute', async () => {
    const { tenant, admin, adminUserId } = await makeTenant(t);
    await t.database.db.insertInto('idempotency_keys').values({
      tenant, owner_id: adminUserId, idem_key: 'orphan', request_hash: 'x', expires_at: new Date(Date.now() + 3_600_000),
    }).execute();
    const stuck = await admin.post('/api/v1/api-keys', { name: 'k' }, { 'idempotency-key': 'orphan' });
    expect(stuck.statusCode, stuck.body).toBe(409);
    await sql`update idempotency_keys set created_at = now() - interval '2 minutes' where tenant = ${tenant}`.execute(t.database.db);
    const freed = await admin.post('/api/v1/api-keys', { name: 'k' }, { 'idempotency-key': 'orphan' });
    expect(freed.statusCode, freed.body).toBe(201);
  });

  it('rejects a malformed Idempotency-Key with a 400', async () => {
    const { admin } = await makeTenant(t);
    const res = await admin.post('/api/v1/api-keys', { name: 'x' }, { 'idempotency-key': 'x'.repeat(300) });
    expect(res.statusCode, res.body).toBe(400);
  });
});
