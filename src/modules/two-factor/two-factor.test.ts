import { generate } from 'otplib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/harness.ts';
import { makeTenant, makeUser, type Api } from '../../../test/factories.ts';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => t.close());

const missing = '01890000-0000-7000-8000-000000000000';
/** The code of the step `offset` steps from now (±1 is inside the accepted window). */
const codeAt = (secret: string, offset = 0) => generate({ secret, epoch: Math.floor(Date.now() / 1000) + offset * 30 });

/** A well-formed code that is valid in none of the accepted steps. */
async function wrongCode(secret: string): Promise<string> {
  const valid = new Set(await Promise.all([-2, -1, 0, 1, 2].map((o) => codeAt(secret, o))));
  return ['000000', '111111', '222222', '333333', '444444', '555555'].find((c) => !valid.has(c))!;
}

const userRow = (tenant: string, userId: string) =>
  t.database.db.selectFrom('users').selectAll().where('tenant', '=', tenant).where('user_id', '=', userId).executeTakeFirstOrThrow();
const activityOf = (tenant: string, userId: string) =>
  t.database.db.selectFrom('user_activity').select(['activity_type', 'actor_user_id', 'details']).where('tenant', '=', tenant).where('user_id', '=', userId).orderBy('created_at').execute();
const recoveryRows = (tenant: string, userId: string) =>
  t.database.db.selectFrom('user_recovery_codes').selectAll().where('tenant', '=', tenant).where('user_id', '=', userId).execute();

/** Enrols and confirms two-factor for a user through the API; returns the secret and recovery codes. */
async function enrol(api: Api, userId: string): Promise<{ secret: string; recoveryCodes: string[]; confirmCode: string }> {
  const start = await api.post(`/api/v1/users/${userId}/2fa/enable`);
  expect(start.statusCode, start.body).toBe(200);
  const secret = start.json().data.secret as string;
  const confirmCode = await codeAt(secret);
  const confirm = await api.post(`/api/v1/users/${userId}/2fa/enable`, { token: confirmCode });
  expect(confirm.statusCode, confirm.body).toBe(200);
  return { secret, recoveryCodes: confirm.json().data.recovery_codes, confirmCode };
}

describe('POST /api/v1/users/{id}/2fa/enable', () => {
  it('starts an enrolment without a body: a server-generated secret, stored encrypted as pending for 10 minutes', async () => {
    const { tenant } = await makeTenant(t);
    const me = await makeUser(t, tenant, {});
    const before = Date.now();
    const res = await me.api.post(`/api/v1/users/${me.userId}/2fa/enable`);
    expect(res.statusCode, res.body).toBe(200);
    const data = res.json().data;
    expect(Object.keys(data).sort()).toEqual(['expires_at', 'otpauth_url', 'secret']);
    expect(data.secret).toMatch(/^[A-Z2-7]{32}$/);
    const row = await userRow(tenant, me.userId);
    const url = new URL(data.otpauth_url);
    expect(url.protocol).toBe('otpauth:');
    expect(data.otpauth_url.startsWith(`otpauth://totp/PSA:${encodeURIComponent(row.email)}?`)).toBe(true);
    expect(url.searchParams.get('issuer')).toBe('PSA');
    expect(url.searchParams.get('secret')).toBe(data.secret);
    const expires = new Date(data.expires_at).getTime();
    expect(expires).toBeGreaterThanOrEqual(before + 10 * 60_000 - 1000);
    expect(expires).toBeLessThanOrEqual(Date.now() + 10 * 60_000 + 1000);
    expect(row.two_factor_enabled).toBe(false);
    expect(row.two_factor_secret_enc).toBeNull();
    expect(row.two_factor_pending_secret_enc).not.toContain(data.secret);
    expect(t.app.secretBox.decrypt(row.two_factor_pending_secret_enc!)).toBe(data.secret);
    expect(row.two_factor_pending_at).not.toBeNull();
  });

  it('starts an enrolment with an empty object, and a new start replaces the pending secret', async () => {
    const { tenant } = await makeTenant(t);
    const me = await makeUser(t, tenant, {});
    const first = (await me.api.post(`/api/v1/users/${me.userId}/2fa/enable`, {})).json().data.secret;
    const second = await me.api.post(`/api/v1/users/${me.userId}/2fa/enable`, {});
    expect(second.statusCode, second.body).toBe(200);
    expect(second.json().data.secret).not.toBe(first);
    expect(t.app.secretBox.decrypt((await userRow(tenant, me.userId)).two_factor_pending_secret_enc!)).toBe(second.json().data.secret);
  });

  it('confirms with a current code: enables two-factor, returns 10 one-time recovery codes stored only as hashes, records 2fa_enabled', async () => {
    const { tenant } = await makeTenant(t);
    const me = await makeUser(t, tenant, {});
    const secret = (await me.api.post(`/api/v1/users/${me.userId}/2fa/enable`)).json().data.secret;
    const res = await me.api.post(`/api/v1/users/${me.userId}/2fa/enable`, { token: await codeAt(secret) });
    expect(res.statusCode, res.body).toBe(200);
    const data = res.json().data;
    expect(Object.keys(data).sort()).toEqual(['recovery_codes', 'two_factor_enabled']);
    expect(data.two_factor_enabled).toBe(true);
    expect(data.recovery_codes).toHaveLength(10);
    expect(new Set(data.recovery_codes).size).toBe(10);
    for (const code of data.recovery_codes) expect(code).toMatch(/^[0-9a-z]{4}-[0-9a-z]{4}-[0-9a-z]{4}-[0-9a-z]{4}$/);
    const row = await userRow(tenant, me.userId);
    expect(row).toMatchObject({ two_factor_enabled: true, two_factor_pending_secret_enc: null, two_factor_pending_at: null });
    expect(t.app.secretBox.decrypt(row.two_factor_secret_enc!)).toBe(secret);
    const stored = await recoveryRows(tenant, me.userId);
    expect(stored).toHaveLength(10);
    const dump = JSON.stringify(stored);
    for (const code of data.recovery_codes) {
      expect(dump).not.toContain(code);
      expect(dump).not.toContain(code.replace(/-/g, ''));
    }
    expect(await activityOf(tenant, me.userId)).toEqual([{ activity_type: '2fa_enabled', actor_user_id: null, details: { recovery_codes: 10 } }]);
  });

  it('accepts a code one step ahead (clock drift) but not two steps away', async () => {
    const { tenant } = await makeTenant(t);
    const me = await makeUser(t, tenant, {});
    const secret = (await me.api.post(`/api/v1/users/${me.userId}/2fa/enable`)).json().data.secret;
    const far = await me.api.post(`/api/v1/users/${me.userId}/2fa/enable`, { token: await codeAt(secret, 3) });
    expect(far.statusCode, far.body).toBe(400);
    const near = await me.api.post(`/api/v1/users/${me.userId}/2fa/enable`, { token: await codeAt(secret, 1) });
    expect(near.statusCode, near.body).toBe(200);
  });

  it('never accepts a caller-chosen secret (400), nor a malformed or wrong code (400)', async () => {
    const { tenant } = await makeTenant(t);
    const me = await makeUser(t, tenant, {});
    const chosen = await me.api.post(`/api/v1/users/${me.userId}/2fa/enable`, { secret: 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP' });
    expect(chosen.statusCode, chosen.body).toBe(400);
    expect(chosen.json().error.details).toEqual([{ path: 'body.secret', message: 'unknown field' }]);
    const both = await me.api.post(`/api/v1/users/${me.userId}/2fa/enable`, { secret: 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP', token: '123456' });
    expect(both.statusCode).toBe(400);
    expect((await userRow(tenant, me.userId)).two_factor_pending_secret_enc).toBeNull();

    const secret = (await me.api.post(`/api/v1/users/${me.userId}/2fa/enable`)).json().data.secret;
    for (const token of ['12345', 'abcdef', '1234567', 123456]) {
      const res = await me.api.post(`/api/v1/users/${me.userId}/2fa/enable`, { token });
      expect(res.statusCode, `${token} → ${res.body}`).toBe(400);
    }
    const wrong = await wrongCode(secret);
    const res = await me.api.post(`/api/v1/users/${me.userId}/2fa/enable`, { token: wrong });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().error).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ path: 'body.token' }] });
    expect((await userRow(tenant, me.userId)).two_factor_enabled).toBe(false);
  });

  it('answers 409 when two-factor is already enabled (start or confirm)', async () => {
    const { tenant } = await makeTenant(t);
    const me = await makeUser(t, tenant, {});
    const { secret } = await enrol(me.api, me.userId);
    const start = await me.api.post(`/api/v1/users/${me.userId}/2fa/enable`);
    expect(start.statusCode, start.body).toBe(409);
    const confirm = await me.api.post(`/api/v1/users/${me.userId}/2fa/enable`, { token: await codeAt(secret, 1) });
    expect(confirm.statusCode, confirm.body).toBe(409);
    expect(t.app.secretBox.decrypt((await userRow(tenant, me.userId)).two_factor_secret_enc!)).toBe(secret);
  });

  it('answers 422 to a confirmation without a pending enrolment, or after it expired', async () => {
    const { tenant } = await makeTenant(t);
    const me = await makeUser(t, tenant, {});
    const none = await me.api.post(`/api/v1/users/${me.userId}/2fa/enable`, { token: '123456' });
    expect(none.statusCode, none.body).toBe(422);
    const secret = (await me.api.post(`/api/v1/users/${me.userId}/2fa/enable`)).json().data.secret;
    await t.database.db.updateTable('users').set({ two_factor_pending_at: new Date(Date.now() - 11 * 60_000) }).where('tenant', '=', tenant).where('user_id', '=', me.userId).execute();
    const expired = await me.api.post(`/api/v1/users/${me.userId}/2fa/enable`, { token: await codeAt(secret) });
    expect(expired.statusCode, expired.body).toBe(422);
    expect(expired.json().error.message).toContain('expired');
    expect((await userRow(tenant, me.userId)).two_factor_enabled).toBe(false);
  });

  it('is self-service: a user without user:* permissions enrols themself; someone else’s needs user:update (403)', async () => {
    const { tenant, admin, adminUserId } = await makeTenant(t);
    const me = await makeUser(t, tenant, {});
    const tech = await makeUser(t, tenant, { role: 'Technician' });
    expect((await me.api.post(`/api/v1/users/${me.userId}/2fa/enable`)).statusCode).toBe(200);
    const forbidden = await tech.api.post(`/api/v1/users/${me.userId}/2fa/enable`);
    expect(forbidden.statusCode, forbidden.body).toBe(403);
    expect(forbidden.json().error.details.required).toEqual(['user:update']);
    const byAdmin = await admin.post(`/api/v1/users/${tech.userId}/2fa/enable`);
    expect(byAdmin.statusCode, byAdmin.body).toBe(200);
    const secret = byAdmin.json().data.secret;
    const confirmed = await admin.post(`/api/v1/users/${tech.userId}/2fa/enable`, { token: await codeAt(secret) });
    expect(confirmed.statusCode, confirmed.body).toBe(200);
    expect(await activityOf(tenant, tech.userId)).toEqual([{ activity_type: '2fa_enabled', actor_user_id: adminUserId, details: { recovery_codes: 10 } }]);
  });

  it('a client-portal user manages their own two-factor but cannot see other users (404)', async () => {
    const { tenant, adminUserId } = await makeTenant(t);
    const portal = await makeUser(t, tenant, { role: 'Client User', userType: 'client', clientId: missing });
    expect((await portal.api.post(`/api/v1/users/${portal.userId}/2fa/enable`)).statusCode).toBe(200);
    const other = await portal.api.post(`/api/v1/users/${adminUserId}/2fa/enable`);
    expect(other.statusCode, other.body).toBe(404);
  });

  it('answers 404 for an unknown user or another tenant’s user, 400 for a malformed id and 401 without a key', async () => {
    const a = await makeTenant(t);
    const b = await makeTenant(t);
    expect((await a.admin.post(`/api/v1/users/${missing}/2fa/enable`)).statusCode).toBe(404);
    const foreign = await a.admin.post(`/api/v1/users/${b.adminUserId}/2fa/enable`);
    expect(foreign.statusCode, foreign.body).toBe(404);
    expect((await userRow(b.tenant, b.adminUserId)).two_factor_pending_secret_enc).toBeNull();
    expect((await a.admin.post('/api/v1/users/not-a-uuid/2fa/enable')).statusCode).toBe(400);
    const anonymous = await t.app.inject({ method: 'POST', url: `/api/v1/users/${a.adminUserId}/2fa/enable` });
    expect(anonymous.statusCode).toBe(401);
  });

  it('limits code attempts per user (429)', async () => {
    const { tenant } = await makeTenant(t);
    const me = await makeUser(t, tenant, {});
    const secret = (await me.api.post(`/api/v1/users/${me.userId}/2fa/enable`)).json().data.secret;
    const wrong = await wrongCode(secret);
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) statuses.push((await me.api.post(`/api/v1/users/${me.userId}/2fa/enable`, { token: wrong })).statusCode);
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(400));
    expect(statuses[10]).toBe(429);
  });
});

describe('DELETE /api/v1/users/{id}/2fa/disable', () => {
  it('disables your own with a current code: clears the secret and recovery codes, records 2fa_disabled', async () => {
    const { tenant } = await makeTenant(t);
    const me = await makeUser(t, tenant, {});
    const { secret } = await enrol(me.api, me.userId);
    const res = await me.api.request({ method: 'DELETE', url: `/api/v1/users/${me.userId}/2fa/disable`, payload: { token: await codeAt(secret, 1) } });
    expect(res.statusCode, res.body).toBe(204);
    expect(res.body).toBe('');
    const row = await userRow(tenant, me.userId);
    expect(row).toMatchObject({ two_factor_enabled: false, two_factor_secret_enc: null, two_factor_pending_secret_enc: null, two_factor_last_step: null });
    expect(await recoveryRows(tenant, me.userId)).toEqual([]);
    const activity = await activityOf(tenant, me.userId);
    expect(activity.map((a) => a.activity_type)).toEqual(['2fa_enabled', '2fa_disabled']);
    expect(activity[1]).toEqual({ activity_type: '2fa_disabled', actor_user_id: null, details: { by: 'self', method: 'totp' } });
  });

  it('refuses a code already used (replay within its window) with 400', async () => {
    const { tenant } = await makeTenant(t);
    const me = await makeUser(t, tenant, {});
    const { confirmCode } = await enrol(me.api, me.userId);
    // The confirming code's step is spent: the same code cannot switch two-factor off again.
    const replay = await me.api.request({ method: 'DELETE', url: `/api/v1/users/${me.userId}/2fa/disable`, payload: { token: confirmCode } });
    expect(replay.statusCode, replay.body).toBe(400);
    expect(replay.json().error.message).toContain('already used');
    expect((await userRow(tenant, me.userId)).two_factor_enabled).toBe(true);
  });

  it('disables your own with a recovery code (any case, with or without dashes)', async () => {
    const { tenant } = await makeTenant(t);
    const me = await makeUser(t, tenant, {});
    const { recoveryCodes } = await enrol(me.api, me.userId);
    const res = await me.api.request({ method: 'DELETE', url: `/api/v1/users/${me.userId}/2fa/disable`, payload: { token: recoveryCodes[3]!.replace(/-/g, '').toUpperCase() } });
    expect(res.statusCode, res.body).toBe(204);
    expect((await activityOf(tenant, me.userId)).at(-1)!.details).toEqual({ by: 'self', method: 'recovery_code' });
  });

  it('asks for a code when disabling your own (400) and rejects a wrong one (400)', async () => {
    const { tenant } = await makeTenant(t);
    const me = await makeUser(t, tenant, {});
    const { secret } = await enrol(me.api, me.userId);
    const none = await me.api.request({ method: 'DELETE', url: `/api/v1/users/${me.userId}/2fa/disable` });
    expect(none.statusCode, none.body).toBe(400);
    expect(none.json().error.details).toEqual([{ path: 'body.token', message: expect.stringContaining('required') }]);
    for (const token of [await wrongCode(secret), 'zzzz-zzzz-zzzz-zzzz', 'nope']) {
      const res = await me.api.request({ method: 'DELETE', url: `/api/v1/users/${me.userId}/2fa/disable`, payload: { token } });
      expect(res.statusCode, `${token} → ${res.body}`).toBe(400);
    }
    const unknown = await me.api.request({ method: 'DELETE', url: `/api/v1/users/${me.userId}/2fa/disable`, payload: { token: '123456', secret: 'x' } });
    expect(unknown.statusCode).toBe(400);
    expect((await userRow(tenant, me.userId)).two_factor_enabled).toBe(true);
  });

  it('lets a user with user:update disable someone else’s without a code; others get 403', async () => {
    const { tenant, admin, adminUserId } = await makeTenant(t);
    const me = await makeUser(t, tenant, {});
    const tech = await makeUser(t, tenant, { role: 'Technician' });
    await enrol(me.api, me.userId);
    const forbidden = await tech.api.request({ method: 'DELETE', url: `/api/v1/users/${me.userId}/2fa/disable` });
    expect(forbidden.statusCode, forbidden.body).toBe(403);
    const res = await admin.request({ method: 'DELETE', url: `/api/v1/users/${me.userId}/2fa/disable` });
    expect(res.statusCode, res.body).toBe(204);
    expect((await userRow(tenant, me.userId)).two_factor_enabled).toBe(false);
    expect((await activityOf(tenant, me.userId)).at(-1)).toEqual({ activity_type: '2fa_disabled', actor_user_id: adminUserId, details: { by: 'admin' } });
  });

  it('answers 409 when two-factor is not enabled, and cancels a pending enrolment', async () => {
    const { tenant } = await makeTenant(t);
    const me = await makeUser(t, tenant, {});
    const off = await me.api.request({ method: 'DELETE', url: `/api/v1/users/${me.userId}/2fa/disable`, payload: { token: '123456' } });
    expect(off.statusCode, off.body).toBe(409);
    await me.api.post(`/api/v1/users/${me.userId}/2fa/enable`);
    const cancel = await me.api.request({ method: 'DELETE', url: `/api/v1/users/${me.userId}/2fa/disable` });
    expect(cancel.statusCode, cancel.body).toBe(204);
    expect((await userRow(tenant, me.userId)).two_factor_pending_secret_enc).toBeNull();
  });

  it('answers 404 for an unknown or another tenant’s user, 400 for a malformed id and 401 without a key', async () => {
    const a = await makeTenant(t);
    const b = await makeTenant(t);
    const other = await makeUser(t, b.tenant, {});
    await enrol(other.api, other.userId);
    expect((await a.admin.request({ method: 'DELETE', url: `/api/v1/users/${missing}/2fa/disable` })).statusCode).toBe(404);
    const foreign = await a.admin.request({ method: 'DELETE', url: `/api/v1/users/${other.userId}/2fa/disable` });
    expect(foreign.statusCode, foreign.body).toBe(404);
    expect((await userRow(b.tenant, other.userId)).two_factor_enabled).toBe(true);
    expect((await a.admin.request({ method: 'DELETE', url: '/api/v1/users/x/2fa/disable' })).statusCode).toBe(400);
    expect((await t.app.inject({ method: 'DELETE', url: `/api/v1/users/${other.userId}/2fa/disable` })).statusCode).toBe(401);
  });
});
