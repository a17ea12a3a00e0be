import { createHash } from 'node:crypto';
import { generate } from 'otplib';
import type { InjectOptions } from 'light-my-request';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/harness.ts';
import { makeTenant, makeUser, type Api, type Res } from '../../../test/factories.ts';
import { hashPassword } from '../users/index.ts';

const PUBLIC_URL = 'https://psa.example.test';
const ENV = { PSA_PUBLIC_URL: PUBLIC_URL, PSA_SIGNIN_BURST: '100000', PSA_SIGNIN_PER_MINUTE: '100000' };

let t: TestApp;
beforeAll(async () => { t = await buildTestApp({ env: ENV }); });
afterAll(async () => t.close());

/** A browser: keeps the cookies the app sets and sends them back. */
class Browser {
  readonly jar = new Map<string, string>();
  constructor(private readonly app: TestApp, private readonly headers: Record<string, string> = {}) {}

  async request(opts: InjectOptions): Promise<Res> {
    const res = (await this.app.app.inject({ ...opts, headers: { ...this.headers, ...(opts.headers ?? {}) }, cookies: Object.fromEntries(this.jar) })) as Res;
    for (const c of res.cookies) {
      const gone = c.value === '' || c.maxAge === 0 || (c.expires !== undefined && new Date(c.expires).getTime() <= Date.now());
      if (gone) this.jar.delete(c.name);
      else this.jar.set(c.name, c.value);
    }
    return res;
  }

  async csrf(): Promise<string> {
    const res = await this.request({ method: 'GET', url: '/api/auth/csrf' });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().csrfToken;
  }

  /** Posts credentials as an HTML form would. */
  async signIn(fields: Record<string, string>, headers: Record<string, string> = {}): Promise<Res> {
    const csrfToken = fields.csrfToken ?? (await this.csrf());
    return this.request({
      method: 'POST',
      url: '/api/auth/callback/credentials',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      payload: new URLSearchParams({ ...fields, csrfToken }).toString(),
    });
  }

  /** Posts credentials as JSON, asking for a JSON answer. */
  async signInJson(body: Record<string, unknown>): Promise<Res> {
    const csrfToken = await this.csrf();
    return this.request({ method: 'POST', url: '/api/auth/callback/credentials', headers: { accept: 'application/json' }, payload: { csrfToken, ...body } });
  }

  session(): Promise<Res> {
    return this.request({ method: 'GET', url: '/api/auth/session' });
  }
}

const PASSWORD = 'correct horse battery staple';

interface Person {
  userId: string;
  email: string;
  username: string;
  api: Api;
}

async function person(tenant: string, opts: Parameters<typeof makeUser>[2] = {}, password = PASSWORD): Promise<Person> {
  const u = await makeUser(t, tenant, opts);
  await t.database.db.updateTable('users').set({ password_hash: await hashPassword(password) }).where('tenant', '=', tenant).where('user_id', '=', u.userId).execute();
  const row = await userRow(tenant, u.userId);
  return { userId: u.userId, email: row.email, username: row.username, api: u.api };
}

const userRow = (tenant: string, userId: string) =>
  t.database.db.selectFrom('users').selectAll().where('tenant', '=', tenant).where('user_id', '=', userId).executeTakeFirstOrThrow();
const sessionsOf = (tenant: string, userId: string) =>
  t.database.db.selectFrom('sessions').selectAll().where('tenant', '=', tenant).where('user_id', '=', userId).orderBy('created_at').execute();
const activityOf = (tenant: string, userId: string) =>
  t.database.db.selectFrom('user_activity').select(['activity_type', 'details', 'ip', 'user_agent']).where('tenant', '=', tenant).where('user_id', '=', userId).orderBy('created_at').orderBy('activity_id').execute();
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

const codeAt = (secret: string, offset = 0) => generate({ secret, epoch: Math.floor(Date.now() / 1000) + offset * 30 });

/** Turns two-factor on for a person through the API; returns the secret, the recovery codes and the step-spending code. */
async function withTwoFactor(p: Person): Promise<{ secret: string; recoveryCodes: string[]; confirmCode: string }> {
  const secret = (await p.api.post(`/api/v1/users/${p.userId}/2fa/enable`)).json().data.secret;
  const confirmCode = await codeAt(secret);
  const res = await p.api.post(`/api/v1/users/${p.userId}/2fa/enable`, { token: confirmCode });
  expect(res.statusCode, res.body).toBe(200);
  return { secret, recoveryCodes: res.json().data.recovery_codes, confirmCode };
}

const setCookie = (res: Res, name: string) => res.cookies.find((c) => c.name === name);

describe('credentials sign-in, end to end', () => {
  it('csrf → callback/credentials → session → validate-token → signout', async () => {
    const { tenant, slug } = await makeTenant(t);
    const p = await person(tenant);
    const b = new Browser(t, { 'user-agent': 'vitest-browser/1.0' });

    const csrf = await b.request({ method: 'GET', url: '/api/auth/csrf' });
    expect(csrf.statusCode, csrf.body).toBe(200);
    expect(Object.keys(csrf.json())).toEqual(['csrfToken']);
    expect(setCookie(csrf, 'csrf-token')).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/api/auth' });

    const before = Date.now();
    const res = await b.signIn({ email: p.email.toUpperCase(), password: PASSWORD, callbackUrl: '/dashboard?tab=1', csrfToken: csrf.json().csrfToken });
    expect(res.statusCode, res.body).toBe(302);
    expect(res.headers.location).toBe(`${PUBLIC_URL}/dashboard?tab=1`);
    const cookie = setCookie(res, 'session-token')!;
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/' });
    expect(cookie.secure).toBeFalsy();
    expect(cookie.value).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(cookie.maxAge).toBeGreaterThan(30 * 86400 - 60);
    expect(cookie.maxAge).toBeLessThanOrEqual(30 * 86400);

    const [session] = await sessionsOf(tenant, p.userId);
    expect(session).toMatchObject({ login_method: 'credentials', token_hash: sha256(cookie.value), revoked_at: null, user_agent: 'vitest-browser/1.0' });
    expect(JSON.stringify(session)).not.toContain(cookie.value);
    expect(session!.expires_at.getTime()).toBeGreaterThanOrEqual(before + 30 * 86400_000 - 1000);
    expect(session!.expires_at.getTime()).toBeLessThanOrEqual(Date.now() + 30 * 86400_000);
    const user = await userRow(tenant, p.userId);
    expect(user.last_login_at!.getTime()).toBeGreaterThanOrEqual(before - 5);
    expect(user.failed_login_count).toBe(0);
    expect(await activityOf(tenant, p.userId)).toEqual([
      { activity_type: 'login', details: { method: 'credentials', session_id: session!.session_id }, ip: '127.0.0.1', user_agent: 'vitest-browser/1.0' },
    ]);

    const me = await b.session();
    expect(me.statusCode, me.body).toBe(200);
    expect(me.json()).toEqual({
      session_id: session!.session_id,
      login_method: 'credentials',
      user: {
        id: p.userId, email: p.email, name: 'Test User', username: p.username, image: null,
        tenant, tenantSlug: slug, user_type: 'internal',
        plan: 'pro', addons: [], trial_end: null, subscription_status: null, solo_pro_trial_end: null,
        premium_trial_end: null, premium_trial_confirmed: false, premium_trial_effective_date: null,
      },
    });

    const byCookie = await b.request({ method: 'GET', url: '/api/auth/validate-token' });
    expect(byCookie.statusCode, byCookie.body).toBe(200);
    expect(byCookie.json()).toEqual({ isValid: true, userType: 'internal', tenant });
    const byBearer = await t.app.inject({ method: 'GET', url: '/api/auth/validate-token', headers: { authorization: `Bearer ${cookie.value}` } });
    expect(byBearer.json()).toEqual({ isValid: true, userType: 'internal', tenant });

    const out = await b.request({ method: 'POST', url: '/api/auth/signout', headers: { accept: 'application/json' }, payload: { csrfToken: await b.csrf() } });
    expect(out.statusCode, out.body).toBe(200);
    expect(out.json()).toEqual({ url: `${PUBLIC_URL}/` });
    expect(setCookie(out, 'session-token')!.value).toBe('');
    expect(b.jar.has('session-token')).toBe(false);
    expect((await sessionsOf(tenant, p.userId))[0]!.revoked_at).not.toBeNull();
    expect((await activityOf(tenant, p.userId)).map((a) => [a.activity_type, a.details])).toEqual([
      ['login', { method: 'credentials', session_id: session!.session_id }],
      ['logout', { method: 'credentials', session_id: session!.session_id }],
    ]);

    // The revoked token is dead everywhere, even when replayed by hand.
    expect((await b.session()).json()).toEqual({});
    const replayed = await t.app.inject({ method: 'GET', url: '/api/auth/session', cookies: { 'session-token': cookie.value } });
    expect(replayed.json()).toEqual({});
    const invalid = await t.app.inject({ method: 'GET', url: '/api/auth/validate-token', headers: { authorization: `Bearer ${cookie.value}` } });
    expect(invalid.statusCode).toBe(401);
    expect(invalid.json()).toEqual({ isValid: false });
  });

  it('answers JSON clients with {url} (Accept: application/json, or json=true in a form)', async () => {
    const { tenant } = await makeTenant(t);
    const p = await person(tenant);
    const json = await new Browser(t).signInJson({ email: p.email, password: PASSWORD, callbackUrl: `${PUBLIC_URL}/tickets` });
    expect(json.statusCode, json.body).toBe(200);
    expect(json.json()).toEqual({ url: `${PUBLIC_URL}/tickets` });
    expect(setCookie(json, 'session-token')).toBeDefined();
    const form = await new Browser(t).signIn({ email: p.email, password: PASSWORD, json: 'true' });
    expect(form.statusCode, form.body).toBe(200);
    expect(form.json()).toEqual({ url: `${PUBLIC_URL}/` });
    expect(await sessionsOf(tenant, p.userId)).toHaveLength(2);
  });

  it('signs in by username, or by email in the username field', async () => {
    const { tenant } = await makeTenant(t);
    const p = await person(tenant);
    await t.database.db.updateTable('users').set({ username: 'ada.l' }).where('tenant', '=', tenant).where('user_id', '=', p.userId).execute();
    expect((await new Browser(t).signIn({ username: 'Ada.L', password: PASSWORD })).statusCode).toBe(302);
    expect((await new Browser(t).signIn({ username: p.email, password: PASSWORD })).statusCode).toBe(302);
    // The email field matches emails only.
    expect((await new Browser(t).signInJson({ email: 'ada.l', password: PASSWORD })).statusCode).toBe(401);
  });

  it('never redirects off-site: foreign, protocol-relative, backslash and script callback URLs fall back to the root', async () => {
    const { tenant } = await makeTenant(t);
    const p = await person(tenant);
    for (const callbackUrl of ['https://evil.test/', '//evil.test/x', '/\\evil.test', 'javascript:alert(1)', 'https://psa.example.test.evil.test/', 'http://psa.example.test/x', '/ok\r\nSet-Cookie: x=1']) {
      const res = await new Browser(t).signIn({ email: p.email, password: PASSWORD, callbackUrl });
      expect(res.statusCode, callbackUrl).toBe(302);
      expect(res.headers.location, callbackUrl).toBe(`${PUBLIC_URL}/`);
    }
  });

  it('refuses a missing, foreign or forged CSRF token with 403 and signs nobody in', async () => {
    const { tenant } = await makeTenant(t);
    const p = await person(tenant);
    const b = new Browser(t);
    const missingToken = await b.request({ method: 'POST', url: '/api/auth/callback/credentials', payload: { email: p.email, password: PASSWORD } });
    expect(missingToken.statusCode, missingToken.body).toBe(403);
    expect(missingToken.json().error.code).toBe('FORBIDDEN');
    // A token minted for another browser's cookie.
    const foreign = await new Browser(t).csrf();
    expect((await b.signIn({ email: p.email, password: PASSWORD, csrfToken: foreign }, {})).statusCode).toBe(403);
    // The right token without its cookie.
    const token = await b.csrf();
    const noCookie = await t.app.inject({ method: 'POST', url: '/api/auth/callback/credentials', payload: { csrfToken: token, email: p.email, password: PASSWORD } });
    expect(noCookie.statusCode).toBe(403);
    expect((await b.signIn({ email: p.email, password: PASSWORD, csrfToken: 'x'.repeat(43) })).statusCode).toBe(403);
    expect(await sessionsOf(tenant, p.userId)).toEqual([]);
    expect((await userRow(tenant, p.userId)).failed_login_count).toBe(0);
  });

  it('answers 400 for a missing email or password and for unknown fields', async () => {
    const { tenant } = await makeTenant(t);
    const p = await person(tenant);
    const b = new Browser(t);
    for (const body of [{ password: PASSWORD }, { email: p.email }, { email: p.email, password: PASSWORD, role: 'admin' }, { email: p.email, password: 5 }]) {
      const res = await b.signInJson(body);
      expect(res.statusCode, `${JSON.stringify(body)} → ${res.body}`).toBe(400);
    }
  });
});

describe('credentials sign-in failures', () => {
  it('answers a wrong password and an unknown email identically (401, no enumeration) and counts the failure', async () => {
    const { tenant } = await makeTenant(t);
    const p = await person(tenant);
    const wrong = await new Browser(t).signInJson({ email: p.email, password: 'wrong password' });
    const unknown = await new Browser(t).signInJson({ email: 'nobody@example.test', password: 'wrong password' });
    expect(wrong.statusCode, wrong.body).toBe(401);
    expect(unknown.statusCode).toBe(401);
    const strip = (r: Res) => ({ ...r.json().error, request_id: undefined });
    expect(strip(wrong)).toEqual(strip(unknown));
    expect(strip(wrong)).toEqual({ code: 'UNAUTHORIZED', message: 'Invalid credentials', details: { error: 'CredentialsSignin' }, request_id: undefined });
    expect((await userRow(tenant, p.userId)).failed_login_count).toBe(1);
    expect((await activityOf(tenant, p.userId)).map((a) => [a.activity_type, a.details])).toEqual([['login_failed', { method: 'credentials', reason: 'invalid_password' }]]);
    expect(await sessionsOf(tenant, p.userId)).toEqual([]);
  });

  it('sends a form back to the sign-in page with the error code', async () => {
    const { tenant } = await makeTenant(t);
    const p = await person(tenant);
    const res = await new Browser(t).signIn({ email: p.email, password: 'nope', callbackUrl: '/after' });
    expect(res.statusCode, res.body).toBe(302);
    const location = new URL(res.headers.location as string);
    expect(location.origin + location.pathname).toBe(`${PUBLIC_URL}/api/auth/signin`);
    expect(Object.fromEntries(location.searchParams)).toEqual({ error: 'CredentialsSignin', callbackUrl: `${PUBLIC_URL}/after` });
  });

  it('locks the account for 15 minutes after 5 consecutive failures: even the right password fails meanwhile', async () => {
    const { tenant } = await makeTenant(t);
    const p = await person(tenant);
    for (let i = 1; i <= 4; i++) {
      expect((await new Browser(t).signInJson({ email: p.email, password: `wrong ${i}` })).statusCode).toBe(401);
      expect((await userRow(tenant, p.userId)).failed_login_count).toBe(i);
    }
    const before = Date.now();
    expect((await new Browser(t).signInJson({ email: p.email, password: 'wrong 5' })).statusCode).toBe(401);
    const locked = await userRow(tenant, p.userId);
    expect(locked.locked_until!.getTime()).toBeGreaterThanOrEqual(before + 15 * 60_000 - 1000);
    expect(locked.locked_until!.getTime()).toBeLessThanOrEqual(Date.now() + 15 * 60_000);

    const right = await new Browser(t).signInJson({ email: p.email, password: PASSWORD });
    expect(right.statusCode, right.body).toBe(401);
    expect(right.json().error.details).toEqual({ error: 'CredentialsSignin' });
    expect(await sessionsOf(tenant, p.userId)).toEqual([]);
    const activity = await activityOf(tenant, p.userId);
    expect(activity.at(-2)!.details).toEqual({ method: 'credentials', reason: 'invalid_password', locked_until: locked.locked_until!.toISOString() });
    expect(activity.at(-1)!.details).toEqual({ method: 'credentials', reason: 'locked' });
    expect((await userRow(tenant, p.userId)).locked_until!.getTime()).toBe(locked.locked_until!.getTime());

    // Once the lock has passed, the right password works and the count starts again.
    await t.database.db.updateTable('users').set({ locked_until: new Date(Date.now() - 1000), failed_login_count: 3 }).where('tenant', '=', tenant).where('user_id', '=', p.userId).execute();
    expect((await new Browser(t).signInJson({ email: p.email, password: PASSWORD })).statusCode).toBe(200);
    expect(await userRow(tenant, p.userId)).toMatchObject({ failed_login_count: 0, locked_until: null });
  });

  it('an inactive user cannot sign in (the same generic 401)', async () => {
    const { tenant } = await makeTenant(t);
    const p = await person(tenant);
    await t.database.db.updateTable('users').set({ is_inactive: true }).where('tenant', '=', tenant).where('user_id', '=', p.userId).execute();
    const res = await new Browser(t).signInJson({ email: p.email, password: PASSWORD });
    expect(res.statusCode, res.body).toBe(401);
    expect(res.json().error.details).toEqual({ error: 'CredentialsSignin' });
    expect((await activityOf(tenant, p.userId)).at(-1)!.details).toEqual({ method: 'credentials', reason: 'inactive' });
    expect((await userRow(tenant, p.userId)).failed_login_count).toBe(0);
  });

  it('a user without a password (identity-provider only) cannot sign in with one', async () => {
    const { tenant } = await makeTenant(t);
    const u = await makeUser(t, tenant, {});
    const email = (await userRow(tenant, u.userId)).email;
    const res = await new Browser(t).signInJson({ email, password: '' + PASSWORD });
    expect(res.statusCode).toBe(401);
  });

  it('asks for the tenant (400) when the login and password fit accounts in several tenants; picks the one whose password fits otherwise', async () => {
    const a = await makeTenant(t);
    const b = await makeTenant(t);
    const c = await makeTenant(t);
    const pa = await person(a.tenant);
    const email = pa.email;
    const pb = await person(b.tenant);
    await t.database.db.updateTable('users').set({ email, username: email }).where('tenant', '=', b.tenant).where('user_id', '=', pb.userId).execute();
    const pc = await person(c.tenant, {}, 'another password entirely');
    await t.database.db.updateTable('users').set({ email, username: email }).where('tenant', '=', c.tenant).where('user_id', '=', pc.userId).execute();

    const ambiguous = await new Browser(t).signInJson({ email, password: PASSWORD });
    expect(ambiguous.statusCode, ambiguous.body).toBe(400);
    expect(ambiguous.json().error.details).toEqual({ error: 'tenant_required' });

    const chosen = new Browser(t);
    expect((await chosen.signInJson({ email, password: PASSWORD, tenant: b.slug.toUpperCase() })).statusCode).toBe(200);
    expect((await chosen.session()).json().user).toMatchObject({ id: pb.userId, tenant: b.tenant, tenantSlug: b.slug });

    const unique = new Browser(t);
    expect((await unique.signInJson({ email, password: 'another password entirely' })).statusCode).toBe(200);
    expect((await unique.session()).json().user.tenant).toBe(c.tenant);

    expect((await new Browser(t).signInJson({ email, password: PASSWORD, tenant: 'no-such-tenant' })).statusCode).toBe(401);
  });

  it('rate limits sign-in attempts per client IP (429 with Retry-After)', async () => {
    const limited = await buildTestApp({ database: t.database, env: { ...ENV, PSA_SIGNIN_BURST: '3', PSA_SIGNIN_PER_MINUTE: '1' } });
    try {
      const b = new Browser(limited);
      const token = await b.csrf();
      const attempt = (remoteAddress: string) =>
        b.request({ method: 'POST', url: '/api/auth/callback/credentials', remoteAddress, headers: { accept: 'application/json' }, payload: { csrfToken: token, email: 'x@example.test', password: 'x' } });
      const statuses = [];
      for (let i = 0; i < 4; i++) statuses.push((await attempt('203.0.113.9')).statusCode);
      expect(statuses).toEqual([401, 401, 401, 429]);
      const blocked = await attempt('203.0.113.9');
      expect(blocked.headers['retry-after']).toBeDefined();
      expect(blocked.json().error.code).toBe('RATE_LIMITED');
      expect((await attempt('203.0.113.10')).statusCode).toBe(401);
    } finally {
      await limited.close();
    }
  });
});

describe('credentials sign-in with two-factor', () => {
  it('asks for a code only after the password is right (totp_required), then signs in with a current code', async () => {
    const { tenant } = await makeTenant(t);
    const p = await person(tenant);
    const { secret } = await withTwoFactor(p);

    const wrongPassword = await new Browser(t).signInJson({ email: p.email, password: 'wrong' });
    expect(wrongPassword.statusCode).toBe(401);
    expect(wrongPassword.json().error.details).toEqual({ error: 'CredentialsSignin' });

    const noCode = await new Browser(t).signInJson({ email: p.email, password: PASSWORD });
    expect(noCode.statusCode, noCode.body).toBe(401);
    expect(noCode.json().error.details).toEqual({ error: 'totp_required' });
    expect(await sessionsOf(tenant, p.userId)).toEqual([]);
    expect((await userRow(tenant, p.userId)).failed_login_count).toBe(1);

    const b = new Browser(t);
    const res = await b.signInJson({ email: p.email, password: PASSWORD, totp: await codeAt(secret, 1) });
    expect(res.statusCode, res.body).toBe(200);
    expect((await b.session()).json().user.id).toBe(p.userId);
    expect((await activityOf(tenant, p.userId)).at(-1)!.details).toMatchObject({ method: 'credentials', second_factor: 'totp' });
    expect((await userRow(tenant, p.userId)).failed_login_count).toBe(0);
  });

  it('a form without the code goes back to the sign-in page asking for it', async () => {
    const { tenant } = await makeTenant(t);
    const p = await person(tenant);
    await withTwoFactor(p);
    const res = await new Browser(t).signIn({ email: p.email, password: PASSWORD });
    expect(res.statusCode).toBe(302);
    expect(new URL(res.headers.location as string).searchParams.get('error')).toBe('totp_required');
  });

  it('refuses a replayed code within its window, and a wrong code, counting both as failures', async () => {
    const { tenant } = await makeTenant(t);
    const p = await person(tenant);
    const { secret, confirmCode } = await withTwoFactor(p);
    // The code that confirmed the enrolment is spent.
    const spent = await new Browser(t).signInJson({ email: p.email, password: PASSWORD, totp: confirmCode });
    expect(spent.statusCode, spent.body).toBe(401);
    expect(spent.json().error.details).toEqual({ error: 'invalid_totp' });

    const next = await codeAt(secret, 1);
    expect((await new Browser(t).signInJson({ email: p.email, password: PASSWORD, token: next })).statusCode).toBe(200);
    const replay = await new Browser(t).signInJson({ email: p.email, password: PASSWORD, token: next });
    expect(replay.statusCode, replay.body).toBe(401);
    expect(replay.json().error.details).toEqual({ error: 'invalid_totp' });

    const wrong = await new Browser(t).signInJson({ email: p.email, password: PASSWORD, totp: '12345x' });
    expect(wrong.statusCode).toBe(401);
    expect(await sessionsOf(tenant, p.userId)).toHaveLength(1);
    expect((await userRow(tenant, p.userId)).failed_login_count).toBe(2);
    expect((await activityOf(tenant, p.userId)).filter((a) => a.activity_type === 'login_failed').map((a) => (a.details as { reason: string }).reason))
      .toEqual(['replayed_totp', 'replayed_totp', 'invalid_totp']);
  });

  it('accepts a recovery code once', async () => {
    const { tenant } = await makeTenant(t);
    const p = await person(tenant);
    const { recoveryCodes } = await withTwoFactor(p);
    const code = recoveryCodes[0]!;
    const b = new Browser(t);
    expect((await b.signInJson({ email: p.email, password: PASSWORD, totp: code })).statusCode).toBe(200);
    expect((await activityOf(tenant, p.userId)).at(-1)!.details).toMatchObject({ second_factor: 'recovery_code' });
    const used = await t.database.db.selectFrom('user_recovery_codes').select('used_at').where('tenant', '=', tenant).where('user_id', '=', p.userId).where('used_at', 'is not', null).execute();
    expect(used).toHaveLength(1);
    const again = await new Browser(t).signInJson({ email: p.email, password: PASSWORD, totp: code });
    expect(again.statusCode, again.body).toBe(401);
    expect(again.json().error.details).toEqual({ error: 'invalid_totp' });
    expect((await new Browser(t).signInJson({ email: p.email, password: PASSWORD, totp: recoveryCodes[1]! })).statusCode).toBe(200);
  });

  it('five wrong codes lock the account like five wrong passwords', async () => {
    const { tenant } = await makeTenant(t);
    const p = await person(tenant);
    const { secret } = await withTwoFactor(p);
    for (let i = 0; i < 5; i++) await new Browser(t).signInJson({ email: p.email, password: PASSWORD, totp: 'aaaa-bbbb-cccc-dddd' });
    expect((await userRow(tenant, p.userId)).locked_until).not.toBeNull();
    const res = await new Browser(t).signInJson({ email: p.email, password: PASSWORD, totp: await codeAt(secret, 1) });
    expect(res.statusCode).toBe(401);
    expect(res.json().error.details).toEqual({ error: 'CredentialsSignin' });
  });
});

describe('sessions', () => {
  async function signedIn(p: Person): Promise<Browser> {
    const b = new Browser(t);
    expect((await b.signIn({ email: p.email, password: PASSWORD })).statusCode).toBe(302);
    return b;
  }

  it('shows the tenant’s plan and trial fields, the avatar URL, and portal users’ client and contact', async () => {
    const { tenant } = await makeTenant(t);
    await t.database.db.updateTable('tenants').set({
      plan: 'premium', addons: ['ai', 'ledger'], subscription_status: 'trialing', trial_end: new Date('2030-01-02T03:04:05.678Z'),
      premium_trial_confirmed: true, premium_trial_effective_date: new Date('2029-12-01T00:00:00.000Z'),
    }).where('tenant_id', '=', tenant).execute();
    const clientId = '01890000-0000-7000-8000-0000000000c1';
    const contactId = '01890000-0000-7000-8000-0000000000c2';
    const p = await person(tenant, { userType: 'client', clientId, role: 'Client User' });
    await t.database.db.updateTable('users').set({ contact_id: contactId, first_name: 'Ada', last_name: null }).where('tenant', '=', tenant).where('user_id', '=', p.userId).execute();
    await t.database.db.insertInto('user_avatars').values({ tenant, user_id: p.userId, image: Buffer.from('x'), content_type: 'image/png', etag: 'abc123' }).execute();
    const b = await signedIn(p);
    const user = (await b.session()).json().user;
    expect(user).toMatchObject({
      name: 'Ada', user_type: 'client', clientId, contactId, image: `/api/v1/users/${p.userId}/avatar?v=abc123`,
      plan: 'premium', addons: ['ai', 'ledger'], subscription_status: 'trialing', trial_end: '2030-01-02T03:04:05.678Z',
      premium_trial_confirmed: true, premium_trial_effective_date: '2029-12-01T00:00:00.000Z', premium_trial_end: null, solo_pro_trial_end: null,
    });
    expect((await b.request({ method: 'GET', url: '/api/auth/validate-token' })).json()).toEqual({ isValid: true, userType: 'client', tenant });
  });

  it('expire, can be revoked elsewhere (password change, deactivation) and die with an inactive user', async () => {
    const { tenant } = await makeTenant(t);
    const p = await person(tenant);
    const expired = await signedIn(p);
    const revoked = await signedIn(p);
    const inactive = await signedIn(p);
    const [s1, s2] = await sessionsOf(tenant, p.userId);
    await t.database.db.updateTable('sessions').set({ expires_at: new Date(Date.now() - 1000) }).where('session_id', '=', s1!.session_id).execute();
    await t.database.db.updateTable('sessions').set({ revoked_at: new Date() }).where('session_id', '=', s2!.session_id).execute();
    expect((await expired.session()).json()).toEqual({});
    expect((await revoked.session()).json()).toEqual({});
    expect((await expired.request({ method: 'GET', url: '/api/auth/validate-token' })).statusCode).toBe(401);
    expect((await inactive.session()).json().user.id).toBe(p.userId);
    await t.database.db.updateTable('users').set({ is_inactive: true }).where('tenant', '=', tenant).where('user_id', '=', p.userId).execute();
    expect((await inactive.session()).json()).toEqual({});
  });

  it('updates last_seen_at at most once a minute', async () => {
    const { tenant } = await makeTenant(t);
    const p = await person(tenant);
    const b = await signedIn(p);
    const [s] = await sessionsOf(tenant, p.userId);
    const old = new Date(Date.now() - 5 * 60_000);
    await t.database.db.updateTable('sessions').set({ last_seen_at: old }).where('session_id', '=', s!.session_id).execute();
    await b.session();
    const touched = (await sessionsOf(tenant, p.userId))[0]!.last_seen_at;
    expect(touched.getTime()).toBeGreaterThan(old.getTime() + 4 * 60_000);
    await b.session();
    await b.request({ method: 'GET', url: '/api/auth/validate-token' });
    expect((await sessionsOf(tenant, p.userId))[0]!.last_seen_at.getTime()).toBe(touched.getTime());
  });

  it('the session cookie does not authenticate /api/v1 (API keys only)', async () => {
    const { tenant } = await makeTenant(t);
    const p = await person(tenant);
    const b = await signedIn(p);
    expect((await b.request({ method: 'GET', url: '/api/v1/api-keys' })).statusCode).toBe(401);
  });

  it('over HTTPS (behind a trusted proxy) uses Secure __Secure- cookies and ignores the plain ones', async () => {
    const proxied = await buildTestApp({ database: t.database, env: { ...ENV, PSA_TRUST_PROXY: 'true' } });
    try {
      const { tenant } = await makeTenant(t);
      const p = await person(tenant);
      const b = new Browser(proxied, { 'x-forwarded-proto': 'https' });
      const csrf = await b.request({ method: 'GET', url: '/api/auth/csrf' });
      expect(setCookie(csrf, '__Secure-csrf-token')).toMatchObject({ secure: true, httpOnly: true });
      const res = await b.signIn({ email: p.email, password: PASSWORD, csrfToken: csrf.json().csrfToken });
      expect(res.statusCode, res.body).toBe(302);
      const cookie = setCookie(res, '__Secure-session-token')!;
      expect(cookie).toMatchObject({ secure: true, httpOnly: true, sameSite: 'Lax', path: '/' });
      expect(setCookie(res, 'session-token')).toBeUndefined();
      expect((await b.session()).json().user.id).toBe(p.userId);
      const plain = await proxied.app.inject({ method: 'GET', url: '/api/auth/session', headers: { 'x-forwarded-proto': 'https' }, cookies: { 'session-token': cookie.value } });
      expect(plain.json()).toEqual({});
      const overHttp = await proxied.app.inject({ method: 'GET', url: '/api/auth/session', cookies: { 'session-token': cookie.value } });
      expect(overHttp.json().user.id).toBe(p.userId);
    } finally {
      await proxied.close();
    }
  });
});
