import type { InjectOptions } from 'light-my-request';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/harness.ts';
import { makeTenant, makeUser, type Res } from '../../../test/factories.ts';
import { hashPassword } from '../users/index.ts';
import { escapeHtml } from './pages.ts';

const PUBLIC_URL = 'https://psa.example.test';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp({ env: { PSA_PUBLIC_URL: PUBLIC_URL } }); });
afterAll(async () => t.close());

const inject = (opts: InjectOptions) => t.app.inject(opts) as Promise<Res>;
const cookieOf = (res: Res, name: string) => res.cookies.find((c) => c.name === name);

async function csrfPair(): Promise<{ token: string; cookie: string }> {
  const res = await inject({ method: 'GET', url: '/api/auth/csrf' });
  return { token: res.json().csrfToken, cookie: cookieOf(res, 'csrf-token')!.value };
}

/** A signed-in browser's cookies (session and CSRF) for a fresh user. */
async function signedIn(): Promise<{ tenant: string; userId: string; cookies: Record<string, string>; csrfToken: string }> {
  const { tenant } = await makeTenant(t);
  const u = await makeUser(t, tenant, {});
  await t.database.db.updateTable('users').set({ password_hash: await hashPassword('pw pw pw pw') }).where('tenant', '=', tenant).where('user_id', '=', u.userId).execute();
  const email = (await t.database.db.selectFrom('users').select('email').where('tenant', '=', tenant).where('user_id', '=', u.userId).executeTakeFirstOrThrow()).email;
  const csrf = await csrfPair();
  const res = await inject({ method: 'POST', url: '/api/auth/callback/credentials', cookies: { 'csrf-token': csrf.cookie }, payload: { csrfToken: csrf.token, email, password: 'pw pw pw pw' } });
  expect(res.statusCode, res.body).toBe(302);
  return { tenant, userId: u.userId, cookies: { 'csrf-token': csrf.cookie, 'session-token': cookieOf(res, 'session-token')!.value }, csrfToken: csrf.token };
}

describe('POST /api/auth/validate-key', () => {
  it('answers isValid, the key’s user and tenant for a valid key', async () => {
    const { tenant, adminUserId, admin } = await makeTenant(t);
    const res = await inject({ method: 'POST', url: '/api/auth/validate-key', headers: { 'x-api-key': admin.key } });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ isValid: true, userId: adminUserId, tenant });
    // A JSON body of {} is fine too.
    expect((await inject({ method: 'POST', url: '/api/auth/validate-key', headers: { 'x-api-key': admin.key }, payload: {} })).statusCode).toBe(200);
  });

  it('answers 401 in the flat error form for a missing, empty, malformed, unknown, revoked or expired key, or an inactive user', async () => {
    const { tenant, admin } = await makeTenant(t);
    const expiring = await makeUser(t, tenant, { role: 'Viewer', expiresAt: new Date(Date.now() + 60_000) });
    const revoked = (await admin.post('/api/v1/api-keys', { name: 'to revoke' })).json().data;
    expect((await admin.delete(`/api/v1/api-keys/${revoked.id}`)).statusCode).toBe(204);
    const inactive = await makeUser(t, tenant, { role: 'Viewer' });
    await t.database.db.updateTable('users').set({ is_inactive: true }).where('tenant', '=', tenant).where('user_id', '=', inactive.userId).execute();
    t.app.keyCache.invalidateTenant(tenant);
    await t.database.db.updateTable('api_keys').set({ expires_at: new Date(Date.now() - 1000) }).where('api_key_id', '=', expiring.apiKeyId).execute();
    t.app.keyCache.invalidateTenant(tenant);

    const cases: [string, Record<string, string>][] = [
      ['missing', {}],
      ['empty', { 'x-api-key': '' }],
      ['malformed', { 'x-api-key': 'not a key' }],
      ['unknown', { 'x-api-key': `psa_${'A'.repeat(43)}` }],
      ['revoked', { 'x-api-key': revoked.api_key }],
      ['expired', { 'x-api-key': expiring.api.key }],
      ['inactive user', { 'x-api-key': inactive.api.key }],
    ];
    for (const [label, headers] of cases) {
      const res = await inject({ method: 'POST', url: '/api/auth/validate-key', headers });
      expect(res.statusCode, `${label}: ${res.body}`).toBe(401);
      const body = res.json();
      expect(Object.keys(body), label).toEqual(['error']);
      expect(typeof body.error, label).toBe('string');
    }
  });

  it('answers 400 for an unexpected body, and limits failed attempts per client IP (429)', async () => {
    const { admin } = await makeTenant(t);
    const body = await inject({ method: 'POST', url: '/api/auth/validate-key', headers: { 'x-api-key': admin.key }, payload: { key: 'x' } });
    expect(body.statusCode, body.body).toBe(400);
    const limited = await buildTestApp({ database: t.database, env: { PSA_AUTH_FAILURE_BURST: '2', PSA_AUTH_FAILURE_PER_MINUTE: '1' } });
    try {
      const attempt = () => limited.app.inject({ method: 'POST', url: '/api/auth/validate-key', remoteAddress: '198.51.100.7', headers: { 'x-api-key': 'psa_nope' } });
      expect([(await attempt()).statusCode, (await attempt()).statusCode, (await attempt()).statusCode]).toEqual([401, 401, 429]);
      const ok = await limited.app.inject({ method: 'POST', url: '/api/auth/validate-key', remoteAddress: '198.51.100.8', headers: { 'x-api-key': admin.key } });
      expect(ok.statusCode).toBe(200);
    } finally {
      await limited.close();
    }
  });
});

describe('GET /api/auth/validate-token and GET /api/auth/session', () => {
  it('answer 401 {isValid: false} and {} without a valid token or cookie', async () => {
    for (const headers of [{}, { authorization: 'Bearer nope' }, { authorization: `Bearer ${'a'.repeat(43)}` }, { authorization: 'Basic Zm9vOmJhcg==' }]) {
      const res = await inject({ method: 'GET', url: '/api/auth/validate-token', headers });
      expect(res.statusCode, JSON.stringify(headers)).toBe(401);
      expect(res.json()).toEqual({ isValid: false });
    }
    const garbage = await inject({ method: 'GET', url: '/api/auth/validate-token', cookies: { 'session-token': 'x' } });
    expect(garbage.json()).toEqual({ isValid: false });
    const session = await inject({ method: 'GET', url: '/api/auth/session' });
    expect(session.statusCode).toBe(200);
    expect(session.json()).toEqual({});
    expect((await inject({ method: 'GET', url: '/api/auth/session', cookies: { 'session-token': 'a'.repeat(43) } })).json()).toEqual({});
  });

  it('answer 400 to unknown query parameters', async () => {
    expect((await inject({ method: 'GET', url: '/api/auth/session?user=1' })).statusCode).toBe(400);
    expect((await inject({ method: 'GET', url: '/api/auth/validate-token?token=x' })).statusCode).toBe(400);
    expect((await inject({ method: 'POST', url: '/api/auth/validate-key?key=x' })).statusCode).toBe(400);
  });

  it('an API key is not a session token', async () => {
    const { admin } = await makeTenant(t);
    const res = await inject({ method: 'GET', url: '/api/auth/validate-token', headers: { authorization: `Bearer ${admin.key}`, 'x-api-key': admin.key } });
    expect(res.statusCode).toBe(401);
  });
});

describe('GET /api/auth/{nextauth}', () => {
  it('csrf: returns a token bound to an HttpOnly cookie, and keeps the cookie across calls', async () => {
    const first = await inject({ method: 'GET', url: '/api/auth/csrf' });
    expect(first.statusCode).toBe(200);
    const cookie = cookieOf(first, 'csrf-token')!;
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/api/auth' });
    expect(first.json().csrfToken).not.toBe(cookie.value);
    const again = await inject({ method: 'GET', url: '/api/auth/csrf', cookies: { 'csrf-token': cookie.value } });
    expect(again.json().csrfToken).toBe(first.json().csrfToken);
    expect(cookieOf(again, 'csrf-token')).toBeUndefined();
    expect(first.headers['cache-control']).toBe('no-store');
  });

  it('providers: credentials only when no identity provider is configured', async () => {
    const res = await inject({ method: 'GET', url: '/api/auth/providers' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      credentials: {
        id: 'credentials', name: 'Credentials', type: 'credentials',
        signinUrl: `${PUBLIC_URL}/api/auth/signin/credentials`, callbackUrl: `${PUBLIC_URL}/api/auth/callback/credentials`,
      },
    });
  });

  it('signin: the providers as JSON, or an HTML page with a CSRF-protected form', async () => {
    const json = await inject({ method: 'GET', url: '/api/auth/signin?error=totp_required' });
    expect(json.statusCode).toBe(200);
    expect(json.json().data).toMatchObject({
      page: 'signin',
      error: { code: 'totp_required', message: expect.stringContaining('authenticator') },
      providers: [{ id: 'credentials', type: 'credentials' }],
    });
    const html = await inject({ method: 'GET', url: `/api/auth/signin?callbackUrl=${encodeURIComponent('/x?a="><script>alert(1)</script>')}`, headers: { accept: 'text/html' } });
    expect(html.statusCode).toBe(200);
    expect(html.headers['content-type']).toContain('text/html');
    expect(html.body).toContain(`<form method="post" action="${PUBLIC_URL}/api/auth/callback/credentials">`);
    const token = /name="csrfToken" value="([^"]+)"/.exec(html.body)![1];
    const cookie = cookieOf(html, 'csrf-token')!.value;
    const check = await inject({ method: 'GET', url: '/api/auth/csrf', cookies: { 'csrf-token': cookie } });
    expect(check.json().csrfToken).toBe(token);
    expect(html.body).not.toContain('<script>');
    expect(html.body).toContain('name="callbackUrl" value="https://psa.example.test/x?a&#61;%22%3E%3Cscript%3Ealert(1)%3C/script%3E"');
    expect(escapeHtml('"><script>\'`=&')).toBe('&#34;&#62;&#60;script&#62;&#39;&#96;&#61;&#38;');
    expect(html.body).not.toContain('name="totp"');
    expect((await inject({ method: 'GET', url: '/api/auth/signin?error=invalid_totp', headers: { accept: 'text/html' } })).body).toContain('name="totp"');
  });

  it('error: explains known codes; unknown or hostile codes read as Default and nothing is reflected', async () => {
    const known = await inject({ method: 'GET', url: '/api/auth/error?error=AccessDenied' });
    expect(known.statusCode).toBe(200);
    expect(known.json()).toEqual({ data: { page: 'error', message: expect.any(String), error: { code: 'AccessDenied', message: expect.stringContaining('Access denied') } } });
    const hostile = '<img src=x onerror=alert(1)>';
    for (const accept of ['application/json', 'text/html']) {
      const res = await inject({ method: 'GET', url: `/api/auth/error?error=${encodeURIComponent(hostile)}`, headers: { accept } });
      expect(res.statusCode).toBe(200);
      expect(res.body).not.toContain('<img');
      expect(res.body).not.toContain('onerror');
      expect(res.body).toContain('Sign-in failed.');
    }
    expect((await inject({ method: 'GET', url: '/api/auth/error' })).json().data.error.code).toBe('Default');
    expect((await inject({ method: 'GET', url: '/api/auth/error?error=__proto__' })).json().data.error.code).toBe('Default');
  });

  it('signout (GET): describes how to sign out; HTML carries a form with the CSRF token', async () => {
    const json = await inject({ method: 'GET', url: '/api/auth/signout' });
    expect(json.json().data).toMatchObject({ page: 'signout', error: null });
    const html = await inject({ method: 'GET', url: '/api/auth/signout', headers: { accept: 'text/html,application/xhtml+xml' } });
    expect(html.body).toMatch(/<form method="post" action="\/api\/auth\/signout">/);
    expect(html.body).toMatch(/name="csrfToken" value="[A-Za-z0-9_-]{43}"/);
  });

  it('verify-request and webauthn-options say honestly that email and WebAuthn sign-in are not enabled (404)', async () => {
    for (const [method, action] of [['GET', 'verify-request'], ['GET', 'webauthn-options'], ['POST', 'webauthn-options'], ['POST', 'verify-request']] as const) {
      const res = await inject({ method, url: `/api/auth/${action}`, ...(method === 'POST' ? { payload: {} } : {}) });
      expect(res.statusCode, `${method} ${action}`).toBe(404);
      expect(res.json().error).toMatchObject({ code: 'NOT_FOUND', message: expect.stringContaining('not enabled'), details: { enabled: false } });
    }
  });

  it('answers 404 for an unknown action, 405 for the wrong method and 400 for unknown query parameters', async () => {
    expect((await inject({ method: 'GET', url: '/api/auth/nonsense' })).statusCode).toBe(404);
    expect((await inject({ method: 'POST', url: '/api/auth/nonsense', payload: {} })).statusCode).toBe(404);
    const getKey = await inject({ method: 'GET', url: '/api/auth/validate-key' });
    expect(getKey.statusCode).toBe(405);
    expect(getKey.headers.allow).toBe('POST');
    const postCsrf = await inject({ method: 'POST', url: '/api/auth/csrf', payload: {} });
    expect(postCsrf.statusCode).toBe(405);
    expect(postCsrf.headers.allow).toBe('GET');
    expect((await inject({ method: 'POST', url: '/api/auth/providers', payload: {} })).statusCode).toBe(405);
    expect((await inject({ method: 'GET', url: '/api/auth/providers?x=1' })).statusCode).toBe(400);
    expect((await inject({ method: 'GET', url: `/api/auth/${'a'.repeat(65)}` })).statusCode).toBe(400);
  });
});

describe('POST /api/auth/{nextauth}', () => {
  it('signout: revokes the session, clears the cookie and redirects (302) to a same-origin callbackUrl', async () => {
    const s = await signedIn();
    const res = await inject({
      method: 'POST', url: '/api/auth/signout', cookies: s.cookies,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ csrfToken: s.csrfToken, callbackUrl: '/bye' }).toString(),
    });
    expect(res.statusCode, res.body).toBe(302);
    expect(res.headers.location).toBe(`${PUBLIC_URL}/bye`);
    expect(cookieOf(res, 'session-token')).toMatchObject({ value: '', path: '/' });
    const row = await t.database.db.selectFrom('sessions').select('revoked_at').where('tenant', '=', s.tenant).where('user_id', '=', s.userId).executeTakeFirstOrThrow();
    expect(row.revoked_at).not.toBeNull();
    const activity = await t.database.db.selectFrom('user_activity').select('activity_type').where('tenant', '=', s.tenant).where('user_id', '=', s.userId).orderBy('created_at').execute();
    expect(activity.map((a) => a.activity_type)).toEqual(['login', 'logout']);
    expect((await inject({ method: 'GET', url: '/api/auth/session', cookies: s.cookies })).json()).toEqual({});
  });

  it('signout: needs the CSRF token (403) and leaves the session alone without it', async () => {
    const s = await signedIn();
    const res = await inject({ method: 'POST', url: '/api/auth/signout', cookies: s.cookies, payload: {} });
    expect(res.statusCode).toBe(403);
    expect((await inject({ method: 'POST', url: '/api/auth/signout', cookies: s.cookies })).statusCode).toBe(403);
    expect((await inject({ method: 'GET', url: '/api/auth/session', cookies: s.cookies })).json().user.id).toBe(s.userId);
  });

  it('signout without a session still clears the cookie (idempotent)', async () => {
    const csrf = await csrfPair();
    const res = await inject({ method: 'POST', url: '/api/auth/signout', cookies: { 'csrf-token': csrf.cookie }, headers: { accept: 'application/json' }, payload: { csrfToken: csrf.token } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ url: `${PUBLIC_URL}/` });
  });

  it('session (POST with CSRF): the same session object; 403 without the token', async () => {
    const s = await signedIn();
    const res = await inject({ method: 'POST', url: '/api/auth/session', cookies: s.cookies, payload: { csrfToken: s.csrfToken } });
    expect(res.statusCode, res.body).toBe(200);
    const get = await inject({ method: 'GET', url: '/api/auth/session', cookies: s.cookies });
    expect(res.json()).toEqual(get.json());
    expect((await inject({ method: 'POST', url: '/api/auth/session', cookies: s.cookies, payload: {} })).statusCode).toBe(403);
  });

  it('answers 400 to signin without a provider and to unknown body fields', async () => {
    const csrf = await csrfPair();
    expect((await inject({ method: 'POST', url: '/api/auth/signin', cookies: { 'csrf-token': csrf.cookie }, payload: { csrfToken: csrf.token } })).statusCode).toBe(400);
    const unknown = await inject({ method: 'POST', url: '/api/auth/signout', payload: { csrfToken: csrf.token, admin: true } });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().error.details).toEqual([{ path: 'body.admin', message: 'unknown field' }]);
  });
});

describe('provider routes without identity providers', () => {
  it('answer 404 for unknown providers, 405 for the wrong method on credentials, 400 for signin/credentials', async () => {
    const csrf = await csrfPair();
    const cookies = { 'csrf-token': csrf.cookie };
    expect((await inject({ method: 'POST', url: '/api/auth/signin/google', cookies, payload: { csrfToken: csrf.token, tenant: 'x' } })).statusCode).toBe(404);
    expect((await inject({ method: 'GET', url: '/api/auth/callback/google?code=x&state=y' })).statusCode).toBe(404);
    expect((await inject({ method: 'POST', url: '/api/auth/callback/google', payload: {} })).statusCode).toBe(404);
    const getCredentials = await inject({ method: 'GET', url: '/api/auth/callback/credentials' });
    expect(getCredentials.statusCode).toBe(405);
    expect(getCredentials.headers.allow).toBe('POST');
    expect((await inject({ method: 'POST', url: '/api/auth/signin/credentials', cookies, payload: { csrfToken: csrf.token } })).statusCode).toBe(400);
    expect((await inject({ method: 'GET', url: '/api/auth/callback/google?foo=bar' })).statusCode).toBe(400);
  });
});

describe('encapsulation', () => {
  it('form bodies are accepted under /api/auth only; /api/v1 stays JSON-only (415)', async () => {
    const { admin } = await makeTenant(t);
    const res = await admin.request({ method: 'POST', url: '/api/v1/api-keys', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'name=k' });
    expect(res.statusCode, res.body).toBe(415);
  });
});
