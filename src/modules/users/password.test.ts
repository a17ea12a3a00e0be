import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/harness.ts';
import { anonymous } from '../../../test/client-factories.ts';
import { makeTenant, makeUser, type Res } from '../../../test/factories.ts';
import { passwordViolation } from './password-policy.ts';
import { hashPassword, verifyPassword } from './passwords.ts';
import { STRONG_PASSWORD, activityOf, createUser, makeClientRecord, makeRole, openSession, randomId, sessionRevoked, userEvents } from './users.test-support.ts';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => t.close());

const expectError = (res: Res, status: number, code: string) => {
  expect(res.statusCode, res.body).toBe(status);
  expect(res.json().error.code, res.body).toBe(code);
};

const NEW_PASSWORD = 'Granite-Meadow-Violet-77';

describe('the password policy', () => {
  const owner = { username: 'jdoe', email: 'john.doe@example.test' };
  const ruleOf = (pw: string, who: { username?: string; email?: string } = owner) => passwordViolation(pw, who)?.rule;

  it('accepts long, unremarkable passwords, spaces and any characters included', () => {
    for (const pw of [STRONG_PASSWORD, 'correct horse battery', 'Ünïcödé-pässwörd-✓', 'x'.repeat(64) + 'y', 'a'.repeat(11) + 'b']) expect(ruleOf(pw), pw).toBeUndefined();
    expect(ruleOf('ab'.repeat(64))).toBeUndefined();
  });

  it('needs 12 to 128 characters, counted as characters rather than bytes', () => {
    expect(ruleOf('Abc-12345-x')).toBe('min_length');
    expect(ruleOf('😀'.repeat(11))).toBe('min_length');
    expect(ruleOf('😀😁'.repeat(6))).toBeUndefined();
    expect(ruleOf('Quite-long-but-fine-'.repeat(6) + 'abcdefgh')).toBeUndefined();
    expect(ruleOf('Quite-long-but-fine-'.repeat(6) + 'abcdefghi')).toBe('max_length');
  });

  it('refuses the username and the e-mail’s local part, ignoring case', () => {
    expect(ruleOf('My-JDOE-password-9')).toBe('contains_username');
    expect(ruleOf('xx-John.Doe-forever')).toBe('contains_email');
    expect(ruleOf('example.test-long-one')).toBeUndefined();
    // Very short local parts would forbid too much: they are not checked.
    expect(ruleOf('al-is-a-common-pair', { username: 'someone', email: 'al@x.test' })).toBeUndefined();
  });

  it('refuses very common passwords, runs and repeated characters', () => {
    expect(ruleOf('PASSWORD1234')).toBe('common_password');
    expect(ruleOf('qwertyuiop123')).toBe('common_password');
    expect(ruleOf('aaaaaaaaaaaaaa')).toBe('repeated_character');
    expect(ruleOf('############')).toBe('repeated_character');
    expect(ruleOf('abcdefghijklmnop')).toBe('sequence');
    expect(ruleOf('ZYXWVUTSRQPONM')).toBe('sequence');
    expect(ruleOf('345678901234')).toBe('sequence');
    expect(ruleOf('987654321098')).toBe('sequence');
    expect(ruleOf('abcdefghijklmnoq')).toBeUndefined();
  });

  it('hashes with argon2id and verifies only the right password', async () => {
    const hash = await hashPassword(STRONG_PASSWORD);
    expect(hash).toMatch(/^\$argon2id\$/);
    expect(await verifyPassword(hash, STRONG_PASSWORD)).toBe(true);
    expect(await verifyPassword(hash, `${STRONG_PASSWORD}!`)).toBe(false);
    expect(await verifyPassword('not a hash', STRONG_PASSWORD)).toBe(false);
  });
});

describe('PUT /api/v1/users/{id}/password', () => {
  /** A user with a password and a key of their own (makeUser creates users without one). */
  async function userWithPassword(tenant: string, role?: string) {
    const u = await makeUser(t, tenant, role ? { role } : {});
    await t.database.db.updateTable('users').set({ password_hash: await hashPassword(STRONG_PASSWORD) }).where('tenant', '=', tenant).where('user_id', '=', u.userId).execute();
    return u;
  }

  const storedHash = async (tenant: string, userId: string) =>
    (await t.database.db.selectFrom('users').select(['password_hash', 'password_changed_at', 'failed_login_count', 'locked_until']).where('tenant', '=', tenant).where('user_id', '=', userId).executeTakeFirstOrThrow());

  it('changes your own password with the current one, ends your sessions and records it', async () => {
    const { tenant } = await makeTenant(t);
    const me = await userWithPassword(tenant);
    const s1 = await openSession(t, tenant, me.userId);
    const s2 = await openSession(t, tenant, me.userId);
    const res = await me.api.put(`/api/v1/users/${me.userId}/password`, { current_password: STRONG_PASSWORD, new_password: NEW_PASSWORD }, { 'user-agent': 'pw-test' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toEqual({ password_changed_at: expect.any(String), sessions_revoked: 2 });
    expect(res.body).not.toContain(NEW_PASSWORD);
    const row = await storedHash(tenant, me.userId);
    expect(await verifyPassword(row.password_hash!, NEW_PASSWORD)).toBe(true);
    expect(row.password_changed_at!.toISOString()).toBe(res.json().data.password_changed_at);
    expect(await sessionRevoked(t, tenant, s1)).toBe(true);
    expect(await sessionRevoked(t, tenant, s2)).toBe(true);
    expect((await activityOf(t, tenant, me.userId)).at(-1)).toEqual({
      activity_type: 'password_change',
      user_id: me.userId,
      actor_user_id: null,
      details: { reset_by_other_user: false, sessions_revoked: 2 },
      ip: '127.0.0.1',
      user_agent: 'pw-test',
    });
    expect((await userEvents(t, tenant, me.userId)).at(-1)).toEqual({ event_type: 'user.updated', payload: { user_id: me.userId, changed_fields: ['password'] } });
    // API keys are not sessions: they keep working.
    expect((await me.api.get(`/api/v1/users/${me.userId}`)).statusCode).toBe(200);
  });

  it('refuses your own change without the right current password, or to the same password (400)', async () => {
    const { tenant } = await makeTenant(t);
    const me = await userWithPassword(tenant, 'Admin');
    const before = await storedHash(tenant, me.userId);
    const missing = await me.api.put(`/api/v1/users/${me.userId}/password`, { new_password: NEW_PASSWORD });
    expectError(missing, 400, 'VALIDATION_ERROR');
    expect(missing.json().error.details[0].path).toBe('body.current_password');
    const wrong = await me.api.put(`/api/v1/users/${me.userId}/password`, { current_password: 'Not-The-Password-1', new_password: NEW_PASSWORD });
    expectError(wrong, 400, 'VALIDATION_ERROR');
    expect(wrong.json().error.message).toContain('current_password');
    const same = await me.api.put(`/api/v1/users/${me.userId}/password`, { current_password: STRONG_PASSWORD, new_password: STRONG_PASSWORD });
    expectError(same, 400, 'VALIDATION_ERROR');
    expect((await storedHash(tenant, me.userId)).password_hash).toBe(before.password_hash);
  });

  it('lets a user without a password yet set one without current_password', async () => {
    const { tenant } = await makeTenant(t);
    const me = await makeUser(t, tenant, {});
    const res = await me.api.put(`/api/v1/users/${me.userId}/password`, { new_password: NEW_PASSWORD });
    expect(res.statusCode, res.body).toBe(200);
    expect(await verifyPassword((await storedHash(tenant, me.userId)).password_hash!, NEW_PASSWORD)).toBe(true);
  });

  it('an admin resets another user’s password without the current one; the reset clears a sign-in lock', async () => {
    const { tenant, admin, adminUserId } = await makeTenant(t);
    const user = await createUser(admin);
    await t.database.db.updateTable('users').set({ failed_login_count: 7, locked_until: new Date(Date.now() + 3_600_000) }).where('tenant', '=', tenant).where('user_id', '=', user.user_id).execute();
    const session = await openSession(t, tenant, user.user_id);
    const res = await admin.put(`/api/v1/users/${user.user_id}/password`, { new_password: NEW_PASSWORD });
    expect(res.statusCode, res.body).toBe(200);
    const row = await storedHash(tenant, user.user_id);
    expect(await verifyPassword(row.password_hash!, NEW_PASSWORD)).toBe(true);
    expect(row).toMatchObject({ failed_login_count: 0, locked_until: null });
    expect(await sessionRevoked(t, tenant, session)).toBe(true);
    expect((await activityOf(t, tenant, user.user_id)).at(-1)).toMatchObject({
      activity_type: 'password_change',
      actor_user_id: adminUserId,
      details: { reset_by_other_user: true, sessions_revoked: 1 },
    });
  });

  it('applies the password policy to the new password, with the target user’s name and e-mail', async () => {
    const { admin } = await makeTenant(t);
    const user = await createUser(admin, { username: 'ringo.starr', email: 'drums@beatles.test' });
    for (const [pw, rule] of [['short', 'min_length'], ['I-am-Ringo.Starr-1940', 'contains_username'], ['DRUMS-are-the-best', 'contains_email'], ['1234567890123', 'sequence']]) {
      const res = await admin.put(`/api/v1/users/${user.user_id}/password`, { new_password: pw });
      expectError(res, 400, 'VALIDATION_ERROR');
      expect(res.json().error.details[0]).toMatchObject({ path: 'body.new_password', rule });
    }
  });

  it('needs user:update for someone else; 401 without a key; 404 for unknown or foreign users; 400 for bad bodies', async () => {
    const a = await makeTenant(t);
    const b = await makeTenant(t);
    const target = await createUser(a.admin);
    const viewer = await makeUser(t, a.tenant, { role: 'Viewer' });
    const denied = await viewer.api.put(`/api/v1/users/${target.user_id}/password`, { new_password: NEW_PASSWORD });
    expectError(denied, 403, 'FORBIDDEN');
    expect(denied.json().error.details.required).toEqual(['user:update']);
    expectError(await anonymous(t).put(`/api/v1/users/${target.user_id}/password`, { new_password: NEW_PASSWORD }), 401, 'UNAUTHORIZED');
    expectError(await a.admin.put(`/api/v1/users/${randomId()}/password`, { new_password: NEW_PASSWORD }), 404, 'NOT_FOUND');
    expectError(await b.admin.put(`/api/v1/users/${target.user_id}/password`, { new_password: NEW_PASSWORD }), 404, 'NOT_FOUND');
    for (const body of [{}, { new_password: '' }, { new_password: NEW_PASSWORD, confirm: NEW_PASSWORD }, { new_password: 123456789012 }, { new_password: 'x'.repeat(1025) }]) {
      expect((await a.admin.put(`/api/v1/users/${target.user_id}/password`, body)).statusCode, JSON.stringify(body)).toBe(400);
    }
  });

  it('honours If-Match against the user resource', async () => {
    const { admin } = await makeTenant(t);
    const user = await createUser(admin);
    expectError(await admin.put(`/api/v1/users/${user.user_id}/password`, { new_password: NEW_PASSWORD }, { 'if-match': '"old"' }), 412, 'PRECONDITION_FAILED');
    const etag = String((await admin.get(`/api/v1/users/${user.user_id}`)).headers.etag);
    expect((await admin.put(`/api/v1/users/${user.user_id}/password`, { new_password: NEW_PASSWORD }, { 'if-match': etag })).statusCode).toBe(200);
  });

  it('a client-portal admin resets passwords only inside its own client', async () => {
    const { tenant, admin } = await makeTenant(t);
    const own = await makeClientRecord(admin);
    const colleague = await createUser(admin, { user_type: 'client', client_id: own });
    const staff = await createUser(admin);
    const portal = await makeUser(t, tenant, { role: await makeRole(t, tenant, ['user:update'], { clientPortal: true }), userType: 'client', clientId: own });
    expect((await portal.api.put(`/api/v1/users/${colleague.user_id}/password`, { new_password: NEW_PASSWORD })).statusCode).toBe(200);
    expectError(await portal.api.put(`/api/v1/users/${staff.user_id}/password`, { new_password: NEW_PASSWORD }), 404, 'NOT_FOUND');
  });
});
