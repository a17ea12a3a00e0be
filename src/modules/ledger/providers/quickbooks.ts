/**
 * QuickBooks Online adapter: OAuth 2 at Intuit's endpoints and the Accounting API v3, written against Intuit's
 * developer documentation (developer.intuit.com, "Set up OAuth 2.0", the API reference pages of the entities used
 * here, "Change data capture", "Error codes") and what live captures of the API are known to return:
 *
 * - OAuth 2: authorize at https://appcenter.intuit.com/connect/oauth2 (`client_id, response_type=code, scope,
 *   redirect_uri, state`); the callback carries `code, state, realmId` (the company id). Token endpoint
 *   https://oauth.platform.intuit.com/oauth2/v1/tokens/bearer with HTTP Basic client authentication, form body
 *   `grant_type=authorization_code&code&redirect_uri` or `grant_type=refresh_token&refresh_token`; it answers
 *   `{token_type: "bearer", access_token, refresh_token, expires_in: 3600, x_refresh_token_expires_in: 8726400}`
 *   (the refresh token may change on every refresh: the latest one is the one to keep), errors `{"error":
 *   "invalid_grant"}` (400) / `invalid_client` (401). Revocation at
 *   https://developer.api.intuit.com/v2/oauth2/tokens/revoke takes a JSON body `{"token": …}` with Basic auth (the
 *   library sends RFC 7009 form encoding; a custom fetch turns it into JSON). The discovery documents name the issuer
 *   https://oauth.platform.intuit.com/op/v1; they are not fetched: the endpoints are configuration.
 * - Accounting API: `{base}/v3/company/{realmId}/…` with `Authorization: Bearer`, `Accept: application/json` (without
 *   it the API answers XML) and `?minorversion=N`. Reads `GET /{entity}/{id}` → `{"Customer": {…}, "time"}`;
 *   `GET /companyinfo/{realmId}` → `{"CompanyInfo": {CompanyName, Country, …}}` (no currency: the home currency is
 *   `Preferences.CurrencyPrefs.HomeCurrency.value` from `GET /preferences`). Queries `GET /query?query=select * from
 *   Customer … STARTPOSITION s MAXRESULTS m` → `{"QueryResponse": {"Customer": […], "startPosition", "maxResults"}}`,
 *   `{"QueryResponse": {}}` when nothing matches; at most 1000 rows a page; name lists (Account, Item, Customer,
 *   TaxCode, Term, PaymentMethod) return only active rows unless the query says `Active IN (true, false)`.
 *   Creates and updates `POST /{entity}?requestid=…` (the same requestid within a company replays the first answer
 *   instead of writing twice); an update carries `Id` and `SyncToken` (optimistic lock; `"sparse": true` updates only
 *   the fields sent, a full update sets omitted writable fields to null). Change data capture `GET
 *   /cdc?entities=Customer,Invoice,Payment&changedSince=<ISO 8601>` → `{"CDCResponse": [{"QueryResponse": [{"Customer":
 *   […]}, {"Invoice": […]}, …]}]}`, at most 1000 objects, 30 days back; a deleted record is `{"status": "Deleted",
 *   "Id", "domain", "MetaData": {"LastUpdatedTime"}}`.
 * - Entities: Invoice `Line[]` of `DetailType` SalesItemLineDetail (`Amount, Description, SalesItemLineDetail.{ItemRef,
 *   Qty, UnitPrice, TaxCodeRef}`) plus a SubTotalLineDetail line the API adds; a voided invoice keeps its lines' record
 *   but TotalAmt 0 and "Voided" injected into PrivateNote. Payment `Line[].{Amount, LinkedTxn[{TxnId, TxnType:
 *   "Invoice"}]}`. Amounts are JSON decimal numbers in the record's currency.
 * - Faults: `{"Fault": {"Error": [{"Message", "Detail", "code", "element"}], "type": "ValidationFault"}, "time"}`
 *   (also SystemFault, AuthenticationFault, AuthorizationFault); a 401 as captured live is lower case: `{"fault":
 *   {"error": [{"message": "message=AuthenticationFailed; errorCode=003200; statusCode=401", "detail", "code":
 *   "3200"}], "type": "AUTHENTICATION"}}`. Codes: 5010 Stale Object Error, 6240 Duplicate Name Exists Error, 6140
 *   Duplicate Document Number Error, 610 Object Not Found, 2500 Invalid Reference Id, 4000 query parser error;
 *   429 ThrottleExceeded (code 003001) past 500 requests a minute per company (Retry-After is not reliably sent).
 */
import * as client from 'openid-client';
import type { Agent } from 'undici';
import {
  LedgerProviderError,
  type CustomerInput,
  type DateRange,
  type InvoiceInput,
  type LedgerAccount,
  type LedgerChanges,
  type LedgerCompany,
  type LedgerCustomer,
  type LedgerFailure,
  type LedgerInvoice,
  type LedgerInvoiceLine,
  type LedgerItem,
  type LedgerPayment,
  type LedgerPaymentAllocation,
  type LedgerPaymentMethod,
  type LedgerProvider,
  type LedgerSession,
  type LedgerTaxCode,
  type LedgerTerm,
  type LedgerTokens,
  type LedgerUsage,
} from './provider.ts';
import { loadUndici, type Undici } from '../../../platform/net/undici.ts';

/** The issuer Intuit's discovery documents name (no id token is requested, so it is never checked against one). */
export const QBO_ISSUER = 'https://oauth.platform.intuit.com/op/v1';
export const QBO_ACCOUNTING_SCOPE = 'com.intuit.quickbooks.accounting';
/** Requests a minute per company before QuickBooks answers 429. */
export const QBO_LIMIT_PER_MINUTE = 500;
/** The most rows one query page may return. */
export const QBO_MAX_PAGE_SIZE = 1000;
/** The most objects one change data capture answer holds; a full answer may be cut. */
export const QBO_CDC_LIMIT = 1000;

export interface QuickBooksOptions {
  clientId: string;
  clientSecret: string;
  /** e.g. https://sandbox-quickbooks.api.intuit.com */
  apiBaseUrl: string;
  authorizeUrl: string;
  tokenUrl: string;
  revokeUrl: string;
  /** Default com.intuit.quickbooks.accounting. */
  scope?: string;
  /** Default 75. */
  minorVersion?: number;
  /** Per request, connect to end of body (default 15 s). */
  timeoutMs?: number;
  /** Retries after a 429 or 5xx (default 4). */
  maxRetries?: number;
  /** First backoff step (default 500 ms), doubled per retry, with jitter. */
  retryBaseMs?: number;
  now?: () => Date;
  /** Rows asked for per query page (default and maximum 1000); tests use a small page. */
  pageSize?: number;
  /** Largest response body parsed (default 16 MiB); a larger one is refused rather than cut. */
  maxBodyBytes?: number;
  /** How the adapter waits between retries (tests record the delays instead of waiting). */
  sleep?: (ms: number) => Promise<void>;
}

const LABEL = 'QuickBooks Online';
const DEFAULT_MINOR_VERSION = 75;
/** A Retry-After longer than this is not waited for inside one call: the caller is told `throttled`. */
const MAX_RETRY_AFTER_MS = 60_000;
const MAX_BACKOFF_MS = 30_000;
/** Guards the paging loop against an upstream that never returns a short page. */
const MAX_PAGES = 1000;

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const text = (v: unknown, max = 1000): string | null => (typeof v === 'string' && v.trim() !== '' ? v.trim().slice(0, max) : null);
const num = (v: unknown): number | null => {
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (typeof v === 'string' && /^-?\d+(\.\d+)?$/.test(v.trim())) return Number(v.trim());
  return null;
};
const bool = (v: unknown): boolean | null => (typeof v === 'boolean' ? v : v === 'true' ? true : v === 'false' ? false : null);
/** QuickBooks ids are short strings of digits; some references (tax codes TAX/NON, currencies) are words. */
const idOf = (v: unknown): string | null => {
  if (typeof v === 'number' && Number.isSafeInteger(v)) return String(v);
  return typeof v === 'string' && /^[A-Za-z0-9._:-]{1,100}$/.test(v.trim()) ? v.trim() : null;
};
const refOf = (v: unknown): string | null => (isObject(v) ? idOf(v.value) : null);
const currencyOf = (v: unknown): string | null => {
  const c = isObject(v) ? v.value : v;
  return typeof c === 'string' && /^[A-Za-z]{3}$/.test(c.trim()) ? c.trim().toUpperCase() : null;
};
const dateOf = (v: unknown): string | null => {
  if (typeof v !== 'string') return null;
  const m = /^(\d{4}-\d{2}-\d{2})/.exec(v.trim());
  if (!m) return null;
  const d = new Date(`${m[1]}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().startsWith(m[1]!) ? m[1]! : null;
};
const isoOf = (v: unknown): string | null => {
  if (typeof v !== 'string') return null;
  const d = new Date(v);
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
};
const versionOf = (v: unknown): string => idOf(v) ?? '0';
const updatedAtOf = (j: Json): string | null => (isObject(j.MetaData) ? isoOf(j.MetaData.LastUpdatedTime) : null);

/**
 * QuickBooks amount → integer cents, exactly. The JSON number arrives as the double nearest the decimal QuickBooks
 * wrote; `String(n)` (ECMA-262 Number::toString) is the shortest decimal that reads back as that same double, and a
 * decimal of at most 15 significant digits always survives decimal → double → shortest decimal unchanged (a double
 * holds 15.95 decimal digits). Every amount QuickBooks stores (up to 13 integer digits and 2 decimals) is such a
 * decimal, so its digits are read off the string with integer arithmetic, never multiplied as a float: 19.99 →
 * "19.99" → 1999, whereas 19.99 * 100 = 1998.9999999999998. Values with more decimals (unit prices, or a
 * float-polluted 0.30000000000000004) are rounded half away from zero on the third decimal digit.
 * Numeric strings are read the same way. Returns null for anything that is not a finite decimal or whose cents
 * would not be a safe integer.
 */
export function toCents(v: unknown): number | null {
  let s: string;
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) return null;
    s = String(v);
  } else if (typeof v === 'string' && v.trim() !== '') {
    s = v.trim();
  } else {
    return null;
  }
  const m = /^([+-])?(\d*)(?:\.(\d*))?(?:e([+-]?\d{1,4}))?$/i.exec(s);
  if (!m || (!m[2] && !m[3])) return null;
  const intPart = m[2] ?? '';
  const all = intPart + (m[3] ?? '');
  // Digits before the decimal point once the exponent is applied; cents are the first `point + 2` digits.
  const point = intPart.length + Number(m[4] ?? 0);
  const centsLen = point + 2;
  let head = '0';
  let next = '0';
  if (centsLen > 0) {
    head = all.slice(0, centsLen).padEnd(centsLen, '0');
    next = all[centsLen] ?? '0';
  } else if (centsLen === 0) {
    next = all[0] ?? '0';
  }
  let cents = BigInt(head);
  if (next >= '5') cents += 1n;
  if (cents > BigInt(Number.MAX_SAFE_INTEGER)) return null;
  if (cents === 0n) return 0;
  return m[1] === '-' ? -Number(cents) : Number(cents);
}

/** Integer cents → the decimal number QuickBooks expects (1999 → 19.99), built from digits, not by dividing. */
export function fromCents(cents: number): number {
  if (!Number.isSafeInteger(cents)) throw new RangeError(`cents must be a safe integer, got ${cents}`);
  const abs = Math.abs(cents);
  return Number(`${cents < 0 ? '-' : ''}${Math.trunc(abs / 100)}.${String(abs % 100).padStart(2, '0')}`);
}

function invalid(what: string): LedgerProviderError {
  return new LedgerProviderError('invalid_response', `${LABEL} sent an unexpected response: ${what}`);
}

// ---------------------------------------------------------------------------------------------- entity mapping

export function toAccount(j: Json): LedgerAccount | null {
  const id = idOf(j.Id);
  if (!id) return null;
  const name = text(j.Name, 500) ?? `Account ${id}`;
  return {
    id,
    name,
    fullName: text(j.FullyQualifiedName, 2000) ?? name,
    classification: text(j.Classification, 100),
    type: text(j.AccountType, 100),
    subType: text(j.AccountSubType, 100),
    active: bool(j.Active) ?? true,
    currency: currencyOf(j.CurrencyRef),
  };
}

export function toItem(j: Json): LedgerItem | null {
  const id = idOf(j.Id);
  if (!id) return null;
  return {
    id,
    name: text(j.Name, 500) ?? text(j.FullyQualifiedName, 500) ?? `Item ${id}`,
    type: text(j.Type, 100),
    active: bool(j.Active) ?? true,
    description: text(j.Description, 4000),
    unitPriceCents: toCents(j.UnitPrice),
    incomeAccountId: refOf(j.IncomeAccountRef),
    version: versionOf(j.SyncToken),
  };
}

export function toTaxCode(j: Json): LedgerTaxCode | null {
  const id = idOf(j.Id);
  if (!id) return null;
  return {
    id,
    name: text(j.Name, 500) ?? id,
    description: text(j.Description, 1000),
    active: bool(j.Active) ?? true,
    taxable: bool(j.Taxable),
  };
}

export function toTerm(j: Json): LedgerTerm | null {
  const id = idOf(j.Id);
  if (!id) return null;
  const dueDays = num(j.DueDays);
  return {
    id,
    name: text(j.Name, 500) ?? `Term ${id}`,
    type: text(j.Type, 100),
    dueDays: dueDays !== null && Number.isInteger(dueDays) ? dueDays : null,
    active: bool(j.Active) ?? true,
  };
}

export function toPaymentMethod(j: Json): LedgerPaymentMethod | null {
  const id = idOf(j.Id);
  if (!id) return null;
  return { id, name: text(j.Name, 500) ?? `Payment method ${id}`, type: text(j.Type, 100), active: bool(j.Active) ?? true };
}

export function toCustomer(j: Json): LedgerCustomer | null {
  const id = idOf(j.Id);
  if (!id) return null;
  const companyName = text(j.CompanyName, 500);
  return {
    id,
    displayName: text(j.DisplayName, 500) ?? companyName ?? `Customer ${id}`,
    companyName,
    email: isObject(j.PrimaryEmailAddr) ? text(j.PrimaryEmailAddr.Address, 320) : null,
    phone: isObject(j.PrimaryPhone) ? text(j.PrimaryPhone.FreeFormNumber, 100) : null,
    active: bool(j.Active) ?? true,
    currency: currencyOf(j.CurrencyRef),
    version: versionOf(j.SyncToken),
    updatedAt: updatedAtOf(j),
  };
}

function toInvoiceLine(l: Json): LedgerInvoiceLine | null {
  if (l.DetailType !== 'SalesItemLineDetail') return null;
  const amountCents = toCents(l.Amount);
  if (amountCents === null) throw invalid('an invoice line without an amount');
  const d = isObject(l.SalesItemLineDetail) ? l.SalesItemLineDetail : {};
  return {
    description: text(l.Description, 4000),
    amountCents,
    quantity: num(d.Qty),
    unitPriceCents: toCents(d.UnitPrice),
    itemId: refOf(d.ItemRef),
    taxCodeId: refOf(d.TaxCodeRef),
  };
}

export function toInvoice(j: Json): LedgerInvoice {
  const id = idOf(j.Id);
  const customerId = refOf(j.CustomerRef);
  const totalCents = toCents(j.TotalAmt);
  if (!id || !customerId || totalCents === null) throw invalid('an invoice without Id, CustomerRef or TotalAmt');
  const privateNote = text(j.PrivateNote, 4000);
  return {
    id,
    docNumber: text(j.DocNumber, 100),
    customerId,
    txnDate: dateOf(j.TxnDate),
    dueDate: dateOf(j.DueDate),
    currency: currencyOf(j.CurrencyRef),
    totalCents,
    balanceCents: toCents(j.Balance) ?? totalCents,
    lines: (Array.isArray(j.Line) ? j.Line : []).filter(isObject).map(toInvoiceLine).filter((l): l is LedgerInvoiceLine => l !== null),
    version: versionOf(j.SyncToken),
    voided: totalCents === 0 && privateNote !== null && /^voided\b/i.test(privateNote),
    updatedAt: updatedAtOf(j),
  };
}

export function toPayment(j: Json): LedgerPayment {
  const id = idOf(j.Id);
  const customerId = refOf(j.CustomerRef);
  const totalCents = toCents(j.TotalAmt);
  if (!id || !customerId || totalCents === null) throw invalid('a payment without Id, CustomerRef or TotalAmt');
  const allocations: LedgerPaymentAllocation[] = [];
  for (const line of Array.isArray(j.Line) ? j.Line.filter(isObject) : []) {
    const amountCents = toCents(line.Amount);
    const invoice = (Array.isArray(line.LinkedTxn) ? line.LinkedTxn.filter(isObject) : []).find((t) => t.TxnType === 'Invoice');
    const invoiceId = invoice ? idOf(invoice.TxnId) : null;
    if (invoiceId && amountCents !== null) allocations.push({ invoiceId, amountCents });
  }
  return {
    id,
    customerId,
    txnDate: dateOf(j.TxnDate),
    currency: currencyOf(j.CurrencyRef),
    totalCents,
    allocations,
    reference: text(j.PaymentRefNum, 100),
    paymentMethodId: refOf(j.PaymentMethodRef),
    version: versionOf(j.SyncToken),
    updatedAt: updatedAtOf(j),
  };
}

function customerBody(input: Partial<CustomerInput>, forUpdate: boolean): Json {
  const b: Json = {};
  // On an update a null clears the field (QuickBooks keeps a field a sparse update leaves out).
  const put = (key: string, value: string | null | undefined, wrap: (v: string) => unknown) => {
    if (value === undefined || (value === null && !forUpdate)) return;
    b[key] = wrap(value ?? '');
  };
  if (input.displayName !== undefined) b.DisplayName = input.displayName;
  put('CompanyName', input.companyName, (v) => v);
  put('PrimaryEmailAddr', input.email, (v) => ({ Address: v }));
  put('PrimaryPhone', input.phone, (v) => ({ FreeFormNumber: v }));
  if (input.currency) b.CurrencyRef = { value: input.currency };
  if (input.active !== undefined) b.Active = input.active;
  return b;
}

function invoiceBody(input: InvoiceInput): Json {
  const b: Json = {
    CustomerRef: { value: input.customerId },
    TxnDate: input.txnDate,
    DueDate: input.dueDate,
    CurrencyRef: { value: input.currency },
    Line: input.lines.map((l) => ({
      DetailType: 'SalesItemLineDetail',
      Amount: fromCents(l.amountCents),
      Description: l.description,
      SalesItemLineDetail: {
        ItemRef: { value: l.itemId },
        Qty: l.quantity,
        UnitPrice: fromCents(l.unitPriceCents),
        ...(l.taxCodeId ? { TaxCodeRef: { value: l.taxCodeId } } : {}),
      },
    })),
  };
  if (input.docNumber) b.DocNumber = input.docNumber;
  if (input.privateNote) b.PrivateNote = input.privateNote;
  return b;
}

// ---------------------------------------------------------------------------------------------- faults

interface Fault {
  type: string | null;
  errors: { message: string | null; detail: string | null; code: string | null }[];
}

/** The Fault envelope, in either casing QuickBooks uses (`Fault.Error[].Message` or a 401's `fault.error[].message`). */
export function faultOf(body: unknown): Fault | null {
  if (!isObject(body)) return null;
  const f = isObject(body.Fault) ? body.Fault : isObject(body.fault) ? body.fault : null;
  if (!f) return null;
  const list = Array.isArray(f.Error) ? f.Error : Array.isArray(f.error) ? f.error : [];
  return {
    type: text(f.type, 100),
    errors: list.filter(isObject).map((e) => ({
      message: text(e.Message ?? e.message, 2000),
      detail: text(e.Detail ?? e.detail, 2000),
      code: text(typeof e.code === 'number' ? String(e.code) : e.code, 32),
    })),
  };
}

/** Upstream words made safe to show: no controls, no secrets, bounded. */
function clean(raw: string, secrets: readonly string[]): string {
  // eslint-disable-next-line no-control-regex
  let s = raw.replace(/[\u0000-\u001f\u007f]+/g, ' ').replace(/\s+/g, ' ').trim();
  for (const secret of secrets) if (secret && secret.length >= 6) s = s.replaceAll(secret, '[redacted]');
  // Anything shaped like a bearer token or JWT is dropped even when it is not one we know.
  s = s.replace(/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/gi, '$1 [redacted]').replace(/\beyJ[A-Za-z0-9_-]{10,}(\.[A-Za-z0-9_-]*){1,4}/g, '[redacted]');
  return s.length > 300 ? `${s.slice(0, 297)}...` : s;
}

const isAuthFault = (f: Fault | null) =>
  !!f && (/^authentication(fault)?$/i.test(f.type ?? '') || f.errors.some((e) => e.code === '3200' || e.code === '003200' || /AuthenticationFailed/i.test(e.message ?? '')));

// ---------------------------------------------------------------------------------------------- the adapter

interface Usage {
  calls: number[];
  throttles: number[];
  lastThrottledAt: number | null;
}

type NameList = 'Account' | 'Item' | 'TaxCode' | 'Term' | 'PaymentMethod' | 'Customer';
type Transactional = 'Invoice' | 'Payment';

const OAUTH_ERROR_RE = /^[a-z0-9_.-]{1,64}$/i;

export function createQuickBooksProvider(options: QuickBooksOptions): LedgerProvider {
  const now = options.now ?? (() => new Date());
  const timeoutMs = options.timeoutMs ?? 15_000;
  const maxRetries = Math.max(0, options.maxRetries ?? 4);
  const retryBaseMs = Math.max(0, options.retryBaseMs ?? 500);
  const minorVersion = String(options.minorVersion ?? DEFAULT_MINOR_VERSION);
  const scope = options.scope ?? QBO_ACCOUNTING_SCOPE;
  const pageSize = Math.min(QBO_MAX_PAGE_SIZE, Math.max(1, Math.trunc(options.pageSize ?? QBO_MAX_PAGE_SIZE)));
  const maxBodyBytes = options.maxBodyBytes ?? 16 * 1024 * 1024;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const apiBase = options.apiBaseUrl.replace(/\/+$/, '');
  const clientSecret = options.clientSecret;

  // Made at the first call to the API (undici loads then: platform/net/undici.ts).
  let dispatcher: Agent | undefined;

  // ------------------------------------------------------------------ OAuth (openid-client, no discovery)
  const config = new client.Configuration(
    {
      issuer: QBO_ISSUER,
      authorization_endpoint: options.authorizeUrl,
      token_endpoint: options.tokenUrl,
      revocation_endpoint: options.revokeUrl,
    },
    options.clientId,
    clientSecret,
    client.ClientSecretBasic(clientSecret),
  );
  if ([options.authorizeUrl, options.tokenUrl, options.revokeUrl].some((u) => new URL(u).protocol === 'http:')) {
    client.allowInsecureRequests(config); // the local stand-in in tests; Intuit's endpoints are https
  }
  config.timeout = timeoutMs / 1000;
  const revokeHref = new URL(options.revokeUrl).href;
  // Intuit's revocation endpoint reads JSON `{"token": …}`; the library speaks RFC 7009 form encoding.
  config[client.customFetch] = (url, init) => {
    if (url === revokeHref && init.body instanceof URLSearchParams) {
      const token = init.body.get('token') ?? '';
      const headers = { ...init.headers, 'content-type': 'application/json', accept: 'application/json' };
      return fetch(url, { ...init, headers, body: JSON.stringify({ token }) });
    }
    return fetch(url, init as RequestInit);
  };

  function oauthFailure(err: unknown, what: string, secrets: readonly string[]): never {
    if (err instanceof LedgerProviderError) throw err;
    if (err instanceof client.ResponseBodyError) {
      const code = OAUTH_ERROR_RE.test(err.error) ? err.error : 'error';
      if (err.status === 429) throw new LedgerProviderError('throttled', `Intuit throttled the ${what} (HTTP 429)`, 429, code);
      const said = typeof err.error_description === 'string' ? `: ${clean(err.error_description, secrets)}` : '';
      throw new LedgerProviderError('auth_failed', `Intuit refused the ${what} (${code})${said}`, err.status, code);
    }
    if (err instanceof client.WWWAuthenticateChallengeError) {
      throw new LedgerProviderError('auth_failed', `Intuit refused the ${what} (HTTP ${err.status})`, err.status);
    }
    if (err instanceof client.AuthorizationResponseError) {
      const code = OAUTH_ERROR_RE.test(err.error) ? err.error : 'error';
      throw new LedgerProviderError('auth_failed', `The authorization was not granted (${code})`, undefined, code);
    }
    if (err instanceof client.ClientError) {
      const code = err.code ?? '';
      if (code === 'OAUTH_TIMEOUT' || code === 'OAUTH_ABORT') {
        throw new LedgerProviderError('timeout', `Intuit did not answer the ${what} within ${Math.round(timeoutMs / 1000)} s`);
      }
      const response = err.cause instanceof Response ? err.cause : undefined;
      if (code === 'OAUTH_RESPONSE_IS_NOT_CONFORM' && response) {
        const st = response.status;
        if (st === 429) throw new LedgerProviderError('throttled', `Intuit throttled the ${what} (HTTP 429)`, st);
        if (st >= 500) throw new LedgerProviderError('unavailable', `Intuit failed the ${what} (HTTP ${st})`, st);
        if (st === 400 || st === 401 || st === 403) throw new LedgerProviderError('auth_failed', `Intuit refused the ${what} (HTTP ${st})`, st);
        throw new LedgerProviderError('invalid_response', `Intuit answered the ${what} with HTTP ${st}`, st);
      }
      throw new LedgerProviderError('invalid_response', `Intuit sent an unexpected answer to the ${what} (${code || 'unknown'})`);
    }
    if (err instanceof TypeError && !('code' in err) && /fetch failed/i.test(err.message)) {
      const cause = (err as { cause?: { code?: unknown; name?: unknown } }).cause;
      const why = typeof cause?.code === 'string' ? cause.code : typeof cause?.name === 'string' ? cause.name : 'connection failed';
      if (/timeout/i.test(why)) throw new LedgerProviderError('timeout', `Intuit did not answer the ${what} within ${Math.round(timeoutMs / 1000)} s`);
      throw new LedgerProviderError('unreachable', `Intuit could not be reached for the ${what} (${clean(why, secrets)})`);
    }
    if (err instanceof DOMException && (err.name === 'TimeoutError' || err.name === 'AbortError')) {
      throw new LedgerProviderError('timeout', `Intuit did not answer the ${what} within ${Math.round(timeoutMs / 1000)} s`);
    }
    throw err;
  }

  function toTokens(r: client.TokenEndpointResponse, previousRefreshToken?: string): LedgerTokens {
    const at = now().getTime();
    const refreshToken = typeof r.refresh_token === 'string' && r.refresh_token !== '' ? r.refresh_token : previousRefreshToken;
    if (!r.access_token || !refreshToken) throw invalid('the token response has no access or refresh token');
    const expiresIn = typeof r.expires_in === 'number' && r.expires_in > 0 ? r.expires_in : 3600;
    const refreshIn = num(r.x_refresh_token_expires_in);
    return {
      accessToken: r.access_token,
      refreshToken,
      accessTokenExpiresAt: new Date(at + expiresIn * 1000),
      refreshTokenExpiresAt: refreshIn !== null && refreshIn > 0 ? new Date(at + refreshIn * 1000) : null,
    };
  }

  // ------------------------------------------------------------------ usage
  const usageByRealm = new Map<string, Usage>();
  const usageOf = (realmId: string): Usage => {
    let u = usageByRealm.get(realmId);
    if (!u) usageByRealm.set(realmId, (u = { calls: [], throttles: [], lastThrottledAt: null }));
    return u;
  };
  const prune = (u: Usage, t: number) => {
    while (u.calls.length && u.calls[0]! <= t - 60_000) u.calls.shift();
    while (u.throttles.length && u.throttles[0]! <= t - 3_600_000) u.throttles.shift();
  };
  const countCall = (realmId: string) => {
    const u = usageOf(realmId);
    const t = now().getTime();
    prune(u, t);
    u.calls.push(t);
  };
  const countThrottle = (realmId: string) => {
    const u = usageOf(realmId);
    const t = now().getTime();
    u.throttles.push(t);
    u.lastThrottledAt = t;
  };

  // ------------------------------------------------------------------ one HTTP exchange
  interface Answer {
    status: number;
    retryAfter: string | null;
    body: string;
  }

  async function exchange(method: 'GET' | 'POST', url: string, token: string, payload: unknown): Promise<Answer> {
    const headers: Record<string, string> = {
      authorization: `Bearer ${token}`,
      accept: 'application/json',
      'user-agent': 'psa-ledger/1',
    };
    if (payload !== undefined || method === 'POST') headers['content-type'] = 'application/json';
    const undici = await loadUndici();
    dispatcher ??= new undici.Agent({ connect: { timeout: timeoutMs }, headersTimeout: timeoutMs, bodyTimeout: timeoutMs, keepAliveTimeout: 10_000 });
    const signal = AbortSignal.timeout(timeoutMs);
    try {
      const res = await undici.request(url, {
        method,
        headers,
        body: payload === undefined ? undefined : JSON.stringify(payload),
        dispatcher,
        signal,
      });
      const declared = Number(res.headers['content-length']);
      if (Number.isFinite(declared) && declared > maxBodyBytes) {
        res.body.destroy();
        throw invalid(`a body larger than ${maxBodyBytes} bytes`);
      }
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of res.body as AsyncIterable<Buffer>) {
        size += chunk.length;
        if (size > maxBodyBytes) {
          res.body.destroy();
          throw invalid(`a body larger than ${maxBodyBytes} bytes`);
        }
        chunks.push(chunk);
      }
      const ra = res.headers['retry-after'];
      return { status: res.statusCode, retryAfter: typeof ra === 'string' ? ra : null, body: Buffer.concat(chunks).toString('utf8') };
    } catch (err) {
      if (err instanceof LedgerProviderError) throw err;
      throw transportFailure(err, token, undici.errors);
    }
  }

  function transportFailure(err: unknown, token: string, undiciErrors: Undici['errors']): LedgerProviderError {
    const e = err as { name?: unknown; code?: unknown; message?: unknown };
    const timedOut =
      err instanceof undiciErrors.ConnectTimeoutError ||
      err instanceof undiciErrors.HeadersTimeoutError ||
      err instanceof undiciErrors.BodyTimeoutError ||
      err instanceof undiciErrors.RequestAbortedError ||
      e.name === 'TimeoutError' ||
      e.name === 'AbortError';
    if (timedOut) return new LedgerProviderError('timeout', `${LABEL} did not answer within ${Math.round(timeoutMs / 1000)} s`);
    if (err instanceof undiciErrors.HTTPParserError || err instanceof undiciErrors.ResponseContentLengthMismatchError) {
      return new LedgerProviderError('invalid_response', `${LABEL} did not answer with valid HTTP`);
    }
    const why = typeof e.code === 'string' ? e.code : typeof e.message === 'string' ? e.message : 'connection failed';
    return new LedgerProviderError('unreachable', `${LABEL} could not be reached (${clean(why, [token, clientSecret]).slice(0, 120)})`);
  }

  function backoffMs(attempt: number, retryAfter: string | null): number | null {
    if (retryAfter !== null) {
      let ms: number | null = null;
      if (/^\d{1,7}$/.test(retryAfter.trim())) ms = Number(retryAfter.trim()) * 1000;
      else {
        const at = Date.parse(retryAfter);
        if (!Number.isNaN(at)) ms = Math.max(0, at - now().getTime());
      }
      if (ms !== null) return ms > MAX_RETRY_AFTER_MS ? null : ms + Math.random() * retryBaseMs;
    }
    const step = Math.min(MAX_BACKOFF_MS, retryBaseMs * 2 ** attempt);
    return step / 2 + Math.random() * (step / 2);
  }

  async function tokenFrom(s: LedgerSession, renew: boolean): Promise<string> {
    try {
      const token = renew ? await s.tokens.renew() : await s.tokens.current();
      if (typeof token !== 'string' || token === '') throw new LedgerProviderError('auth_failed', `No ${LABEL} access token is available; reconnect the company`);
      return token;
    } catch (err) {
      if (err instanceof LedgerProviderError) throw err;
      throw new LedgerProviderError('auth_failed', `A ${LABEL} access token could not be obtained; reconnect the company`);
    }
  }

  /**
   * One API call with the adapter's recovery: a 401 renews the token once and repeats the call; a 429 or 5xx is
   * retried with exponential backoff and jitter (or after Retry-After), up to `maxRetries`. A create carries the
   * same requestid on every attempt, so a repeat cannot write twice.
   */
  async function api(s: LedgerSession, method: 'GET' | 'POST', path: string, params: Record<string, string> = {}, payload?: unknown): Promise<Json> {
    const realmId = s.realmId;
    if (typeof realmId !== 'string' || !/^[A-Za-z0-9_-]{1,64}$/.test(realmId)) {
      throw new LedgerProviderError('rejected', `The ${LABEL} company id is not valid`);
    }
    const qs = new URLSearchParams({ ...params, minorversion: minorVersion });
    const url = `${apiBase}/v3/company/${encodeURIComponent(realmId)}${path}?${qs}`;
    let token = await tokenFrom(s, false);
    const seen: string[] = [token];
    let renewed = false;
    let retries = 0;
    for (;;) {
      countCall(realmId);
      const res = await exchange(method, url, token, payload);
      const secrets = [...seen, clientSecret];

      if (res.status === 429 || res.status >= 500) {
        const throttled = res.status === 429;
        if (throttled) countThrottle(realmId);
        const wait = retries < maxRetries ? backoffMs(retries, res.retryAfter) : null;
        if (wait !== null) {
          retries++;
          await sleep(wait);
          continue;
        }
        if (throttled) {
          throw new LedgerProviderError('throttled', `${LABEL} is throttling calls to this company (HTTP 429 after ${retries} retries)`, 429, faultOf(parse(res.body))?.errors[0]?.code ?? undefined);
        }
        throw new LedgerProviderError('unavailable', `${LABEL} failed (HTTP ${res.status} after ${retries} retries)`, res.status);
      }

      const body = parse(res.body);
      const fault = faultOf(body);
      if (res.status === 401 || (fault && isAuthFault(fault))) {
        if (!renewed) {
          renewed = true;
          token = await tokenFrom(s, true);
          seen.push(token);
          continue;
        }
        throw new LedgerProviderError('auth_failed', `${LABEL} refused the access token even after a refresh (HTTP ${res.status})`, res.status, fault?.errors[0]?.code ?? undefined);
      }
      if (res.status === 403) {
        throw new LedgerProviderError('auth_failed', `${LABEL} refused access to this company (HTTP 403)${said(fault, secrets)}`, 403, fault?.errors[0]?.code ?? undefined);
      }
      if (res.status >= 200 && res.status < 300) {
        if (body === undefined) throw invalid(res.body.trimStart().startsWith('<') ? 'XML or HTML instead of JSON' : 'the body is not JSON');
        if (!isObject(body)) throw invalid('the body is not a JSON object');
        if (fault) throw faultFailure(400, fault, secrets); // a Fault inside a 200 (batch-style answers)
        return body;
      }
      if (res.status === 404) throw new LedgerProviderError('not_found', `${LABEL} has no such record (HTTP 404)`, 404, fault?.errors[0]?.code ?? undefined);
      if (res.status >= 400) {
        if (!fault) throw new LedgerProviderError('rejected', `${LABEL} refused the request (HTTP ${res.status})`, res.status);
        throw faultFailure(res.status, fault, secrets);
      }
      throw invalid(`HTTP ${res.status}; check the API base URL`);
    }
  }

  function parse(body: string): unknown {
    try {
      return JSON.parse(body) as unknown;
    } catch {
      return undefined;
    }
  }

  function said(fault: Fault | null, secrets: readonly string[]): string {
    const e = fault?.errors[0];
    const words = e?.detail ?? e?.message;
    return words ? `: ${clean(words, secrets)}` : '';
  }

  function faultFailure(status: number, fault: Fault, secrets: readonly string[]): LedgerProviderError {
    const codes = fault.errors.map((e) => e.code ?? '');
    const code = codes.find((c) => c !== '') || undefined;
    const pick = (reason: LedgerFailure, c: string, what: string) => {
      const e = fault.errors[codes.indexOf(c)];
      const words = e?.detail ?? e?.message;
      return new LedgerProviderError(reason, `${what}${words ? `: ${clean(words, secrets)}` : ''}`, status, c);
    };
    if (codes.includes('5010')) return pick('conflict', '5010', `The ${LABEL} record was changed since it was read`);
    if (codes.includes('6240')) return pick('conflict', '6240', `The name is already used in ${LABEL}`);
    if (codes.includes('6140')) return pick('conflict', '6140', `The document number is already used in ${LABEL}`);
    if (codes.includes('610')) return pick('not_found', '610', `${LABEL} has no such record`);
    return new LedgerProviderError('rejected', `${LABEL} refused the request (HTTP ${status}${code ? `, code ${code}` : ''})${said(fault, secrets)}`, status, code);
  }

  // ------------------------------------------------------------------ helpers over the API
  const quote = (v: string) => `'${v.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  const checkDate = (d: string | undefined, what: string): string | undefined => {
    if (d === undefined) return undefined;
    if (dateOf(d) !== d) throw new LedgerProviderError('rejected', `The ${what} date must be YYYY-MM-DD`);
    return d;
  };
  const checkId = (id: string, what: string): string => {
    if (idOf(id) !== id) throw new LedgerProviderError('not_found', `${LABEL} has no ${what} with that id`);
    return id;
  };

  /** Every row of `select * from <entity> [where …]`, page by page until a page comes back short. */
  async function queryAll(s: LedgerSession, entity: NameList | Transactional, where: string[]): Promise<Json[]> {
    const rows: Json[] = [];
    const clause = where.length ? ` where ${where.join(' and ')}` : '';
    for (let page = 0, start = 1; page < MAX_PAGES; page++, start += pageSize) {
      const body = await api(s, 'GET', '/query', { query: `select * from ${entity}${clause} orderby Id startposition ${start} maxresults ${pageSize}` });
      const qr = body.QueryResponse;
      if (!isObject(qr)) throw invalid('no QueryResponse');
      const list = qr[entity];
      if (list !== undefined && !Array.isArray(list)) throw invalid(`QueryResponse.${entity} is not a list`);
      const got = (list ?? []).filter(isObject);
      rows.push(...got);
      if ((list ?? []).length < pageSize) return rows;
    }
    throw invalid(`more than ${MAX_PAGES} pages of ${entity}`);
  }

  const nameList = async <T>(s: LedgerSession, entity: NameList, map: (j: Json) => T | null): Promise<T[]> =>
    (await queryAll(s, entity, ['Active in (true, false)'])).map(map).filter((x): x is T => x !== null);

  function entityOf(body: Json, entity: string): Json {
    const e = body[entity];
    if (!isObject(e)) throw invalid(`no ${entity} in the answer`);
    return e;
  }

  const must = <T>(v: T | null, what: string): T => {
    if (v === null) throw invalid(`${what} without an Id`);
    return v;
  };

  const rangeWhere = (range: DateRange): string[] => {
    const where: string[] = [];
    const from = checkDate(range.from, 'from');
    const to = checkDate(range.to, 'to');
    if (from) where.push(`TxnDate >= ${quote(from)}`);
    if (to) where.push(`TxnDate <= ${quote(to)}`);
    return where;
  };

  const requestParams = (requestId: string): Record<string, string> => {
    if (typeof requestId !== 'string' || requestId === '' || requestId.length > 100) {
      throw new LedgerProviderError('rejected', 'A request id of 1 to 100 characters is required');
    }
    return { requestid: requestId };
  };

  return {
    name: 'quickbooks_online',
    label: LABEL,

    authorizationUrl({ state, redirectUri }) {
      return client.buildAuthorizationUrl(config, { redirect_uri: redirectUri, scope, state, response_type: 'code' }).href;
    },

    async exchangeCode({ callbackUrl, expectedState }) {
      // Checked here first so the answer is a clear auth_failed (the library checks again).
      const error = callbackUrl.searchParams.get('error');
      if (error) {
        const code = OAUTH_ERROR_RE.test(error) ? error : 'error';
        throw new LedgerProviderError('auth_failed', `The authorization was not granted (${code})`, undefined, code);
      }
      if (callbackUrl.searchParams.get('state') !== expectedState) {
        throw new LedgerProviderError('auth_failed', 'The authorization callback does not carry the expected state');
      }
      if (!callbackUrl.searchParams.get('code')) throw new LedgerProviderError('auth_failed', 'The authorization callback carries no code');
      // realmId rides along in the query; the library ignores unknown parameters and sends redirect_uri without the query.
      try {
        return toTokens(await client.authorizationCodeGrant(config, callbackUrl, { expectedState }));
      } catch (err) {
        oauthFailure(err, 'authorization code', [callbackUrl.searchParams.get('code') ?? '', clientSecret]);
      }
    },

    async refresh(refreshToken) {
      if (typeof refreshToken !== 'string' || refreshToken === '') throw new LedgerProviderError('auth_failed', 'No refresh token is stored; reconnect the company');
      try {
        return toTokens(await client.refreshTokenGrant(config, refreshToken), refreshToken);
      } catch (err) {
        oauthFailure(err, 'token refresh', [refreshToken, clientSecret]);
      }
    },

    async revoke(token) {
      if (typeof token !== 'string' || token === '') return;
      try {
        await client.tokenRevocation(config, token);
      } catch (err) {
        // A token Intuit no longer knows is as revoked as it gets.
        if (err instanceof client.ResponseBodyError && (err.error === 'invalid_token' || err.error === 'invalid_grant')) return;
        oauthFailure(err, 'token revocation', [token, clientSecret]);
      }
    },

    async companyInfo(s): Promise<LedgerCompany> {
      const info = entityOf(await api(s, 'GET', `/companyinfo/${encodeURIComponent(s.realmId)}`), 'CompanyInfo');
      let currency: string | null = null;
      try {
        const prefs = entityOf(await api(s, 'GET', '/preferences'), 'Preferences');
        currency = isObject(prefs.CurrencyPrefs) ? currencyOf(prefs.CurrencyPrefs.HomeCurrency) : null;
      } catch (err) {
        // The company is known without its currency; only a refusal of the tokens or an outage is worth failing for.
        if (!(err instanceof LedgerProviderError) || !['not_found', 'rejected', 'invalid_response'].includes(err.reason)) throw err;
      }
      return {
        realmId: s.realmId,
        name: text(info.CompanyName, 500) ?? text(info.LegalName, 500) ?? `Company ${s.realmId}`,
        country: text(info.Country, 64),
        currency,
      };
    },

    listAccounts: (s) => nameList(s, 'Account', toAccount),
    listItems: (s) => nameList(s, 'Item', toItem),
    listTaxCodes: (s) => nameList(s, 'TaxCode', toTaxCode),
    listTerms: (s) => nameList(s, 'Term', toTerm),
    listPaymentMethods: (s) => nameList(s, 'PaymentMethod', toPaymentMethod),
    listCustomers: (s) => nameList(s, 'Customer', toCustomer),

    async getCustomer(s, id) {
      return must(toCustomer(entityOf(await api(s, 'GET', `/customer/${checkId(id, 'customer')}`), 'Customer')), 'a customer');
    },

    async createCustomer(s, input, requestId) {
      const body = await api(s, 'POST', '/customer', requestParams(requestId), customerBody(input, false));
      return must(toCustomer(entityOf(body, 'Customer')), 'a customer');
    },

    async updateCustomer(s, id, version, input, requestId) {
      const payload = { ...customerBody(input, true), Id: checkId(id, 'customer'), SyncToken: version, sparse: true };
      const body = await api(s, 'POST', '/customer', requestParams(requestId), payload);
      return must(toCustomer(entityOf(body, 'Customer')), 'a customer');
    },

    async createItem(s, input, requestId) {
      const payload: Json = { Name: input.name, Type: 'Service', IncomeAccountRef: { value: input.incomeAccountId } };
      if (input.description) payload.Description = input.description;
      const body = await api(s, 'POST', '/item', requestParams(requestId), payload);
      return must(toItem(entityOf(body, 'Item')), 'an item');
    },

    async getInvoice(s, id) {
      return toInvoice(entityOf(await api(s, 'GET', `/invoice/${checkId(id, 'invoice')}`), 'Invoice'));
    },

    async listInvoices(s, range) {
      return (await queryAll(s, 'Invoice', rangeWhere(range))).map(toInvoice);
    },

    async createInvoice(s, input, requestId) {
      const body = await api(s, 'POST', '/invoice', requestParams(requestId), invoiceBody(input));
      return toInvoice(entityOf(body, 'Invoice'));
    },

    async updateInvoice(s, id, version, input, requestId) {
      // Sparse: the fields sent replace theirs (Line as a whole); what was set in QuickBooks and not sent stays.
      const payload = { ...invoiceBody(input), Id: checkId(id, 'invoice'), SyncToken: version, sparse: true };
      const body = await api(s, 'POST', '/invoice', requestParams(requestId), payload);
      return toInvoice(entityOf(body, 'Invoice'));
    },

    async voidInvoice(s, id, version, requestId) {
      const body = await api(s, 'POST', '/invoice', { ...requestParams(requestId), operation: 'void' }, { Id: checkId(id, 'invoice'), SyncToken: version });
      return toInvoice(entityOf(body, 'Invoice'));
    },

    async getPayment(s, id) {
      return toPayment(entityOf(await api(s, 'GET', `/payment/${checkId(id, 'payment')}`), 'Payment'));
    },

    async listPayments(s, range) {
      return (await queryAll(s, 'Payment', rangeWhere(range))).map(toPayment);
    },

    async changesSince(s, since) {
      if (!(since instanceof Date) || Number.isNaN(since.getTime())) throw new LedgerProviderError('rejected', 'The change capture needs a valid start time');
      // Whole seconds, rounded down: asking from a little earlier only repeats changes already seen.
      const changedSince = since.toISOString().replace(/\.\d{3}Z$/, 'Z');
      const body = await api(s, 'GET', '/cdc', { entities: 'Customer,Invoice,Payment', changedSince });
      if (!Array.isArray(body.CDCResponse)) throw invalid('no CDCResponse');
      const changes: LedgerChanges = { customers: [], invoices: [], payments: [], deleted: [] };
      let objects = 0;
      const kinds = { Customer: 'customer', Invoice: 'invoice', Payment: 'payment' } as const;
      for (const cdc of body.CDCResponse.filter(isObject)) {
        const groups = Array.isArray(cdc.QueryResponse) ? cdc.QueryResponse.filter(isObject) : [];
        for (const group of groups) {
          for (const entity of ['Customer', 'Invoice', 'Payment'] as const) {
            const list = group[entity];
            if (list === undefined) continue;
            if (!Array.isArray(list)) throw invalid(`CDC ${entity} is not a list`);
            for (const rec of list.filter(isObject)) {
              objects++;
              if (typeof rec.status === 'string' && /^deleted$/i.test(rec.status)) {
                const id = idOf(rec.Id);
                if (id) changes.deleted.push({ entity: kinds[entity], id });
                continue;
              }
              if (entity === 'Customer') {
                const c = toCustomer(rec);
                if (c) changes.customers.push(c);
              } else if (entity === 'Invoice') changes.invoices.push(toInvoice(rec));
              else changes.payments.push(toPayment(rec));
            }
          }
        }
      }
      if (objects >= QBO_CDC_LIMIT) changes.truncated = true;
      return changes;
    },

    usage(realmId): LedgerUsage {
      const u = usageByRealm.get(realmId);
      if (!u) return { limitPerMinute: QBO_LIMIT_PER_MINUTE, callsLastMinute: 0, throttledLastHour: 0, lastThrottledAt: null };
      prune(u, now().getTime());
      return {
        limitPerMinute: QBO_LIMIT_PER_MINUTE,
        callsLastMinute: u.calls.length,
        throttledLastHour: u.throttles.length,
        lastThrottledAt: u.lastThrottledAt === null ? null : new Date(u.lastThrottledAt).toISOString(),
      };
    },
  };
}
