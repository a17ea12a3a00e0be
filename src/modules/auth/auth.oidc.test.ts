import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { InjectOptions } from 'light-my-request';
import { Provider } from 'oidc-provider';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/harness.ts';
import { makeTenant, makeUser, unique, type Res } from '../../../test/factories.ts';

/**
 * OpenID Connect sign-in end to end against a real provider (oidc-provider) on 127.0.0.1: the app
 * discovers it, the test drives its login and consent pages over HTTP like a browser, and the app
 * exchanges the code over the network.
 */
const PUBLIC_URL = 'https://psa.example.test';
const CLIENT_ID = 'psa-test';
const CLIENT_SECRET = 'a-test-client-secret-of-some-length';

interface Account { email?: string; email_verified?: boolean | string }
const accounts = new Map<string, Account>();

interface Idp { server: Server; issuer: string }

/** A provider on a random port; `idTokenClaims` puts email into the ID token instead of only UserInfo. */
async function startIdp(id: string, idTokenClaims: boolean): Promise<Idp> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const provider = new Provider(issuer, {
    clients: [{
      client_id: CLIENT_ID,
      client_secret: CLIENT_SECRET,
      redirect_uris: [`${PUBLIC_URL}/api/auth/callback/${id}`],
      grant_types: ['authorization_code'],
      response_types: ['code'],
    }],
    async findAccount(_ctx, sub) {
      const account = accounts.get(sub);
      if (!account) return undefined;
      return { accountId: sub, claims: async () => ({ sub, ...account }) };
    },
    claims: { openid: ['sub'], email: ['email', 'email_verified'] },
    conformIdTokenClaims: !idTokenClaims,
    cookies: { keys: ['oidc-test-cookie-key'] },
    ttl: { Interaction: 600, Session: 600, Grant: 600, AccessToken: 600, IdToken: 600, AuthorizationCode: 60 },
  });
  server.on('request', provider.callback());
  return { server, issuer };
}

let t: TestApp;
let idp: Idp;
let idp2: Idp;
beforeAll(async () => {
  idp = await startIdp('testidp', false);
  idp2 = await startIdp('testidp2', true);
  t = await buildTestApp({
    env: {
      PSA_PUBLIC_URL: PUBLIC_URL,
      PSA_SIGNIN_BURST: '100000',
      PSA_SIGNIN_PER_MINUTE: '100000',
      PSA_OIDC_PROVIDERS: 'testidp,testidp2,deadidp',
      PSA_OIDC_TESTIDP_ISSUER: idp.issuer,
      PSA_OIDC_TESTIDP_CLIENT_ID: CLIENT_ID,
      PSA_OIDC_TESTIDP_CLIENT_SECRET: CLIENT_SECRET,
      PSA_OIDC_TESTIDP_NAME: 'Test IdP',
      PSA_OIDC_TESTIDP2_ISSUER: idp2.issuer,
      PSA_OIDC_TESTIDP2_CLIENT_ID: CLIENT_ID,
      PSA_OIDC_TESTIDP2_CLIENT_SECRET: CLIENT_SECRET,
      // Nothing listens on port 1: discovery fails.
      PSA_OIDC_DEADIDP_ISSUER: 'http://127.0.0.1:1',
      PSA_OIDC_DEADIDP_CLIENT_ID: CLIENT_ID,
    },
  });
});
afterAll(async () => {
  await t?.close();
  for (const s of [idp?.server, idp2?.server]) if (s) await new Promise((r) => s.close(r));
});

/** The browser's view of the PSA app (cookies kept across requests). */
class Browser {
  readonly jar = new Map<string, string>();
  async request(opts: InjectOptions): Promise<Res> {
    const res = (await t.app.inject({ ...opts, cookies: Object.fromEntries(this.jar) })) as Res;
    for (const c of res.cookies) {
      if (c.value === '' || c.maxAge === 0) this.jar.delete(c.name);
      else this.jar.set(c.name, c.value);
    }
    return res;
  }
  async csrf(): Promise<string> {
    return (await this.request({ method: 'GET', url: '/api/auth/csrf' })).json().csrfToken;
  }
}

/** The browser's view of the identity provider, over real HTTP, redirects followed by hand. */
class IdpBrowser {
  private readonly jar = new Map<string, string>();
  async fetch(url: string, init: RequestInit = {}): Promise<Response> {
    const res = await fetch(url, { ...init, redirect: 'manual', headers: { ...(init.headers as Record<string, string>), cookie: [...this.jar].map(([k, v]) => `${k}=${v}`).join('; ') } });
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const i = pair!.indexOf('=');
      this.jar.set(pair!.slice(0, i), pair!.slice(i + 1));
    }
    return res;
  }

  /** Signs in as `accountId` and consents; returns the URL the provider sends the browser back to. */
  async authorize(authorizationUrl: string, accountId: string): Promise<URL> {
    let url = new URL(authorizationUrl);
    for (let hop = 0; hop < 12; hop++) {
      let res: Response;
      if (url.pathname.startsWith('/interaction/')) {
        const page = await (await this.fetch(url.href)).text();
        const prompt = /name="prompt" value="(\w+)"/.exec(page)?.[1];
        expect(['login', 'consent'], page.slice(0, 300)).toContain(prompt);
        const form: Record<string, string> = prompt === 'login' ? { prompt, login: accountId, password: 'any' } : { prompt: prompt! };
        res = await this.fetch(url.href, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form).toString() });
      } else {
        res = await this.fetch(url.href);
      }
      const location = res.headers.get('location');
      expect(location, `${res.status} ${url.href}`).toBeTruthy();
      url = new URL(location!, url);
      if (url.origin === PUBLIC_URL) return url;
    }
    throw new Error('the provider never redirected back');
  }
}

interface Fixture { tenant: string; slug: string; userId: string; email: string; accountId: string }

/** A tenant with a user, and a provider account (verified email by default) for that user's email. */
async function fixture(account: Partial<Account> = {}): Promise<Fixture> {
  const { tenant, slug } = await makeTenant(t);
  const u = await makeUser(t, tenant, {});
  const email = (await t.database.db.selectFrom('users').select('email').where('tenant', '=', tenant).where('user_id', '=', u.userId).executeTakeFirstOrThrow()).email;
  const accountId = unique('acct');
  accounts.set(accountId, { email: email.toUpperCase(), email_verified: true, ...account });
  return { tenant, slug, userId: u.userId, email, accountId };
}

async function start(b: Browser, body: Record<string, unknown>, provider = 'testidp', headers: Record<string, string> = {}): Promise<Res> {
  return b.request({ method: 'POST', url: `/api/auth/signin/${provider}`, headers, payload: { csrfToken: await b.csrf(), ...body } });
}

/** Starts at the app, signs in at the provider, and returns the callback URL (not yet visited). */
async function throughProvider(b: Browser, f: Fixture, opts: { provider?: string; callbackUrl?: string } = {}): Promise<URL> {
  const res = await start(b, { tenant: f.slug, ...(opts.callbackUrl ? { callbackUrl: opts.callbackUrl } : {}) }, opts.provider);
  expect(res.statusCode, res.body).toBe(302);
  return new IdpBrowser().authorize(res.headers.location as string, f.accountId);
}

const callback = (b: Browser, url: URL, headers: Record<string, string> = {}) => b.request({ method: 'GET', url: url.pathname + url.search, headers });
const sessionsOf = (f: Fixture) => t.database.db.selectFrom('sessions').selectAll().where('tenant', '=', f.tenant).where('user_id', '=', f.userId).execute();
const expectErrorRedirect = (res: Res, code: string) => {
  expect(res.statusCode, res.body).toBe(302);
  expect(res.headers.location).toBe(`${PUBLIC_URL}/api/auth/error?error=${code}`);
  expect(res.cookies.find((c) => c.name === 'session-token')).toBeUndefined();
};

describe('OpenID Connect sign-in', () => {
  it('lists the configured providers', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/auth/providers' });
    expect(res.json().testidp).toEqual({
      id: 'testidp', name: 'Test IdP', type: 'oidc',
      signinUrl: `${PUBLIC_URL}/api/auth/signin/testidp`, callbackUrl: `${PUBLIC_URL}/api/auth/callback/testidp`,
    });
    expect(Object.keys(res.json())).toEqual(['credentials', 'testidp', 'testidp2', 'deadidp']);
  });

  it('signs in end to end: PKCE S256, state and nonce, the session cookie and row, and the session object', async () => {
    const f = await fixture();
    const b = new Browser();
    const started = await start(b, { tenant: f.slug, callbackUrl: '/after-login' });
    expect(started.statusCode, started.body).toBe(302);
    const auth = new URL(started.headers.location as string);
    expect(auth.origin + auth.pathname).toBe(`${idp.issuer}/auth`);
    expect(Object.fromEntries(auth.searchParams)).toMatchObject({
      client_id: CLIENT_ID, response_type: 'code', scope: 'openid email profile', code_challenge_method: 'S256',
      redirect_uri: `${PUBLIC_URL}/api/auth/callback/testidp`,
    });
    const state = auth.searchParams.get('state')!;
    expect(auth.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(auth.searchParams.get('nonce')).toBeTruthy();
    const flow = await t.database.db.selectFrom('auth_flows').selectAll().where('state', '=', state).executeTakeFirstOrThrow();
    expect(flow).toMatchObject({ provider: 'testidp', tenant_slug: f.slug, callback_url: `${PUBLIC_URL}/after-login`, nonce: auth.searchParams.get('nonce') });
    expect(flow.code_verifier.startsWith('v1.')).toBe(true); // encrypted at rest
    expect(flow.expires_at.getTime()).toBeGreaterThan(Date.now() + 9 * 60_000);
    expect(started.cookies.find((c) => c.name === 'auth-state')).toMatchObject({ value: state, httpOnly: true, sameSite: 'Lax', path: '/api/auth/callback' });

    const back = await new IdpBrowser().authorize(auth.href, f.accountId);
    expect(back.searchParams.get('state')).toBe(state);
    const res = await callback(b, back);
    expect(res.statusCode, res.body).toBe(302);
    expect(res.headers.location).toBe(`${PUBLIC_URL}/after-login`);
    const cookie = res.cookies.find((c) => c.name === 'session-token')!;
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/' });

    const [session] = await sessionsOf(f);
    expect(session).toMatchObject({ login_method: 'testidp', revoked_at: null });
    expect(await t.database.db.selectFrom('auth_flows').select('state').where('state', '=', state).execute()).toEqual([]);
    const me = await b.request({ method: 'GET', url: '/api/auth/session' });
    expect(me.json()).toMatchObject({ session_id: session!.session_id, login_method: 'testidp', user: { id: f.userId, email: f.email, tenant: f.tenant, tenantSlug: f.slug, user_type: 'internal' } });
    const activity = await t.database.db.selectFrom('user_activity').select(['activity_type', 'details']).where('tenant', '=', f.tenant).where('user_id', '=', f.userId).execute();
    expect(activity).toEqual([{ activity_type: 'login', details: { method: 'testidp', session_id: session!.session_id } }]);
    const user = await t.database.db.selectFrom('users').select('last_login_at').where('tenant', '=', f.tenant).where('user_id', '=', f.userId).executeTakeFirstOrThrow();
    expect(user.last_login_at).not.toBeNull();
  });

  it('takes the email from the ID token when the provider puts it there (and answers a JSON client with {url})', async () => {
    const f = await fixture();
    const b = new Browser();
    const res = await callback(b, await throughProvider(b, f, { provider: 'testidp2' }), { accept: 'application/json' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ url: `${PUBLIC_URL}/` });
    expect((await b.request({ method: 'GET', url: '/api/auth/session' })).json()).toMatchObject({ login_method: 'testidp2', user: { id: f.userId } });
  });

  it('fails for a wrong state (302 to the error page; 400 for JSON clients) and creates no session', async () => {
    const f = await fixture();
    const b = new Browser();
    const back = await throughProvider(b, f);
    const tampered = new URL(back);
    tampered.searchParams.set('state', 'not-the-state');
    expectErrorRedirect(await callback(b, tampered), 'OAuthCallback');
    const json = await callback(b, tampered, { accept: 'application/json' });
    expect(json.statusCode, json.body).toBe(400);
    expect(json.json().error).toMatchObject({ code: 'BAD_REQUEST', details: { error: 'OAuthCallback' } });
    expect(await sessionsOf(f)).toEqual([]);
  });

  it('consumes the state once: replaying a successful callback fails', async () => {
    const f = await fixture();
    const b = new Browser();
    const back = await throughProvider(b, f);
    const stateCookie = b.jar.get('auth-state')!;
    expect((await callback(b, back)).statusCode).toBe(302);
    expect(b.jar.has('auth-state')).toBe(false);
    // Even with the state cookie put back, the flow is gone.
    b.jar.set('auth-state', stateCookie);
    expectErrorRedirect(await callback(b, back), 'OAuthCallback');
    expect(await sessionsOf(f)).toHaveLength(1);
  });

  it('refuses a callback opened in another browser (login CSRF): the state cookie must match', async () => {
    const f = await fixture();
    const attacker = new Browser();
    const back = await throughProvider(attacker, f);
    const victim = new Browser();
    expectErrorRedirect(await callback(victim, back), 'OAuthCallback');
    expect(await sessionsOf(f)).toEqual([]);
  });

  it('refuses an expired flow', async () => {
    const f = await fixture();
    const b = new Browser();
    const back = await throughProvider(b, f);
    await t.database.db.updateTable('auth_flows').set({ expires_at: new Date(Date.now() - 1000) }).where('state', '=', back.searchParams.get('state')!).execute();
    expectErrorRedirect(await callback(b, back), 'OAuthCallback');
  });

  it('denies an email with no account in the chosen tenant (no auto-provisioning), even if another tenant has it', async () => {
    const f = await fixture();
    const other = await makeTenant(t);
    const b = new Browser();
    const res = await start(b, { tenant: other.slug });
    const back = await new IdpBrowser().authorize(res.headers.location as string, f.accountId);
    expectErrorRedirect(await callback(b, back), 'AccessDenied');
    const stranger = unique('acct');
    accounts.set(stranger, { email: 'stranger@example.test', email_verified: true });
    const b2 = new Browser();
    const res2 = await start(b2, { tenant: f.slug });
    const back2 = await new IdpBrowser().authorize(res2.headers.location as string, stranger);
    const json = await callback(b2, back2, { accept: 'application/json' });
    expect(json.statusCode, json.body).toBe(403);
    expect(json.json().error.details).toEqual({ error: 'AccessDenied' });
    const users = await t.database.db.selectFrom('users').select('user_id').where('tenant', 'in', [f.tenant, other.tenant]).execute();
    expect(users).toHaveLength(3);
    expect(await sessionsOf(f)).toEqual([]);
  });

  it('denies an email the provider has not verified, or no email at all', async () => {
    for (const account of [{ email_verified: false }, { email_verified: 'false' }, { email: undefined }]) {
      const f = await fixture(account);
      const b = new Browser();
      expectErrorRedirect(await callback(b, await throughProvider(b, f)), 'AccessDenied');
      expect(await sessionsOf(f)).toEqual([]);
    }
  });

  it('denies an inactive user and records the failed login', async () => {
    const f = await fixture();
    await t.database.db.updateTable('users').set({ is_inactive: true }).where('tenant', '=', f.tenant).where('user_id', '=', f.userId).execute();
    const b = new Browser();
    expectErrorRedirect(await callback(b, await throughProvider(b, f)), 'AccessDenied');
    const activity = await t.database.db.selectFrom('user_activity').select(['activity_type', 'details']).where('tenant', '=', f.tenant).where('user_id', '=', f.userId).execute();
    expect(activity).toEqual([{ activity_type: 'login_failed', details: { method: 'testidp', reason: 'inactive' } }]);
  });

  it('maps a provider error (access_denied) to AccessDenied and consumes the flow', async () => {
    const f = await fixture();
    const b = new Browser();
    const res = await start(b, { tenant: f.slug });
    const state = new URL(res.headers.location as string).searchParams.get('state')!;
    expectErrorRedirect(await b.request({ method: 'GET', url: `/api/auth/callback/testidp?error=access_denied&state=${state}` }), 'AccessDenied');
    expect(await t.database.db.selectFrom('auth_flows').select('state').where('state', '=', state).execute()).toEqual([]);
  });

  it('start: JSON clients get {url}; CSRF (403), tenant (400), unknown provider (404) and an unreachable provider (502) are checked', async () => {
    const f = await fixture();
    const b = new Browser();
    const json = await start(b, { tenant: f.slug, json: true });
    expect(json.statusCode, json.body).toBe(200);
    expect(json.json().url.startsWith(`${idp.issuer}/auth?`)).toBe(true);
    const noCsrf = await b.request({ method: 'POST', url: '/api/auth/signin/testidp', payload: { tenant: f.slug } });
    expect(noCsrf.statusCode).toBe(403);
    const noTenant = await start(b, {});
    expect(noTenant.statusCode, noTenant.body).toBe(400);
    expect(noTenant.json().error.details).toEqual([{ path: 'body.tenant', message: expect.any(String) }]);
    expect((await start(b, { tenant: f.slug }, 'nope')).statusCode).toBe(404);
    const dead = await start(b, { tenant: f.slug }, 'deadidp');
    expect(dead.statusCode, dead.body).toBe(502);
    expect(dead.json().error.code).toBe('UPSTREAM_ERROR');
  });

  it('the callback answers 400 without a state, and POST is not allowed on a provider callback (405)', async () => {
    const b = new Browser();
    expectErrorRedirect(await b.request({ method: 'GET', url: '/api/auth/callback/testidp?code=abc' }), 'OAuthCallback');
    const json = await b.request({ method: 'GET', url: '/api/auth/callback/testidp?code=abc', headers: { accept: 'application/json' } });
    expect(json.statusCode).toBe(400);
    const post = await b.request({ method: 'POST', url: '/api/auth/callback/testidp', payload: {} });
    expect(post.statusCode).toBe(405);
    expect(post.headers.allow).toBe('GET');
  });
});
