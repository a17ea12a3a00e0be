import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTenant, makeUser } from '../../../test/factories.ts';
import { eventsOf, expectError } from '../../../test/client-factories.ts';
import type { FakeQuickBooks } from '../../../test/fakes/qbo-server.ts';
import { BROWSER, buildLedgerApp, connectLedger, startLedgerApp, stopLedgerApp } from '../../../test/ledger-kit.ts';
import { buildTestApp, type TestApp } from '../../../test/harness.ts';
import { signState } from './connection/oauth-state.ts';

let fake: FakeQuickBooks;
let t: TestApp;
beforeAll(async () => ({ fake, t } = await startLedgerApp()));
afterAll(() => stopLedgerApp(t, fake));

describe('ledger connection (OAuth against the local QuickBooks wire-format server)', () => {
  it('connects through the browser redirect: popup page for the public origin only, tokens sealed, status, event; a used state is refused', async () => {
    const { admin, tenant } = await makeTenant(t);
    const before = (await admin.get('/api/v1/quickbooks/connection/status')).json().data;
    expect(before).toEqual({ connected: false, provider: 'quickbooks_online', default_realm_id: null, connections: [] });
    const none = await admin.get('/api/v1/quickbooks/accounts');
    expectError(none, 409, 'CONFLICT');
    expect(none.json().error.details.reason).toBe('not_connected');

    const init = (await admin.post('/api/v1/quickbooks/oauth/initiate', {})).json().data;
    const url = new URL(init.authorization_url);
    expect(url.origin + url.pathname).toBe(`${fake.url}/connect/oauth2`);
    expect(Object.fromEntries(url.searchParams)).toMatchObject({ client_id: fake.clientId, response_type: 'code', scope: 'com.intuit.quickbooks.accounting', state: init.state, redirect_uri: 'http://127.0.0.1:3000/api/v1/quickbooks/oauth/callback' });
    const claims = JSON.parse(Buffer.from(init.state.split('.')[0], 'base64url').toString());
    expect(claims).toMatchObject({ tenantId: tenant, providerId: 'quickbooks_online', redirectUri: init.redirect_uri });
    expect(typeof claims.nonce).toBe('string');

    const { page, back } = await connectLedger(t, admin, fake);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    const csp = String(page.headers['content-security-policy']);
    expect(csp).toMatch(/default-src 'none'; script-src 'sha256-[A-Za-z0-9+/=]+'/);
    expect(page.body).toContain('"type":"ledger_oauth_callback"');
    expect(page.body).toContain('"success":true');
    expect(page.body).toContain(`"realm_id":"${fake.realmId}"`);
    expect(page.body).toContain('postMessage(m,o)');
    expect(page.body).toContain('var o="http://127.0.0.1:3000"');
    expect(page.body).not.toContain('"*"');

    const status = (await admin.get('/api/v1/quickbooks/connection/status')).json().data;
    expect(status).toMatchObject({ connected: true, default_realm_id: fake.realmId });
    expect(status.connections[0]).toMatchObject({ realm_id: fake.realmId, display_name: 'Sandbox Company_US_1', country: 'US', currency_code: 'USD', status: 'active', is_default: true, last_error: null });
    const row = await t.database.db.selectFrom('ledger_connections').selectAll().where('tenant', '=', tenant).executeTakeFirstOrThrow();
    expect(row.tokens_enc).toMatch(/^v1\./);
    const issued = fake.received.filter((r) => r.path === '/v3/company/' + fake.realmId + '/companyinfo/' + fake.realmId).at(-1)!;
    expect(row.tokens_enc).not.toContain(issued.auth!.replace('Bearer ', ''));
    expect((await eventsOf(t, tenant, row.connection_id)).map((e) => e.event_type)).toEqual(['ledger.connection.connected']);

    // The same redirect again: the state was spent (401), as a page for a browser and as JSON for a program.
    const again = await t.app.inject({ method: 'GET', url: `/api/v1/quickbooks/oauth/callback${back.search}`, headers: BROWSER });
    expect(again.statusCode).toBe(401);
    expect(again.body).toContain('"success":false');
    expect(again.body).toContain('"code":"state_used"');
    const json = await t.app.inject({ method: 'GET', url: `/api/v1/quickbooks/oauth/callback${back.search}` });
    expectError(json, 401, 'UNAUTHORIZED');
    expect(json.json().error.details.reason).toBe('state_used');

    // The test call reads the company.
    const test = (await admin.post('/api/v1/quickbooks/connection/test', { test_type: 'full' })).json().data;
    expect(test).toMatchObject({ success: true, message: 'Connection test successful', details: { company_name: 'Sandbox Company_US_1', item_count: 2, customer_count: 0 } });
  });

  it('refuses a forged, foreign or expired state, relays a denial, and rejects an unknown code', async () => {
    const a = await makeTenant(t);
    const b = await makeTenant(t);
    const init = (await a.admin.post('/api/v1/quickbooks/oauth/initiate', { redirect_uri: 'https://portal.example.test/qbo/back' })).json().data;
    expect(init.redirect_uri).toBe('https://portal.example.test/qbo/back');
    const forged = init.state.replace(/.$/, (c: string) => (c === 'A' ? 'B' : 'A'));
    expectError(await a.admin.post('/api/v1/quickbooks/oauth/callback', { code: 'x', state: forged, realmId: fake.realmId }), 400, 'VALIDATION_ERROR');
    // Another tenant's key cannot complete this tenant's flow.
    expectError(await b.admin.post('/api/v1/quickbooks/oauth/callback', { code: 'x', state: init.state, realmId: fake.realmId }), 400, 'VALIDATION_ERROR');
    // An unknown code: the ledger refuses it (422), and the state is spent.
    const bad = await a.admin.post('/api/v1/quickbooks/oauth/callback', { code: 'not-a-code', state: init.state, realmId: fake.realmId });
    expectError(bad, 422, 'UNPROCESSABLE');
    expect(bad.json().error.details.reason).toBe('code_rejected');
    // The user said no at the ledger.
    const denied = (await a.admin.post('/api/v1/quickbooks/oauth/initiate', {})).json().data;
    const res = await a.admin.post('/api/v1/quickbooks/oauth/callback', { state: denied.state, error: 'access_denied', error_description: 'User denied' });
    expectError(res, 422, 'UNPROCESSABLE');
    expect(res.json().error.details).toMatchObject({ reason: 'provider_error', error: 'access_denied' });
    // A state older than ten minutes (signed by this server, so only its age is wrong).
    const old = (await a.admin.post('/api/v1/quickbooks/oauth/initiate', {})).json().data;
    const claims = JSON.parse(Buffer.from(old.state.split('.')[0], 'base64url').toString());
    const stale = signState(t.app.secretBox, { ...claims, timestamp: Date.now() - 11 * 60_000 });
    const expired = await a.admin.post('/api/v1/quickbooks/oauth/callback', { code: 'x', state: stale, realmId: fake.realmId });
    expectError(expired, 422, 'UNPROCESSABLE');
    expect(expired.json().error.details.reason).toBe('state_expired');
    expectError(await a.admin.post('/api/v1/quickbooks/oauth/initiate', { redirect_uri: 'javascript:alert(1)' }), 400, 'VALIDATION_ERROR');
    // Without a code (and no error) the state is spent but nothing connects.
    expectError(await a.admin.post('/api/v1/quickbooks/oauth/callback', { state: old.state }), 400, 'VALIDATION_ERROR');
    expect((await a.admin.get('/api/v1/quickbooks/connection/status')).json().data.connected).toBe(false);
  });

  it('refreshes on request and on expiry, marks a dead refresh token expired, and disconnects with revocation', async () => {
    const { admin, tenant } = await makeTenant(t);
    await connectLedger(t, admin, fake);
    const refreshed = await admin.post('/api/v1/quickbooks/connection/refresh');
    expect(refreshed.statusCode, refreshed.body).toBe(200);
    expect(refreshed.json().data.last_refreshed_at).not.toBeNull();
    // The ledger forgets every access token: the next call refreshes once and succeeds.
    fake.expireAccessTokens();
    expect((await admin.get('/api/v1/quickbooks/accounts?refresh=true')).statusCode).toBe(200);
    // A dead refresh token: the connection is expired, announced, and reads say so.
    fake.expireAccessTokens();
    fake.expireRefreshTokens();
    const dead = await admin.get('/api/v1/quickbooks/items?refresh=true');
    expectError(dead, 502, 'UPSTREAM_ERROR');
    expect(dead.json().error.details.reason).toBe('auth_failed');
    const status = (await admin.get('/api/v1/quickbooks/connection/status')).json().data;
    expect(status.connections[0].status).toBe('expired');
    const row = await t.database.db.selectFrom('ledger_connections').select('connection_id').where('tenant', '=', tenant).executeTakeFirstOrThrow();
    expect((await eventsOf(t, tenant, row.connection_id)).map((e) => e.event_type)).toEqual(['ledger.connection.connected', 'ledger.connection.refreshed', 'ledger.connection.expired']);

    // Reconnect, then disconnect: revoked at the ledger, tokens gone, 409 afterwards.
    await connectLedger(t, admin, fake);
    const revokes = fake.received.filter((r) => r.path === '/v2/oauth2/tokens/revoke').length;
    const gone = await admin.delete('/api/v1/quickbooks/oauth/disconnect');
    expect(gone.statusCode, gone.body).toBe(200);
    expect(gone.json().data).toEqual({ realm_id: fake.realmId, disconnected: true, revoked: true, revoke_error: null });
    expect(fake.received.filter((r) => r.path === '/v2/oauth2/tokens/revoke').length).toBe(revokes + 1);
    const after = await t.database.db.selectFrom('ledger_connections').selectAll().where('tenant', '=', tenant).executeTakeFirstOrThrow();
    expect(after).toMatchObject({ status: 'disconnected', tokens_enc: null });
    expectError(await admin.get('/api/v1/quickbooks/accounts'), 409, 'CONFLICT');
    expect((await admin.get('/api/v1/quickbooks/connection/status')).json().data.connected).toBe(false);
  });

  it('the redirect page: a refusal at the ledger is 403, a flood of forged states is throttled (429), a program gets JSON', async () => {
    const { admin } = await makeTenant(t);
    const init = (await admin.post('/api/v1/quickbooks/oauth/initiate', {})).json().data;
    fake.consent.deny = true;
    const redirect = await fetch(init.authorization_url, { redirect: 'manual' });
    fake.consent.deny = false;
    const back = new URL(redirect.headers.get('location')!);
    expect(back.searchParams.get('error')).toBe('access_denied');
    const denied = await t.app.inject({ method: 'GET', url: `/api/v1/quickbooks/oauth/callback${back.search}`, headers: BROWSER });
    expect(denied.statusCode).toBe(403);
    expect(denied.body).toContain('"code":"provider_error"');

    const flood = await buildLedgerApp(fake, { env: { PSA_AUTH_FAILURE_BURST: '2', PSA_AUTH_FAILURE_PER_MINUTE: '1' } });
    try {
      const codes = [];
      for (let i = 0; i < 4; i++) codes.push((await flood.app.inject({ method: 'GET', url: '/api/v1/quickbooks/oauth/callback?state=forged.state&code=x&realmId=1', headers: BROWSER })).statusCode);
      expect(codes).toEqual([401, 401, 429, 429]);
      const limited = await flood.app.inject({ method: 'GET', url: '/api/v1/quickbooks/oauth/callback?state=forged.state&code=x&realmId=1' });
      expectError(limited, 429, 'RATE_LIMITED');
      expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    } finally {
      await flood.close();
    }
    // A program following the redirect gets the connection as JSON.
    const ok = (await admin.post('/api/v1/quickbooks/oauth/initiate', {})).json().data;
    const r2 = await fetch(ok.authorization_url, { redirect: 'manual' });
    const done = await t.app.inject({ method: 'GET', url: `/api/v1/quickbooks/oauth/callback${new URL(r2.headers.get('location')!).search}` });
    expect(done.statusCode, done.body).toBe(200);
    expect(done.json().data).toMatchObject({ connected: true, realm_id: fake.realmId });
  });

  it('holds several companies: the first is the default, realm_id picks another, disconnecting the default promotes the next', async () => {
    const { admin } = await makeTenant(t);
    await connectLedger(t, admin, fake, '6001');
    await connectLedger(t, admin, fake, '6002');
    const status = (await admin.get('/api/v1/quickbooks/connection/status')).json().data;
    expect(status.default_realm_id).toBe('6001');
    expect(status.connections.map((c: { realm_id: string; is_default: boolean }) => [c.realm_id, c.is_default])).toEqual([['6001', true], ['6002', false]]);
    fake.seed('6002', 'Account', { Name: 'Only in 6002', AccountType: 'Income', Classification: 'Revenue', Active: true });
    expect((await admin.get('/api/v1/quickbooks/accounts?search=only in')).json().data).toHaveLength(0);
    expect((await admin.get('/api/v1/quickbooks/accounts?search=only in&realm_id=6002')).json().data).toHaveLength(1);
    const missing = await admin.get('/api/v1/quickbooks/accounts?realm_id=7777');
    expectError(missing, 409, 'CONFLICT');
    expect(missing.json().error.message).toContain("'7777' is not connected");
    expect((await admin.delete('/api/v1/quickbooks/oauth/disconnect?realm_id=6001')).json().data.realm_id).toBe('6001');
    expect((await admin.get('/api/v1/quickbooks/connection/status')).json().data).toMatchObject({ connected: true, default_realm_id: '6002' });
  });

  it('ledger:admin guards disconnect; a Manager reads; Finance writes', async () => {
    const { admin, tenant } = await makeTenant(t);
    await connectLedger(t, admin, fake);
    const manager = (await makeUser(t, tenant, { role: 'Manager' })).api;
    const finance = (await makeUser(t, tenant, { role: 'Finance' })).api;
    expect((await manager.get('/api/v1/quickbooks/connection/status')).statusCode).toBe(200);
    expectError(await manager.post('/api/v1/quickbooks/oauth/initiate', {}), 403, 'FORBIDDEN');
    expect((await finance.post('/api/v1/quickbooks/oauth/initiate', {})).statusCode).toBe(200);
    const tech = (await makeUser(t, tenant, { role: 'Technician' })).api;
    expectError(await tech.get('/api/v1/quickbooks/connection/status'), 403, 'FORBIDDEN');
  });
});

describe('ledger without a configured app', () => {
  it('answers 409 not_configured', async () => {
    const bare = await buildTestApp();
    try {
      const { admin } = await makeTenant(bare);
      const res = await admin.post('/api/v1/quickbooks/oauth/initiate', {});
      expectError(res, 409, 'CONFLICT');
      expect(res.json().error.details.reason).toBe('not_configured');
    } finally {
      await bare.close();
    }
  });
});
