import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parseQuery, startFakeQuickBooks, type FakeQuickBooks } from '../../../../test/fakes/qbo-server.ts';
import { LedgerProviderError, type InvoiceInput, type LedgerProvider, type LedgerSession } from './provider.ts';
import { createQuickBooksProvider, fromCents, toCents, type QuickBooksOptions } from './quickbooks.ts';
import { loadConfig } from '../../../config.ts';

const REDIRECT = 'https://psa.example.com/api/ledger/quickbooks/callback';

let fake: FakeQuickBooks;
let provider: LedgerProvider;
let sleeps: number[];
let realmId: string;
let realmSeq = 0;

function makeProvider(over: Partial<QuickBooksOptions> = {}): LedgerProvider {
  return createQuickBooksProvider({
    clientId: fake.clientId,
    clientSecret: fake.clientSecret,
    apiBaseUrl: fake.apiBaseUrl,
    authorizeUrl: fake.authorizeUrl,
    tokenUrl: fake.tokenUrl,
    revokeUrl: fake.revokeUrl,
    timeoutMs: 3000,
    retryBaseMs: 5,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    ...over,
  });
}

/** A token source the way the service would build one: the stored pair, renewed through the adapter. */
function sessionFor(realm = realmId, p: LedgerProvider = provider) {
  const pair = fake.issueTokens(realm);
  const state = { access: pair.accessToken, refresh: pair.refreshToken, renewals: 0 };
  const session: LedgerSession = {
    realmId: realm,
    tokens: {
      current: async () => state.access,
      renew: async () => {
        state.renewals++;
        const next = await p.refresh(state.refresh);
        state.access = next.accessToken;
        state.refresh = next.refreshToken;
        return next.accessToken;
      },
    },
  };
  return { session, state };
}

async function failure(p: Promise<unknown>): Promise<LedgerProviderError> {
  const err = await p.then(() => undefined, (e: unknown) => e);
  expect(err).toBeInstanceOf(LedgerProviderError);
  return err as LedgerProviderError;
}

const apiCalls = () => fake.received.filter((r) => r.path.startsWith('/v3/'));

function invoiceInput(customerId: string, over: Partial<InvoiceInput> = {}): InvoiceInput {
  return {
    customerId,
    docNumber: 'PSA-1001',
    txnDate: '2025-03-01',
    dueDate: '2025-03-31',
    currency: 'USD',
    privateNote: 'psa invoice 5b0c…',
    lines: [
      { description: 'Managed services, March', amountCents: 123456789, quantity: 1, unitPriceCents: 123456789, itemId: '7', taxCodeId: 'NON' },
      { description: 'Onsite hours', amountCents: 5997, quantity: 3, unitPriceCents: 1999, itemId: '8', taxCodeId: null },
    ],
    ...over,
  };
}

beforeAll(async () => {
  fake = await startFakeQuickBooks();
});
afterAll(async () => {
  await fake.close();
});
beforeEach(() => {
  fake.clear();
  fake.consent.deny = false;
  sleeps = [];
  realmId = `91303500000${String(++realmSeq).padStart(5, '0')}`;
  fake.realm(realmId);
  provider = makeProvider();
});

describe('QuickBooks adapter: OAuth 2', () => {
  it('the configuration defaults to Intuit’s sandbox and OAuth endpoints, and to the local server’s for a local base URL', () => {
    const intuit = loadConfig({ PSA_QBO_CLIENT_ID: 'id', PSA_QBO_CLIENT_SECRET: 'secret' }).quickbooks!;
    expect(intuit).toMatchObject({
      apiBaseUrl: 'https://sandbox-quickbooks.api.intuit.com',
      authorizeUrl: 'https://appcenter.intuit.com/connect/oauth2',
      tokenUrl: 'https://oauth.platform.intuit.com/oauth2/v1/tokens/bearer',
      revokeUrl: 'https://developer.api.intuit.com/v2/oauth2/tokens/revoke',
      retryBaseMs: 500,
    });
    const local = loadConfig({ PSA_QBO_CLIENT_ID: 'id', PSA_QBO_CLIENT_SECRET: 'secret', PSA_QBO_BASE_URL: 'http://127.0.0.1:9999/' }).quickbooks!;
    expect(local).toMatchObject({ apiBaseUrl: 'http://127.0.0.1:9999', tokenUrl: 'http://127.0.0.1:9999/oauth2/v1/tokens/bearer' });
    expect(loadConfig({}).quickbooks).toBeUndefined();
    expect(() => loadConfig({ PSA_QBO_CLIENT_ID: 'id' })).toThrow(/both or neither/);
    expect(() => loadConfig({ PSA_QBO_CLIENT_ID: 'id', PSA_QBO_CLIENT_SECRET: 's', PSA_QBO_BASE_URL: 'http://intuit.example' })).toThrow(/PSA_QBO_BASE_URL/);
  });

  it('builds the authorize URL: client_id, response_type=code, the accounting scope, redirect_uri and state; no PKCE', () => {
    const url = new URL(provider.authorizationUrl({ state: 'st-123', redirectUri: REDIRECT }));
    expect(`${url.origin}${url.pathname}`).toBe(fake.authorizeUrl);
    expect(Object.fromEntries(url.searchParams)).toEqual({
      client_id: fake.clientId,
      redirect_uri: REDIRECT,
      response_type: 'code',
      scope: 'com.intuit.quickbooks.accounting',
      state: 'st-123',
    });
  });

  it('goes through consent, exchanges the code (callback with realmId) once, and the tokens work', async () => {
    fake.consent.realmId = realmId;
    const fixed = new Date('2025-01-01T00:00:00.000Z');
    const p = makeProvider({ now: () => fixed });
    const res = await fetch(p.authorizationUrl({ state: 'st-1', redirectUri: REDIRECT }), { redirect: 'manual' });
    expect(res.status).toBe(302);
    const callbackUrl = new URL(res.headers.get('location')!);
    expect(`${callbackUrl.origin}${callbackUrl.pathname}`).toBe(REDIRECT);
    expect(callbackUrl.searchParams.get('realmId')).toBe(realmId);
    expect(callbackUrl.searchParams.get('state')).toBe('st-1');

    const tokens = await p.exchangeCode({ callbackUrl, expectedState: 'st-1' });
    expect(tokens.accessToken).toMatch(/^at_/);
    expect(tokens.refreshToken).toMatch(/^rt_/);
    expect(tokens.accessTokenExpiresAt.toISOString()).toBe('2025-01-01T01:00:00.000Z');
    expect(tokens.refreshTokenExpiresAt?.toISOString()).toBe(new Date(fixed.getTime() + 8_726_400_000).toISOString());

    const tokenCall = fake.received.find((r) => r.path === '/oauth2/v1/tokens/bearer')!;
    // HTTP Basic with the RFC 6749 §2.3.1 form encoding of id and secret.
    const [id, secret] = Buffer.from(tokenCall.auth!.replace(/^Basic /, ''), 'base64').toString('utf8').split(':').map((x) => decodeURIComponent(x.replace(/\+/g, ' ')));
    expect([id, secret]).toEqual([fake.clientId, fake.clientSecret]);
    expect(tokenCall.contentType).toMatch(/^application\/x-www-form-urlencoded/);
    // redirect_uri is the registered one: the callback's query (code, state, realmId) is not part of it.
    expect(tokenCall.body).toMatchObject({ grant_type: 'authorization_code', code: callbackUrl.searchParams.get('code'), redirect_uri: REDIRECT });

    const company = await p.companyInfo({ realmId, tokens: { current: async () => tokens.accessToken, renew: async () => tokens.accessToken } });
    expect(company).toEqual({ realmId, name: `Sandbox Company ${realmId}`, country: 'US', currency: 'USD' });

    // A code is single-use.
    const again = await failure(p.exchangeCode({ callbackUrl, expectedState: 'st-1' }));
    expect(again.reason).toBe('auth_failed');
    expect(again.upstreamCode).toBe('invalid_grant');
    expect(again.upstreamStatus).toBe(400);
  });

  it('a code is bound to its redirect_uri', async () => {
    const code = fake.issueCode(realmId, 'https://other.example.com/cb');
    const err = await failure(provider.exchangeCode({ callbackUrl: new URL(`${REDIRECT}?code=${code}&state=s&realmId=${realmId}`), expectedState: 's' }));
    expect(err.reason).toBe('auth_failed');
    expect(err.upstreamCode).toBe('invalid_grant');
  });

  it('refuses a callback with the wrong state or an error, before any exchange', async () => {
    const code = fake.issueCode(realmId, REDIRECT);
    const wrong = await failure(provider.exchangeCode({ callbackUrl: new URL(`${REDIRECT}?code=${code}&state=evil&realmId=${realmId}`), expectedState: 'st' }));
    expect(wrong.reason).toBe('auth_failed');
    expect(wrong.message).toMatch(/state/);

    fake.consent.deny = true;
    const res = await fetch(provider.authorizationUrl({ state: 'st-2', redirectUri: REDIRECT }), { redirect: 'manual' });
    const denied = await failure(provider.exchangeCode({ callbackUrl: new URL(res.headers.get('location')!), expectedState: 'st-2' }));
    expect(denied.reason).toBe('auth_failed');
    expect(denied.upstreamCode).toBe('access_denied');
    expect(fake.received.filter((r) => r.path === '/oauth2/v1/tokens/bearer')).toEqual([]);
  });

  it('refreshes: a new access token that works, the rotated refresh token, the old one dead', async () => {
    const pair = fake.issueTokens(realmId);
    const fresh = await provider.refresh(pair.refreshToken);
    expect(fresh.accessToken).not.toBe(pair.accessToken);
    expect(fresh.refreshToken).not.toBe(pair.refreshToken);
    expect(fake.received.at(-1)!.body).toEqual({ grant_type: 'refresh_token', refresh_token: pair.refreshToken });
    const terms = await provider.listTerms({ realmId, tokens: { current: async () => fresh.accessToken, renew: async () => fresh.accessToken } });
    expect(terms.length).toBeGreaterThan(0);

    const dead = await failure(provider.refresh(pair.refreshToken));
    expect(dead.reason).toBe('auth_failed');
    expect(dead.upstreamCode).toBe('invalid_grant');
  });

  it('keeps the refresh token when the answer has none, and says null when x_refresh_token_expires_in is absent', async () => {
    fake.failNext(1, 200, { scope: 'oauth', body: { token_type: 'bearer', access_token: 'at_plain', expires_in: 3600 } });
    const t = await provider.refresh('rt_current');
    expect(t).toMatchObject({ accessToken: 'at_plain', refreshToken: 'rt_current', refreshTokenExpiresAt: null });
  });

  it('a wrong client secret is invalid_client → auth_failed; a failing token endpoint → unavailable; no endpoint → unreachable', async () => {
    const pair = fake.issueTokens(realmId);
    const wrongSecret = await failure(makeProvider({ clientSecret: 'not-the-secret' }).refresh(pair.refreshToken));
    expect(wrongSecret.reason).toBe('auth_failed');
    expect(wrongSecret.upstreamCode).toBe('invalid_client');
    expect(wrongSecret.upstreamStatus).toBe(401);

    fake.failNext(1, 503, { scope: 'oauth', body: '<html>down</html>', contentType: 'text/html' });
    expect((await failure(provider.refresh(pair.refreshToken))).reason).toBe('unavailable');

    fake.failNext(1, 200, { scope: 'oauth', delayMs: 800 });
    expect((await failure(makeProvider({ timeoutMs: 150 }).refresh(pair.refreshToken))).reason).toBe('timeout');

    const nowhere = makeProvider({ tokenUrl: 'http://127.0.0.1:1/oauth2/v1/tokens/bearer' });
    const unreachable = await failure(nowhere.refresh(pair.refreshToken));
    expect(unreachable.reason).toBe('unreachable');
    expect(unreachable.message).not.toContain(pair.refreshToken);
  });

  it('revokes with a JSON body and Basic auth; the grant is then dead; an unknown token is fine', async () => {
    const { session, state } = sessionFor();
    await provider.revoke(state.refresh);
    const call = fake.received.at(-1)!;
    expect(call.path).toBe('/v2/oauth2/tokens/revoke');
    expect(call.contentType).toMatch(/^application\/json/);
    expect(call.body).toEqual({ token: state.refresh });
    expect(call.auth).toMatch(/^Basic /);

    const err = await failure(provider.listTerms(session));
    expect(err.reason).toBe('auth_failed'); // the access token went with the grant, and the refresh is invalid_grant
    expect(err.upstreamCode).toBe('invalid_grant');

    await expect(provider.revoke('rt_never_issued')).resolves.toBeUndefined();
    // The fake also takes RFC 7009 form encoding, as a library without the JSON conversion sends it.
    const other = fake.issueTokens(realmId);
    const res = await fetch(fake.revokeUrl, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${fake.clientId}:${fake.clientSecret}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: other.refreshToken }),
    });
    expect(res.status).toBe(200);
    expect((await failure(provider.refresh(other.refreshToken))).upstreamCode).toBe('invalid_grant');
  });
});

describe('QuickBooks adapter: reads', () => {
  it('companyInfo: CompanyInfo plus the home currency from Preferences', async () => {
    const { session } = sessionFor();
    expect(await provider.companyInfo(session)).toEqual({ realmId, name: `Sandbox Company ${realmId}`, country: 'US', currency: 'USD' });
    expect(apiCalls().map((c) => c.path)).toEqual([`/v3/company/${realmId}/companyinfo/${realmId}`, `/v3/company/${realmId}/preferences`]);
    expect(apiCalls()[0]!.query).toEqual({ minorversion: '75' });
    expect(apiCalls()[0]!.auth).toMatch(/^Bearer at_/);
  });

  it('listAccounts asks for inactive rows too and maps every field', async () => {
    const { session } = sessionFor();
    const accounts = await provider.listAccounts(session);
    expect(apiCalls()[0]!.query).toEqual({ query: 'select * from Account where Active in (true, false) orderby Id startposition 1 maxresults 1000', minorversion: '75' });
    expect(accounts.find((a) => a.id === '3')).toEqual({
      id: '3', name: 'Consulting', fullName: 'Services:Consulting', classification: 'Revenue', type: 'Income', subType: 'ServiceFeeIncome', active: true, currency: 'USD',
    });
    expect(accounts.find((a) => a.name === 'Old Income')?.active).toBe(false);
    expect(accounts).toHaveLength(6);
  });

  it('lists items, tax codes, terms and payment methods', async () => {
    const { session } = sessionFor();
    expect(await provider.listItems(session)).toEqual([
      { id: '7', name: 'Services', type: 'Service', active: true, description: null, unitPriceCents: 0, incomeAccountId: '1', version: '0' },
      { id: '8', name: 'Hours', type: 'Service', active: true, description: 'Hourly work', unitPriceCents: 15000, incomeAccountId: '1', version: '0' },
    ]);
    expect(await provider.listTaxCodes(session)).toEqual(
      expect.arrayContaining([
        { id: 'TAX', name: 'TAX', description: 'TAX', active: true, taxable: true },
        { id: 'NON', name: 'NON', description: 'NON', active: true, taxable: false },
      ]),
    );
    expect((await provider.listTerms(session)).find((t) => t.name === 'Net 30')).toEqual({ id: '9', name: 'Net 30', type: 'STANDARD', dueDays: 30, active: true });
    expect((await provider.listPaymentMethods(session)).map((m) => [m.name, m.type])).toEqual([['Cash', 'NON_CREDIT_CARD'], ['Check', 'NON_CREDIT_CARD'], ['Visa', 'CREDIT_CARD']]);
  });

  it('pages with STARTPOSITION/MAXRESULTS until a page is short (2503 customers, pages of 1000)', async () => {
    fake.seedCustomers(realmId, 2503, 'Client');
    const { session } = sessionFor();
    const customers = await provider.listCustomers(session);
    expect(customers).toHaveLength(2503);
    expect(new Set(customers.map((c) => c.id)).size).toBe(2503);
    expect(apiCalls().map((c) => /startposition (\d+) maxresults (\d+)/.exec(c.query.query!)!.slice(1).join('/'))).toEqual(['1/1000', '1001/1000', '2001/1000']);
  });

  it('with a page size that divides the rows, reads one empty page ({"QueryResponse": {}}) and stops', async () => {
    fake.seedCustomers(realmId, 4);
    const { session } = sessionFor();
    const customers = await makeProvider({ pageSize: 2 }).listCustomers(session);
    expect(customers.map((c) => c.displayName)).toEqual(['Customer 1', 'Customer 2', 'Customer 3', 'Customer 4']);
    expect(apiCalls()).toHaveLength(3);
  });

  it('listInvoices filters on TxnDate; listPayments maps allocations', async () => {
    const c = fake.seed(realmId, 'Customer', { DisplayName: 'Acme' });
    const line = (amount: number) => [{ DetailType: 'SalesItemLineDetail', Amount: amount, SalesItemLineDetail: { ItemRef: { value: '7' }, Qty: 1, UnitPrice: amount } }];
    fake.seed(realmId, 'Invoice', { CustomerRef: { value: c.Id }, TxnDate: '2025-01-15', Line: line(10) });
    const feb = fake.seed(realmId, 'Invoice', { CustomerRef: { value: c.Id }, TxnDate: '2025-02-10', Line: line(250.5) });
    fake.seed(realmId, 'Invoice', { CustomerRef: { value: c.Id }, TxnDate: '2025-03-01', Line: line(30) });
    fake.seed(realmId, 'Payment', {
      CustomerRef: { value: c.Id }, TxnDate: '2025-02-20', TotalAmt: 300, PaymentRefNum: 'CHK-1001', PaymentMethodRef: { value: '13' },
      Line: [{ Amount: 250.5, LinkedTxn: [{ TxnId: feb.Id, TxnType: 'Invoice' }] }],
    });
    const { session } = sessionFor();
    const invoices = await provider.listInvoices(session, { from: '2025-02-01', to: '2025-02-28' });
    expect(apiCalls()[0]!.query.query).toBe("select * from Invoice where TxnDate >= '2025-02-01' and TxnDate <= '2025-02-28' orderby Id startposition 1 maxresults 1000");
    expect(invoices).toHaveLength(1);
    expect(invoices[0]).toMatchObject({ id: feb.Id, customerId: c.Id, txnDate: '2025-02-10', totalCents: 25050, balanceCents: 0, voided: false, currency: 'USD' });
    expect(await provider.listInvoices(session, {})).toHaveLength(3);

    const payments = await provider.listPayments(session, {});
    expect(payments).toEqual([
      expect.objectContaining({ customerId: c.Id, totalCents: 30000, allocations: [{ invoiceId: feb.Id, amountCents: 25050 }], reference: 'CHK-1001', paymentMethodId: '13', txnDate: '2025-02-20' }),
    ]);
    expect(await provider.getPayment(session, payments[0]!.id)).toEqual(payments[0]);
    await expect(provider.listInvoices(session, { from: "2025-01-01' or 1=1" })).rejects.toMatchObject({ reason: 'rejected' });
  });

  it('a missing record is not_found (code 610)', async () => {
    const { session } = sessionFor();
    const err = await failure(provider.getInvoice(session, '99999'));
    expect(err.reason).toBe('not_found');
    expect(err.upstreamCode).toBe('610');
    expect((await failure(provider.getCustomer(session, '../companyinfo'))).reason).toBe('not_found');
  });
});

describe('QuickBooks adapter: writes', () => {
  it('createCustomer is idempotent by requestid: the same id twice creates one customer', async () => {
    const { session } = sessionFor();
    const input = { displayName: 'Acme Corp', companyName: 'Acme Corporation', email: 'ap@acme.test', phone: '+1 555 0100', currency: 'USD' };
    const first = await provider.createCustomer(session, input, 'req-cust-1');
    const second = await provider.createCustomer(session, input, 'req-cust-1');
    expect(second).toEqual(first);
    expect(first).toMatchObject({ displayName: 'Acme Corp', companyName: 'Acme Corporation', email: 'ap@acme.test', phone: '+1 555 0100', active: true, currency: 'USD', version: '0' });
    expect(first.updatedAt).toMatch(/Z$/);
    expect(fake.list(realmId, 'Customer').filter((c) => c.DisplayName === 'Acme Corp')).toHaveLength(1);
    const posts = apiCalls().filter((c) => c.method === 'POST');
    expect(posts.map((c) => c.query)).toEqual([
      { requestid: 'req-cust-1', minorversion: '75' },
      { requestid: 'req-cust-1', minorversion: '75' },
    ]);
    expect(posts[0]!.body).toEqual({
      DisplayName: 'Acme Corp', CompanyName: 'Acme Corporation', PrimaryEmailAddr: { Address: 'ap@acme.test' }, PrimaryPhone: { FreeFormNumber: '+1 555 0100' }, CurrencyRef: { value: 'USD' },
    });

    // Another request with the same name is a duplicate name: conflict.
    const dup = await failure(provider.createCustomer(session, { displayName: 'acme corp' }, 'req-cust-2'));
    expect(dup.reason).toBe('conflict');
    expect(dup.upstreamCode).toBe('6240');
  });

  it('a create whose answer is lost is retried with the same requestid and writes once', async () => {
    const { session } = sessionFor();
    fake.failAfterCreate(1);
    const c = await provider.createCustomer(session, { displayName: 'Lost Answer LLC' }, 'req-lost');
    expect(fake.list(realmId, 'Customer').filter((x) => x.DisplayName === 'Lost Answer LLC')).toHaveLength(1);
    expect(c.displayName).toBe('Lost Answer LLC');
    expect(apiCalls().filter((x) => x.method === 'POST').map((x) => x.query.requestid)).toEqual(['req-lost', 'req-lost']);
    expect(sleeps).toHaveLength(1);
  });

  it('updateCustomer is a sparse update with Id and SyncToken; a stale version is a conflict', async () => {
    const { session } = sessionFor();
    const c = await provider.createCustomer(session, { displayName: 'Beta', email: 'old@beta.test', phone: '555' }, 'req-b1');
    const updated = await provider.updateCustomer(session, c.id, c.version, { email: null, companyName: 'Beta Inc' }, 'req-b2');
    expect(apiCalls().at(-1)!.body).toEqual({ Id: c.id, SyncToken: '0', sparse: true, PrimaryEmailAddr: { Address: '' }, CompanyName: 'Beta Inc' });
    expect(updated).toMatchObject({ id: c.id, version: '1', email: null, phone: '555', companyName: 'Beta Inc', displayName: 'Beta' });

    const staleErr = await failure(provider.updateCustomer(session, c.id, '0', { phone: '556' }, 'req-b3'));
    expect(staleErr.reason).toBe('conflict');
    expect(staleErr.upstreamCode).toBe('5010');
    expect(staleErr.upstreamStatus).toBe(400);
    expect((await provider.getCustomer(session, c.id)).phone).toBe('555');
  });

  it('createItem posts a Service item with its income account', async () => {
    const { session } = sessionFor();
    const item = await provider.createItem(session, { name: 'Managed Services', incomeAccountId: '3', description: 'Monthly plan' }, 'req-item');
    expect(apiCalls().at(-1)!.body).toEqual({ Name: 'Managed Services', Type: 'Service', IncomeAccountRef: { value: '3' }, Description: 'Monthly plan' });
    expect(item).toEqual({ id: item.id, name: 'Managed Services', type: 'Service', active: true, description: 'Monthly plan', unitPriceCents: 0, incomeAccountId: '3', version: '0' });
    expect((await failure(provider.createItem(session, { name: 'X', incomeAccountId: '999' }, 'req-item-2'))).upstreamCode).toBe('2500');
  });

  it('createInvoice sends decimal amounts built from cents and maps the answer back exactly', async () => {
    const { session } = sessionFor();
    const c = await provider.createCustomer(session, { displayName: 'Gamma' }, 'req-g');
    const inv = await provider.createInvoice(session, invoiceInput(c.id), 'req-inv-1');
    const post = apiCalls().at(-1)!;
    expect(post.path).toBe(`/v3/company/${realmId}/invoice`);
    expect(post.body).toEqual({
      CustomerRef: { value: c.id }, DocNumber: 'PSA-1001', TxnDate: '2025-03-01', DueDate: '2025-03-31', CurrencyRef: { value: 'USD' }, PrivateNote: 'psa invoice 5b0c…',
      Line: [
        { DetailType: 'SalesItemLineDetail', Amount: 1234567.89, Description: 'Managed services, March', SalesItemLineDetail: { ItemRef: { value: '7' }, Qty: 1, UnitPrice: 1234567.89, TaxCodeRef: { value: 'NON' } } },
        { DetailType: 'SalesItemLineDetail', Amount: 59.97, Description: 'Onsite hours', SalesItemLineDetail: { ItemRef: { value: '8' }, Qty: 3, UnitPrice: 19.99 } },
      ],
    });
    expect(inv).toEqual({
      id: inv.id, docNumber: 'PSA-1001', customerId: c.id, txnDate: '2025-03-01', dueDate: '2025-03-31', currency: 'USD',
      totalCents: 123462786, balanceCents: 123462786, version: '0', voided: false, updatedAt: inv.updatedAt,
      lines: [
        { description: 'Managed services, March', amountCents: 123456789, quantity: 1, unitPriceCents: 123456789, itemId: '7', taxCodeId: 'NON' },
        { description: 'Onsite hours', amountCents: 5997, quantity: 3, unitPriceCents: 1999, itemId: '8', taxCodeId: null },
      ],
    });
    // The stored record carries QuickBooks' subtotal line, which the neutral view leaves out.
    expect((fake.get(realmId, 'Invoice', inv.id)!.Line as { DetailType: string }[]).map((l) => l.DetailType)).toEqual(['SalesItemLineDetail', 'SalesItemLineDetail', 'SubTotalLineDetail']);
    expect(await provider.createInvoice(session, invoiceInput(c.id), 'req-inv-1')).toEqual(inv);
    expect(fake.list(realmId, 'Invoice')).toHaveLength(1);
  });

  it('updateInvoice is a sparse update with Id and SyncToken (fields set in QuickBooks survive); after an edit there the old version is a conflict', async () => {
    const { session } = sessionFor();
    const c = await provider.createCustomer(session, { displayName: 'Delta' }, 'req-d');
    const inv = await provider.createInvoice(session, invoiceInput(c.id), 'req-d-inv');

    // Someone changes the invoice in QuickBooks: new total, new SyncToken.
    fake.edit(realmId, 'Invoice', inv.id, { Line: [{ DetailType: 'SalesItemLineDetail', Amount: 10, SalesItemLineDetail: { ItemRef: { value: '7' }, Qty: 1, UnitPrice: 10 } }], SalesTermRef: { value: '9' } });
    const conflict = await failure(provider.updateInvoice(session, inv.id, inv.version, invoiceInput(c.id), 'req-d-upd-1'));
    expect(conflict.reason).toBe('conflict');
    expect(conflict.upstreamCode).toBe('5010');
    expect(conflict.message).toMatch(/changed since it was read/);

    const current = await provider.getInvoice(session, inv.id);
    expect(current).toMatchObject({ version: '1', totalCents: 1000 });
    const replaced = await provider.updateInvoice(
      session, inv.id, current.version,
      invoiceInput(c.id, { lines: [{ description: 'Corrected', amountCents: 1999, quantity: 1, unitPriceCents: 1999, itemId: '8', taxCodeId: 'TAX' }] }),
      'req-d-upd-2',
    );
    expect(apiCalls().at(-1)!.body).toMatchObject({ Id: inv.id, SyncToken: '1', sparse: true, CustomerRef: { value: c.id } });
    expect(replaced).toMatchObject({ version: '2', totalCents: 1999, lines: [{ description: 'Corrected', amountCents: 1999, taxCodeId: 'TAX' }] });
    expect(fake.get(realmId, 'Invoice', inv.id)!.SalesTermRef).toEqual({ value: '9' });
  });

  it('voidInvoice voids with operation=void and the request id; a stale version is a conflict', async () => {
    const { session } = sessionFor();
    const c = await provider.createCustomer(session, { displayName: 'Void Co' }, 'req-v');
    const inv = await provider.createInvoice(session, invoiceInput(c.id), 'req-v-inv');
    const voided = await provider.voidInvoice(session, inv.id, inv.version, 'req-v-void');
    expect(apiCalls().at(-1)).toMatchObject({ method: 'POST', query: { operation: 'void', requestid: 'req-v-void' }, body: { Id: inv.id, SyncToken: inv.version } });
    expect(voided).toMatchObject({ id: inv.id, voided: true, totalCents: 0 });
    expect((await failure(provider.voidInvoice(session, inv.id, inv.version, 'req-v-void-2'))).reason).toBe('conflict');
  });

  it('a voided invoice reads as voided with a zero total', async () => {
    const { session } = sessionFor();
    const c = await provider.createCustomer(session, { displayName: 'Epsilon' }, 'req-e');
    const inv = await provider.createInvoice(session, invoiceInput(c.id), 'req-e-inv');
    fake.voidInvoice(realmId, inv.id);
    expect(await provider.getInvoice(session, inv.id)).toMatchObject({ voided: true, totalCents: 0, balanceCents: 0, version: '1' });
  });
});

describe('QuickBooks adapter: change data capture', () => {
  it('reports changed customers, invoices and payments, and a deleted payment', async () => {
    const since = new Date(Date.now() - 1000);
    const { session } = sessionFor();
    const c = await provider.createCustomer(session, { displayName: 'Zeta' }, 'req-z');
    const inv = await provider.createInvoice(session, invoiceInput(c.id), 'req-z-inv');
    // Payments recorded in QuickBooks: one stays, one is deleted again.
    const kept = fake.seed(realmId, 'Payment', { CustomerRef: { value: c.id }, TotalAmt: 19.99, Line: [{ Amount: 19.99, LinkedTxn: [{ TxnId: inv.id, TxnType: 'Invoice' }] }] });
    const gone = fake.seed(realmId, 'Payment', { CustomerRef: { value: c.id }, TotalAmt: 5, Line: [] });
    fake.remove(realmId, 'Payment', gone.Id);
    fake.clear();

    const changes = await provider.changesSince(session, since);
    const call = apiCalls()[0]!;
    expect(call.path).toBe(`/v3/company/${realmId}/cdc`);
    expect(call.query.entities).toBe('Customer,Invoice,Payment');
    expect(call.query.changedSince).toBe(since.toISOString().replace(/\.\d{3}Z$/, 'Z'));
    expect(changes.customers.map((x) => x.id)).toEqual([c.id]);
    expect(changes.invoices.map((x) => [x.id, x.balanceCents])).toEqual([[inv.id, 123462786 - 1999]]);
    expect(changes.payments).toEqual([expect.objectContaining({ id: kept.Id, totalCents: 1999, allocations: [{ invoiceId: inv.id, amountCents: 1999 }] })]);
    expect(changes.deleted).toEqual([{ entity: 'payment', id: gone.Id }]);
    expect(changes.truncated).toBeUndefined();
  });

  it('says truncated when the answer holds the 1000 objects QuickBooks returns at most', async () => {
    const since = new Date(Date.now() - 1000);
    fake.seedCustomers(realmId, 1005);
    const { session } = sessionFor();
    const changes = await provider.changesSince(session, since);
    expect(changes.customers).toHaveLength(1000);
    expect(changes.truncated).toBe(true);
  });
});

describe('QuickBooks adapter: recovery and failures', () => {
  it('401 → renews the token once and repeats the call', async () => {
    const { session, state } = sessionFor();
    const before = state.access;
    fake.expireAccessTokens();
    expect((await provider.listTerms(session)).length).toBe(3);
    expect(state.renewals).toBe(1);
    expect(apiCalls().map((c) => c.auth)).toEqual([`Bearer ${before}`, `Bearer ${state.access}`]);
  });

  it('the documented upper-case AuthenticationFault envelope triggers the renewal too', async () => {
    const { session, state } = sessionFor();
    fake.failNext(1, 401, { body: { Fault: { Error: [{ Message: 'message=AuthenticationFailed; errorCode=003200; statusCode=401', Detail: 'Token expired', code: '3200' }], type: 'AuthenticationFault' } } });
    await provider.listTerms(session);
    expect(state.renewals).toBe(1);
  });

  it('still 401 after the renewal → auth_failed, renewed only once', async () => {
    fake.issueTokens(realmId);
    let renewals = 0;
    const session: LedgerSession = { realmId, tokens: { current: async () => 'at_unknown', renew: async () => (renewals++, 'at_still_unknown') } };
    const err = await failure(provider.listTerms(session));
    expect(err.reason).toBe('auth_failed');
    expect(err.upstreamStatus).toBe(401);
    expect(err.upstreamCode).toBe('3200');
    expect(renewals).toBe(1);
    expect(apiCalls()).toHaveLength(2);
    expect(err.message).not.toContain('at_still_unknown');
  });

  it('a token source that fails is auth_failed (a LedgerProviderError passes through)', async () => {
    const session: LedgerSession = { realmId, tokens: { current: async () => { throw new Error('db down: secret stuff'); }, renew: async () => 'x' } };
    const err = await failure(provider.listTerms(session));
    expect(err.reason).toBe('auth_failed');
    expect(err.message).not.toContain('secret');
  });

  it('a 429 storm: three throttled answers, then success; backoff grows; usage counts them', async () => {
    const { session } = sessionFor();
    fake.throttleNext(3);
    expect(await provider.listTerms(session)).toHaveLength(3);
    expect(sleeps).toHaveLength(3);
    // base 5 ms, doubled per retry, jitter within [step/2, step]
    expect(sleeps[0]).toBeGreaterThanOrEqual(2.5);
    expect(sleeps[0]).toBeLessThanOrEqual(5);
    expect(sleeps[1]).toBeGreaterThanOrEqual(5);
    expect(sleeps[1]).toBeLessThanOrEqual(10);
    expect(sleeps[2]).toBeGreaterThanOrEqual(10);
    expect(sleeps[2]).toBeLessThanOrEqual(20);
    const usage = provider.usage(realmId);
    expect(usage).toMatchObject({ limitPerMinute: 500, callsLastMinute: 4, throttledLastHour: 3 });
    expect(usage.lastThrottledAt).toMatch(/Z$/);
    expect(provider.usage('no-such-realm')).toEqual({ limitPerMinute: 500, callsLastMinute: 0, throttledLastHour: 0, lastThrottledAt: null });
  });

  it('more 429s than maxRetries → throttled with the ThrottleExceeded code', async () => {
    const { session } = sessionFor();
    fake.throttleNext(10);
    const err = await failure(provider.listTerms(session));
    expect(err.reason).toBe('throttled');
    expect(err.upstreamStatus).toBe(429);
    expect(err.upstreamCode).toBe('003001');
    expect(apiCalls()).toHaveLength(5); // 1 + maxRetries (4)
  });

  it('honours Retry-After, and does not sit out a very long one', async () => {
    const { session } = sessionFor();
    fake.throttleNext(1, 2);
    await provider.listTerms(session);
    expect(sleeps).toHaveLength(1);
    expect(sleeps[0]).toBeGreaterThanOrEqual(2000);
    expect(sleeps[0]).toBeLessThan(2005);

    sleeps.length = 0;
    fake.throttleNext(1, 3600);
    expect((await failure(provider.listTerms(session))).reason).toBe('throttled');
    expect(sleeps).toEqual([]);
  });

  it('really waits between retries with the default sleep', async () => {
    const { session } = sessionFor();
    const p = makeProvider({ sleep: undefined, retryBaseMs: 5 });
    fake.throttleNext(2);
    const started = Date.now();
    expect(await p.listTerms(session)).toHaveLength(3);
    expect(Date.now() - started).toBeGreaterThanOrEqual(5); // ≥ 2.5 + 5
  });

  it('5xx: retried, then unavailable', async () => {
    const { session } = sessionFor();
    fake.failNext(2, 500);
    expect(await provider.listTerms(session)).toHaveLength(3);
    fake.failNext(10, 503);
    const err = await failure(provider.listTerms(session));
    expect(err.reason).toBe('unavailable');
    expect(err.upstreamStatus).toBe(503);
  });

  it('a validation fault is rejected with its code and a trimmed Detail', async () => {
    const { session } = sessionFor();
    fake.failNext(1, 400, {
      body: { Fault: { Error: [{ Message: 'A business validation error has occurred while processing your request', Detail: `Business Validation Error: ${'x'.repeat(500)}\n\u0007`, code: '6000', element: '' }], type: 'ValidationFault' }, time: '2025-03-01T10:00:00.000-07:00' },
    });
    const err = await failure(provider.listTerms(session));
    expect(err.reason).toBe('rejected');
    expect(err.upstreamCode).toBe('6000');
    expect(err.upstreamStatus).toBe(400);
    expect(err.message).toMatch(/HTTP 400, code 6000\): Business Validation Error: x+\.\.\.$/);
    expect(err.message.length).toBeLessThan(400);
    // eslint-disable-next-line no-control-regex
    expect(err.message).not.toMatch(/[\u0000-\u001f]/);
  });

  it('malformed JSON, XML and an oversized body are invalid_response', async () => {
    const { session } = sessionFor();
    fake.failNext(1, 200, { body: '{"QueryResponse": {"Term": [', contentType: 'application/json' });
    expect((await failure(provider.listTerms(session))).reason).toBe('invalid_response');
    fake.failNext(1, 200, { body: '<IntuitResponse/>', contentType: 'application/xml' });
    const xml = await failure(provider.listTerms(session));
    expect(xml.reason).toBe('invalid_response');
    expect(xml.message).toMatch(/XML/);
    fake.failNext(1, 200, { body: { QueryResponse: { Term: 'not a list' } } });
    expect((await failure(provider.listTerms(session))).reason).toBe('invalid_response');
    fake.failNext(1, 200, { body: { Invoice: { Id: '1', TotalAmt: 'lots' } } });
    expect((await failure(provider.getInvoice(session, '1'))).reason).toBe('invalid_response');

    fake.seedCustomers(realmId, 50);
    const small = makeProvider({ maxBodyBytes: 2048 });
    const big = await failure(small.listCustomers(session));
    expect(big.reason).toBe('invalid_response');
    expect(big.message).toMatch(/larger than 2048 bytes/);
  });

  it('timeout and unreachable', async () => {
    const { session } = sessionFor();
    fake.failNext(1, 200, { delayMs: 800 });
    const slow = await failure(makeProvider({ timeoutMs: 150 }).listTerms(session));
    expect(slow.reason).toBe('timeout');
    const nowhere = await failure(makeProvider({ apiBaseUrl: 'http://127.0.0.1:1' }).listTerms(session));
    expect(nowhere.reason).toBe('unreachable');
  });

  it('a token for another company is refused (403) → auth_failed without a renewal', async () => {
    const { session, state } = sessionFor();
    const err = await failure(provider.listTerms({ ...session, realmId: '9130359999999999' }));
    expect(err.reason).toBe('auth_failed');
    expect(err.upstreamStatus).toBe(403);
    expect(state.renewals).toBe(0);
  });

  it('messages never contain a token or the client secret', async () => {
    const { session, state } = sessionFor();
    const errors: LedgerProviderError[] = [];
    fake.failNext(1, 400, { body: { Fault: { Error: [{ Message: 'Bad', Detail: `token ${state.access} is not valid here; Bearer ${state.access}`, code: '1' }], type: 'ValidationFault' } } });
    errors.push(await failure(provider.listTerms(session)));
    fake.failNext(1, 400, { scope: 'oauth', body: { error: 'invalid_grant', error_description: `refresh token ${state.refresh} is dead; client ${fake.clientSecret}` } });
    errors.push(await failure(provider.refresh(state.refresh)));
    fake.failNext(1, 400, { body: { Fault: { Error: [{ Message: 'Stale', Detail: `Stale for eyJhbGciOiJkaXIiLCJlbmMiOiJBMTI4Q0JDLUhTMjU2In0..abc.def.ghi ${state.access}`, code: '5010' }], type: 'ValidationFault' } } });
    errors.push(await failure(provider.updateCustomer(session, '1', '0', { phone: '1' }, 'req-x')));
    expect(errors.map((e) => e.reason)).toEqual(['rejected', 'auth_failed', 'conflict']);
    for (const e of errors) {
      expect(e.message).not.toContain(state.access);
      expect(e.message).not.toContain(state.refresh);
      expect(e.message).not.toContain(fake.clientSecret);
      expect(e.message).not.toContain('eyJhbGci');
      expect(e.message).toContain('[redacted]');
    }
  });
});

describe('QuickBooks money: cents exactly', () => {
  it('reads amounts from their decimal text, not by float multiplication', () => {
    expect(toCents(19.99)).toBe(1999);
    expect(toCents(1234567.89)).toBe(123456789);
    expect(toCents(1234.5)).toBe(123450);
    expect(toCents(0.1 + 0.2)).toBe(30); // 0.30000000000000004
    expect(toCents(0.07)).toBe(7); // 0.07 * 100 = 7.000000000000001
    expect(toCents(1.005)).toBe(101); // Math.round(1.005 * 100) = 100: the float is 1.00499999999999989…
    expect(toCents(9999999999999.99)).toBe(999999999999999);
    expect(toCents(-12.345)).toBe(-1235);
    expect(toCents(-0.001)).toBe(0);
    expect(toCents(0.005)).toBe(1);
    expect(toCents(5e-3)).toBe(1);
    expect(toCents(1e-7)).toBe(0);
    expect(toCents(1e21)).toBeNull();
    expect(toCents('12.34')).toBe(1234);
    expect(toCents(12)).toBe(1200);
    for (const bad of [Number.NaN, Infinity, '', 'abc', '1.2.3', null, undefined, {}, '.']) expect(toCents(bad)).toBeNull();
  });

  it('writes cents back as two-decimal numbers, and the round trip is exact', () => {
    expect(fromCents(1999)).toBe(19.99);
    expect(fromCents(123456789)).toBe(1234567.89);
    expect(fromCents(-5)).toBe(-0.05);
    expect(fromCents(0)).toBe(0);
    expect(JSON.stringify({ Amount: fromCents(30) })).toBe('{"Amount":0.3}');
    expect(() => fromCents(1.5)).toThrow(RangeError);
    for (let c = -20_000; c <= 200_000; c++) if (toCents(fromCents(c)) !== c) throw new Error(`round trip broke at ${c}`);
    let x = 7;
    for (let n = 0; n < 20_000; n++) {
      x = (x * 48271) % 2147483647;
      const c = x * 4093 + n; // up to ~8.8e12 cents
      if (toCents(fromCents(c)) !== c || toCents(JSON.parse(JSON.stringify(fromCents(c)))) !== c) throw new Error(`round trip broke at ${c}`);
    }
  });
});

describe('the fake QuickBooks server', () => {
  it('parses the query language QuickBooks accepts, keywords in any case', () => {
    expect(parseQuery("SELECT * FROM invoice WHERE CustomerRef = '58' AND TxnDate >= '2025-01-01' and TxnDate <= '2025-12-31' ORDERBY TxnDate DESC STARTPOSITION 11 MAXRESULTS 10")).toEqual({
      entity: 'Invoice', count: false, start: 11, max: 10, orderBy: [{ field: 'TxnDate', desc: true }],
      where: [
        { field: 'CustomerRef', op: '=', values: ['58'] },
        { field: 'TxnDate', op: '>=', values: ['2025-01-01'] },
        { field: 'TxnDate', op: '<=', values: ['2025-12-31'] },
      ],
    });
    expect(parseQuery("select count(*) from Customer where Id in ('1', '2') and DisplayName like 'Ac%'")).toMatchObject({
      entity: 'Customer', count: true, where: [{ field: 'Id', op: 'in', values: ['1', '2'] }, { field: 'DisplayName', op: 'like', values: ['Ac%'] }],
    });
    expect(parseQuery("select * from Customer where DisplayName = 'O\\'Brien' order by DisplayName").where[0]!.values).toEqual(["O'Brien"]);
    expect(() => parseQuery('select * from Nonsense')).toThrow('Invalid query');
    expect(() => parseQuery('select * from Customer where')).toThrow('Error parsing query');
  });

  it('answers queries, reads and Faults in QuickBooks’ shapes', async () => {
    const pair = fake.issueTokens(realmId);
    const headers = { authorization: `Bearer ${pair.accessToken}`, accept: 'application/json' };
    const get = async (path: string) => {
      const res = await fetch(`${fake.apiBaseUrl}/v3/company/${realmId}${path}`, { headers });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    const ids = await get(`/query?query=${encodeURIComponent("select * from Item where Id in ('7','8') orderby Id desc")}`);
    expect((ids.body.QueryResponse as { Item: { Id: string }[] }).Item.map((i) => i.Id)).toEqual(['8', '7']);
    expect((await get(`/query?query=${encodeURIComponent("select * from Customer where DisplayName = 'nobody'")}`)).body.QueryResponse).toEqual({});
    expect((await get(`/query?query=${encodeURIComponent('select count(*) from Account')}`)).body.QueryResponse).toEqual({ totalCount: 5 });
    const bad = await get(`/query?query=${encodeURIComponent('select from')}`);
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ Fault: { type: 'ValidationFault', Error: [{ code: '4000' }] } });
    expect((await get('/customer/424242')).body).toMatchObject({ Fault: { Error: [{ code: '610', Message: 'Object Not Found' }] } });

    fake.expireAccessTokens();
    const expired = await get('/companyinfo/' + realmId);
    expect(expired.status).toBe(401);
    expect(expired.body).toMatchObject({ fault: { error: [{ code: '3200', message: 'message=AuthenticationFailed; errorCode=003200; statusCode=401' }] } });
  });
});
