import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local stand-in for QuickBooks Online that speaks its wire format (see the facts quoted in
 * src/modules/ledger/providers/quickbooks.ts): Intuit's OAuth 2 endpoints (authorize, token, revoke) and the
 * Accounting API v3 (query language, reads by id, creates and updates with SyncToken and requestid, change data
 * capture, Fault bodies) under one base URL. Tests seed companies (realms), read what it received, edit records "as
 * if in QuickBooks", and make it throttle or fail on demand.
 */

export type QboEntity = 'Account' | 'Item' | 'TaxCode' | 'Term' | 'PaymentMethod' | 'Customer' | 'Invoice' | 'Payment';
export const QBO_ENTITIES: readonly QboEntity[] = ['Account', 'Item', 'TaxCode', 'Term', 'PaymentMethod', 'Customer', 'Invoice', 'Payment'];
/** Name lists answer only active rows unless the query filters on Active. */
const NAME_LISTS: ReadonlySet<QboEntity> = new Set(['Account', 'Item', 'TaxCode', 'Term', 'PaymentMethod', 'Customer']);
/** What POST /v3/company/{realm}/{resource} may create or update here. */
const WRITABLE: ReadonlySet<QboEntity> = new Set(['Customer', 'Item', 'Invoice', 'Payment']);

export type QboRecord = Record<string, unknown> & { Id: string; SyncToken: string };

export interface FakeRealm {
  realmId: string;
  companyName: string;
  country: string;
  homeCurrency: string;
  records: Record<QboEntity, Map<string, QboRecord>>;
  /** Deleted records, as change data capture reports them. */
  deleted: { entity: QboEntity; Id: string; at: string }[];
  nextId: number;
  nextDocNumber: number;
}

export interface ReceivedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  body: unknown;
  /** The Authorization header as sent. */
  auth: string | undefined;
  contentType: string | undefined;
}

export interface FailureOptions {
  /** Raw body (a string is sent as is, anything else as JSON); default a SystemFault / server_error body. */
  body?: unknown;
  contentType?: string;
  /** `api` (default): the v3 API; `oauth`: the token and revoke endpoints. */
  scope?: 'api' | 'oauth';
  retryAfterSeconds?: number;
  /** Wait this long before answering (a slow server). */
  delayMs?: number;
}

export interface FakeQuickBooksOptions {
  clientId?: string;
  clientSecret?: string;
  /** Accepted redirect URIs; default any absolute http(s) URL. */
  redirectUris?: string[];
  /** The company a consenting user picks at /connect/oauth2 (default 9130350000000001). */
  realmId?: string;
  accessTokenTtlSeconds?: number;
  refreshTokenTtlSeconds?: number;
  /** Whether a refresh hands out a new refresh token and retires the old one (default true). */
  rotateRefreshTokens?: boolean;
  /** The clock for MetaData times and token expiry (default the real one). */
  now?: () => Date;
}

export interface FakeQuickBooks {
  /** Base URL of everything; equal to apiBaseUrl. */
  url: string;
  apiBaseUrl: string;
  authorizeUrl: string;
  tokenUrl: string;
  revokeUrl: string;
  clientId: string;
  clientSecret: string;
  /** The default company. */
  realmId: string;
  received: ReceivedRequest[];
  /** What the user does at the authorize page: consent for this realm, or deny. */
  consent: { realmId: string; deny: boolean };
  /** The company (created with default seeds on first use). */
  realm(realmId?: string): FakeRealm;
  /** Adds a record (Id assigned unless given; SyncToken "0"); invoices and payments get totals computed. */
  seed(realmId: string, entity: QboEntity, record: Record<string, unknown>): QboRecord;
  /** Adds `count` customers named `${prefix} N`. */
  seedCustomers(realmId: string, count: number, prefix?: string): void;
  get(realmId: string, entity: QboEntity, id: string): QboRecord | undefined;
  list(realmId: string, entity: QboEntity): QboRecord[];
  /** Changes a record as a person in QuickBooks would: new SyncToken and LastUpdatedTime; invoice totals recomputed. */
  edit(realmId: string, entity: QboEntity, id: string, patch: Record<string, unknown>): QboRecord;
  /** Deletes a record (it then appears in change data capture as Deleted). */
  remove(realmId: string, entity: QboEntity, id: string): void;
  /** Voids an invoice the way QuickBooks does: amounts zeroed, "Voided" in PrivateNote. */
  voidInvoice(realmId: string, id: string): QboRecord;
  /** An authorization code as the authorize page would hand out. */
  issueCode(realmId: string, redirectUri: string): string;
  /** A token pair for a realm without the browser dance. */
  issueTokens(realmId?: string): { accessToken: string; refreshToken: string };
  expireAccessTokens(): void;
  /** Every access token issued so far expires once n more API calls have been answered (a token lapsing mid-sync). */
  expireAccessTokensAfter(n: number): void;
  expireRefreshTokens(): void;
  revokeAll(): void;
  /** The next n API calls answer 429 ThrottleExceeded (with Retry-After when given). */
  throttleNext(n: number, retryAfterSeconds?: number): void;
  /** The next n calls (API by default) answer `status` with a Fault body or the given one. */
  failNext(n: number, status: number, opts?: FailureOptions): void;
  /** The next n creates or updates are written, then answered with `status` (default 500): the answer is lost. */
  failAfterCreate(n: number, status?: number): void;
  /** Forgets received requests and pending failures. */
  clear(): void;
  close(): Promise<void>;
}

type Json = Record<string, unknown>;

interface Grant {
  realmId: string;
  refreshToken: string;
  refreshExpiresAt: number;
}

interface AccessToken {
  grant: Grant;
  expiresAt: number;
}

interface Code {
  realmId: string;
  redirectUri: string;
  clientId: string;
  expiresAt: number;
  used: boolean;
}

interface PendingFailure {
  scope: 'api' | 'oauth';
  status: number;
  body?: unknown;
  contentType?: string;
  retryAfterSeconds?: number;
  delayMs?: number;
  remaining: number;
}

class QboFault extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly faultMessage: string,
    readonly detail: string,
    readonly type = 'ValidationFault',
    readonly element?: string,
  ) {
    super(faultMessage);
  }
}

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const token = (prefix: string) => `${prefix}${randomBytes(24).toString('hex')}`;
const clone = <T>(v: T): T => structuredClone(v);

/** QuickBooks writes times in the company's zone with an offset; the fake uses Pacific daylight time. */
function qboTime(d: Date): string {
  return new Date(d.getTime() - 7 * 3600_000).toISOString().replace(/\.\d{3}Z$/, '-07:00');
}

const money = (n: number) => Math.round(n * 100) / 100;
const ymd = (d: Date) => d.toISOString().slice(0, 10);

const fault = (status: number, code: string, message: string, detail: string, type = 'ValidationFault', element?: string) =>
  new QboFault(status, code, message, detail, type, element);
const notFound = (what: string) =>
  fault(400, '610', 'Object Not Found', `Object Not Found : Something you're trying to use has been made inactive. Check the fields with accounts, customers, items, vendors or employees. (${what})`);
const invalidRef = (what: string) => fault(400, '2500', 'Invalid Reference Id', `Invalid Reference Id : ${what} assigned to this transaction has been deleted. Before you can modify this transaction, you must restore ${what}.`);
const required = (field: string) => fault(400, '2020', 'Required param missing, need to supply the required value for the API', `Required parameter ${field} is missing in the request`, 'ValidationFault', field);
const stale = () =>
  fault(400, '5010', 'Stale Object Error', 'Stale Object Error : You and QuickBooks were working on this at the same time. QuickBooks finished before you did, so your work was not saved.', 'ValidationFault', 'SyncToken');

// ------------------------------------------------------------------------------------------------ query language

type Value = string | number | boolean;
interface Cond {
  field: string;
  op: '=' | '!=' | '<' | '>' | '<=' | '>=' | 'in' | 'like';
  values: Value[];
}
interface Query {
  entity: QboEntity;
  count: boolean;
  where: Cond[];
  orderBy: { field: string; desc: boolean }[];
  start: number;
  max: number;
}

const TOKEN_RE = /\s*(?:'((?:\\.|[^'\\])*)'|(>=|<=|!=|<>|[=<>(),*])|(-?\d+(?:\.\d+)?)(?![\w.])|([A-Za-z_][\w.]*))/y;

function tokenize(q: string): { kind: 'str' | 'op' | 'num' | 'word'; v: string }[] {
  const out: { kind: 'str' | 'op' | 'num' | 'word'; v: string }[] = [];
  TOKEN_RE.lastIndex = 0;
  let pos = 0;
  while (pos < q.length) {
    if (/^\s*$/.test(q.slice(pos))) break;
    TOKEN_RE.lastIndex = pos;
    const m = TOKEN_RE.exec(q);
    if (!m) throw parseError(q.slice(pos, pos + 20));
    pos = TOKEN_RE.lastIndex;
    if (m[1] !== undefined) out.push({ kind: 'str', v: m[1].replace(/\\(.)/g, '$1') });
    else if (m[2] !== undefined) out.push({ kind: 'op', v: m[2] === '<>' ? '!=' : m[2] });
    else if (m[3] !== undefined) out.push({ kind: 'num', v: m[3] });
    else out.push({ kind: 'word', v: m[4]! });
  }
  return out;
}

const parseError = (near: string) => fault(400, '4000', 'Error parsing query', `QueryParserError: Encountered "${near}" at line 1.`);

export function parseQuery(q: string): Query {
  const t = tokenize(q);
  let i = 0;
  const peek = () => t[i];
  const word = (w: string) => peek()?.kind === 'word' && peek()!.v.toLowerCase() === w;
  const expectWord = (w: string) => {
    if (!word(w)) throw parseError(peek()?.v ?? '<EOF>');
    i++;
  };
  const expectOp = (o: string) => {
    if (peek()?.kind !== 'op' || peek()!.v !== o) throw parseError(peek()?.v ?? '<EOF>');
    i++;
  };
  const value = (): Value => {
    const tok = t[i++];
    if (!tok) throw parseError('<EOF>');
    if (tok.kind === 'str') return tok.v;
    if (tok.kind === 'num') return Number(tok.v);
    if (tok.kind === 'word' && /^(true|false)$/i.test(tok.v)) return tok.v.toLowerCase() === 'true';
    throw parseError(tok.v);
  };

  expectWord('select');
  let count = false;
  if (peek()?.kind === 'op' && peek()!.v === '*') i++;
  else if (word('count')) {
    i++;
    expectOp('(');
    expectOp('*');
    expectOp(')');
    count = true;
  } else {
    // A field list: the fake answers whole records anyway.
    do {
      if (peek()?.kind !== 'word') throw parseError(peek()?.v ?? '<EOF>');
      i++;
    } while (peek()?.kind === 'op' && peek()!.v === ',' && ++i);
  }
  expectWord('from');
  const name = peek()?.kind === 'word' ? peek()!.v : '';
  const entity = QBO_ENTITIES.find((e) => e.toLowerCase() === name.toLowerCase());
  if (!entity) throw fault(400, '4001', 'Invalid query', `QueryValidationError: value ${name || '<EOF>'} is not a valid entity for this query`);
  i++;

  const where: Cond[] = [];
  if (word('where')) {
    i++;
    do {
      const f = peek();
      if (f?.kind !== 'word') throw parseError(f?.v ?? '<EOF>');
      i++;
      const op = peek();
      if (op?.kind === 'word' && /^in$/i.test(op.v)) {
        i++;
        expectOp('(');
        const values = [value()];
        while (peek()?.kind === 'op' && peek()!.v === ',') {
          i++;
          values.push(value());
        }
        expectOp(')');
        where.push({ field: f.v, op: 'in', values });
      } else if (op?.kind === 'word' && /^like$/i.test(op.v)) {
        i++;
        where.push({ field: f.v, op: 'like', values: [value()] });
      } else if (op?.kind === 'op' && ['=', '!=', '<', '>', '<=', '>='].includes(op.v)) {
        i++;
        where.push({ field: f.v, op: op.v as Cond['op'], values: [value()] });
      } else {
        throw parseError(op?.v ?? '<EOF>');
      }
    } while (word('and') && ++i);
  }

  const orderBy: Query['orderBy'] = [];
  let start = 1;
  let max = 100;
  while (i < t.length) {
    if (word('orderby') || word('order')) {
      if (word('order')) {
        i++;
        expectWord('by');
      } else i++;
      do {
        const f = peek();
        if (f?.kind !== 'word') throw parseError(f?.v ?? '<EOF>');
        i++;
        let desc = false;
        if (word('desc') || word('asc')) desc = t[i++]!.v.toLowerCase() === 'desc';
        orderBy.push({ field: f.v, desc });
      } while (peek()?.kind === 'op' && peek()!.v === ',' && ++i);
    } else if (word('startposition')) {
      i++;
      const v = value();
      if (typeof v !== 'number' || v < 1) throw parseError(String(v));
      start = Math.trunc(v);
    } else if (word('maxresults')) {
      i++;
      const v = value();
      if (typeof v !== 'number' || v < 0) throw parseError(String(v));
      max = Math.min(1000, Math.trunc(v));
    } else {
      throw parseError(peek()!.v);
    }
  }
  return { entity, count, where, orderBy, start, max };
}

function fieldOf(rec: Json, path: string): unknown {
  let v: unknown = rec;
  for (const part of path.split('.')) {
    if (!isObject(v)) return undefined;
    const key = Object.keys(v).find((k) => k.toLowerCase() === part.toLowerCase());
    v = key === undefined ? undefined : v[key];
  }
  // A reference compares by its value (CustomerRef = '58').
  return isObject(v) && 'value' in v ? v.value : v;
}

function compare(a: unknown, b: Value): number | null {
  if (a === undefined || a === null) return null;
  if (typeof a === 'boolean') return a === (b === true || b === 'true') ? 0 : 1;
  if (typeof a === 'number') {
    const n = Number(b);
    return Number.isNaN(n) ? null : a - n;
  }
  const s = String(a);
  const bs = String(b);
  if (/^\d+$/.test(s) && /^\d+$/.test(bs)) return Number(s) - Number(bs);
  if (/T\d{2}:/.test(s) && !Number.isNaN(Date.parse(s)) && !Number.isNaN(Date.parse(bs))) return Date.parse(s) - Date.parse(bs);
  return s.toLowerCase() < bs.toLowerCase() ? -1 : s.toLowerCase() > bs.toLowerCase() ? 1 : 0;
}

function matches(rec: Json, c: Cond): boolean {
  const v = fieldOf(rec, c.field);
  switch (c.op) {
    case 'in':
      return c.values.some((x) => compare(v, x) === 0);
    case 'like': {
      const pattern = String(c.values[0]).replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/%/g, '.*');
      return typeof v === 'string' && new RegExp(`^${pattern}$`, 'i').test(v);
    }
    default: {
      const d = compare(v, c.values[0]!);
      if (d === null) return false;
      return { '=': d === 0, '!=': d !== 0, '<': d < 0, '>': d > 0, '<=': d <= 0, '>=': d >= 0 }[c.op];
    }
  }
}

// ------------------------------------------------------------------------------------------------ the server

async function readBody(req: IncomingMessage): Promise<{ raw: string; parsed: unknown }> {
  const chunks: Buffer[] = [];
  for await (const c of req as AsyncIterable<Buffer>) chunks.push(c);
  const raw = Buffer.concat(chunks).toString('utf8');
  if (!raw) return { raw, parsed: undefined };
  const type = req.headers['content-type'] ?? '';
  if (type.includes('application/x-www-form-urlencoded')) return { raw, parsed: Object.fromEntries(new URLSearchParams(raw)) };
  try {
    return { raw, parsed: JSON.parse(raw) };
  } catch {
    return { raw, parsed: raw };
  }
}

const formDecode = (s: string) => decodeURIComponent(s.replace(/\+/g, ' '));

export async function startFakeQuickBooks(opts: FakeQuickBooksOptions = {}): Promise<FakeQuickBooks> {
  const clientId = opts.clientId ?? 'ABfakeQuickBooksClientId0123456789abcdefGH';
  const clientSecret = opts.clientSecret ?? 'fakeQuickBooksClientSecret0123456789abcd';
  const defaultRealm = opts.realmId ?? '9130350000000001';
  const accessTtl = opts.accessTokenTtlSeconds ?? 3600;
  const refreshTtl = opts.refreshTokenTtlSeconds ?? 8_726_400;
  const rotate = opts.rotateRefreshTokens ?? true;
  const now = opts.now ?? (() => new Date());

  const realms = new Map<string, FakeRealm>();
  const codes = new Map<string, Code>();
  const accessTokens = new Map<string, AccessToken>();
  const refreshTokens = new Map<string, Grant>();
  const idempotent = new Map<string, { status: number; body: unknown }>();
  const received: ReceivedRequest[] = [];
  let failures: PendingFailure[] = [];
  let failAfterWrite: { remaining: number; status: number } | null = null;
  const consent = { realmId: defaultRealm, deny: false };
  let expireAfter: number | null = null;

  // -------------------------------------------------------------------------------------------- data
  function stamp(rec: Json, created: boolean) {
    const t = qboTime(now());
    const meta = isObject(rec.MetaData) ? rec.MetaData : {};
    rec.MetaData = { CreateTime: created || !meta.CreateTime ? t : meta.CreateTime, LastUpdatedTime: t };
  }

  function realm(realmId = defaultRealm): FakeRealm {
    let r = realms.get(realmId);
    if (r) return r;
    r = {
      realmId,
      companyName: realmId === defaultRealm ? 'Sandbox Company_US_1' : `Sandbox Company ${realmId}`,
      country: 'US',
      homeCurrency: 'USD',
      records: Object.fromEntries(QBO_ENTITIES.map((e) => [e, new Map<string, QboRecord>()])) as FakeRealm['records'],
      deleted: [],
      nextId: 1,
      nextDocNumber: 1001,
    };
    realms.set(realmId, r);
    seedDefaults(r);
    return r;
  }

  function put(r: FakeRealm, entity: QboEntity, rec: Json): QboRecord {
    const id = typeof rec.Id === 'string' && rec.Id ? rec.Id : String(r.nextId++);
    if (/^\d+$/.test(id)) r.nextId = Math.max(r.nextId, Number(id) + 1);
    const full = { domain: 'QBO', sparse: false, ...rec, Id: id, SyncToken: typeof rec.SyncToken === 'string' ? rec.SyncToken : '0' } as QboRecord;
    if (!isObject(full.MetaData)) stamp(full, true);
    r.records[entity].set(id, full);
    return full;
  }

  function seedDefaults(r: FakeRealm) {
    const account = (Id: string, Name: string, AccountType: string, AccountSubType: string, Classification: string, extra: Json = {}) =>
      put(r, 'Account', {
        Id, Name, FullyQualifiedName: Name, AccountType, AccountSubType, Classification, Active: true, SubAccount: false,
        CurrentBalance: 0, CurrentBalanceWithSubAccounts: 0, CurrencyRef: { value: r.homeCurrency, name: 'United States Dollar' }, ...extra,
      });
    account('1', 'Services', 'Income', 'ServiceFeeIncome', 'Revenue');
    account('2', 'Sales of Product Income', 'Income', 'SalesOfProductIncome', 'Revenue');
    account('3', 'Consulting', 'Income', 'ServiceFeeIncome', 'Revenue', { FullyQualifiedName: 'Services:Consulting', SubAccount: true, ParentRef: { value: '1' } });
    account('4', 'Accounts Receivable (A/R)', 'Accounts Receivable', 'AccountsReceivable', 'Asset');
    account('5', 'Undeposited Funds', 'Other Current Asset', 'UndepositedFunds', 'Asset');
    account('6', 'Old Income', 'Income', 'OtherPrimaryIncome', 'Revenue', { Active: false });
    put(r, 'Item', { Id: '7', Name: 'Services', FullyQualifiedName: 'Services', Type: 'Service', Active: true, Taxable: false, UnitPrice: 0, IncomeAccountRef: { value: '1', name: 'Services' } });
    put(r, 'Item', { Id: '8', Name: 'Hours', FullyQualifiedName: 'Hours', Type: 'Service', Active: true, Taxable: false, UnitPrice: 150, Description: 'Hourly work', IncomeAccountRef: { value: '1', name: 'Services' } });
    put(r, 'TaxCode', { Id: 'TAX', Name: 'TAX', Description: 'TAX', Active: true, Taxable: true, TaxGroup: false });
    put(r, 'TaxCode', { Id: 'NON', Name: 'NON', Description: 'NON', Active: true, Taxable: false, TaxGroup: false });
    put(r, 'Term', { Id: '9', Name: 'Net 30', Type: 'STANDARD', DueDays: 30, DiscountDays: 0, Active: true });
    put(r, 'Term', { Id: '10', Name: 'Due on receipt', Type: 'STANDARD', DueDays: 0, Active: true });
    put(r, 'Term', { Id: '11', Name: 'Net 15', Type: 'STANDARD', DueDays: 15, Active: true });
    put(r, 'PaymentMethod', { Id: '12', Name: 'Cash', Type: 'NON_CREDIT_CARD', Active: true });
    put(r, 'PaymentMethod', { Id: '13', Name: 'Check', Type: 'NON_CREDIT_CARD', Active: true });
    put(r, 'PaymentMethod', { Id: '14', Name: 'Visa', Type: 'CREDIT_CARD', Active: true });
  }

  const currencyRef = (r: FakeRealm, v: unknown) => {
    const code = isObject(v) && typeof v.value === 'string' ? v.value : r.homeCurrency;
    return { value: code, name: code === 'USD' ? 'United States Dollar' : code };
  };

  /** What has been applied to an invoice by payments. */
  function applied(r: FakeRealm, invoiceId: string): number {
    let sum = 0;
    for (const p of r.records.Payment.values()) {
      for (const line of Array.isArray(p.Line) ? p.Line.filter(isObject) : []) {
        const linked = Array.isArray(line.LinkedTxn) ? line.LinkedTxn.filter(isObject) : [];
        if (linked.some((t) => t.TxnType === 'Invoice' && t.TxnId === invoiceId)) sum += typeof line.Amount === 'number' ? line.Amount : 0;
      }
    }
    return money(sum);
  }

  function view(r: FakeRealm, entity: QboEntity, rec: QboRecord): QboRecord {
    const out = clone(rec);
    if (entity === 'Invoice') out.Balance = money((typeof rec.TotalAmt === 'number' ? rec.TotalAmt : 0) - applied(r, rec.Id));
    if (entity === 'Customer') {
      let balance = 0;
      for (const inv of r.records.Invoice.values()) {
        if (isObject(inv.CustomerRef) && inv.CustomerRef.value === rec.Id) balance += typeof inv.TotalAmt === 'number' ? inv.TotalAmt - applied(r, inv.Id) : 0;
      }
      out.Balance = money(balance);
    }
    return out;
  }

  /** Normalises invoice lines: Ids and numbers, sales lines only from the input, the subtotal line added. */
  function invoiceLines(r: FakeRealm, lines: unknown, voided = false): { lines: Json[]; total: number } {
    if (!Array.isArray(lines) || lines.length === 0) throw required('Line');
    const out: Json[] = [];
    let total = 0;
    let n = 0;
    for (const raw of lines) {
      if (!isObject(raw) || raw.DetailType === 'SubTotalLineDetail') continue;
      if (raw.DetailType !== 'SalesItemLineDetail') throw fault(400, '2020', 'Required param missing, need to supply the required value for the API', 'Required parameter Line.DetailType is missing or not supported', 'ValidationFault', 'Line.DetailType');
      if (typeof raw.Amount !== 'number' || !Number.isFinite(raw.Amount)) throw required('Line.Amount');
      const d = isObject(raw.SalesItemLineDetail) ? clone(raw.SalesItemLineDetail) : {};
      const itemId = isObject(d.ItemRef) ? d.ItemRef.value : undefined;
      const item = typeof itemId === 'string' ? r.records.Item.get(itemId) : undefined;
      if (!item) throw invalidRef('An item');
      d.ItemRef = { value: item.Id, name: item.Name };
      if (isObject(d.TaxCodeRef) && !r.records.TaxCode.has(String(d.TaxCodeRef.value))) throw invalidRef('A tax code');
      const amount = voided ? 0 : money(raw.Amount);
      if (voided) {
        d.Qty = 0;
        d.UnitPrice = 0;
      }
      n++;
      out.push({ Id: String(n), LineNum: n, Description: raw.Description, Amount: amount, DetailType: 'SalesItemLineDetail', SalesItemLineDetail: d });
      total += amount;
    }
    if (n === 0) throw required('Line');
    out.push({ Amount: money(total), DetailType: 'SubTotalLineDetail', SubTotalLineDetail: {} });
    return { lines: out, total: money(total) };
  }

  function checkCustomerName(r: FakeRealm, name: unknown, selfId?: string) {
    if (typeof name !== 'string' || name.trim() === '') throw required('DisplayName');
    for (const c of r.records.Customer.values()) {
      if (c.Id !== selfId && typeof c.DisplayName === 'string' && c.DisplayName.toLowerCase() === name.trim().toLowerCase()) {
        throw fault(400, '6240', 'Duplicate Name Exists Error', `The name supplied already exists. : Another customer, vendor or employee is already using this name. Please use a different name. (Id=${c.Id})`);
      }
    }
  }

  function customerOf(r: FakeRealm, ref: unknown): QboRecord {
    const id = isObject(ref) ? ref.value : undefined;
    const c = typeof id === 'string' ? r.records.Customer.get(id) : undefined;
    if (!c) throw invalidRef('A customer');
    if (c.Active === false) throw notFound(`Customer ${c.Id} is inactive`);
    return c;
  }

  /** Fills a create or full-update body into a stored record (existing: the stored one for an update). */
  function build(r: FakeRealm, entity: QboEntity, body: Json, existing?: QboRecord): Json {
    const sparse = existing !== undefined && body.sparse === true;
    const base: Json = sparse ? clone(existing) : {};
    for (const [k, v] of Object.entries(body)) if (k !== 'sparse' && k !== 'MetaData' && k !== 'domain') base[k] = clone(v);
    if (existing) {
      base.Id = existing.Id;
      base.MetaData = clone(existing.MetaData);
    }
    switch (entity) {
      case 'Customer': {
        checkCustomerName(r, base.DisplayName, existing?.Id);
        base.DisplayName = String(base.DisplayName).trim();
        base.FullyQualifiedName = base.DisplayName;
        base.PrintOnCheckName = base.CompanyName ?? base.DisplayName;
        for (const [key, field] of [['PrimaryEmailAddr', 'Address'], ['PrimaryPhone', 'FreeFormNumber']] as const) {
          const v = base[key];
          if (isObject(v) && (v[field] === '' || v[field] === null)) delete base[key];
        }
        if (base.CompanyName === '' || base.CompanyName === null) delete base.CompanyName;
        base.Active = base.Active !== false;
        base.Job = false;
        base.CurrencyRef = currencyRef(r, base.CurrencyRef);
        break;
      }
      case 'Item': {
        if (typeof base.Name !== 'string' || base.Name.trim() === '') throw required('Name');
        for (const i of r.records.Item.values()) {
          if (i.Id !== existing?.Id && typeof i.Name === 'string' && i.Name.toLowerCase() === base.Name.trim().toLowerCase()) {
            throw fault(400, '6240', 'Duplicate Name Exists Error', 'The name supplied already exists. : Another product or service is already using this name. Please use a different name.');
          }
        }
        const accountId = isObject(base.IncomeAccountRef) ? base.IncomeAccountRef.value : undefined;
        const account = typeof accountId === 'string' ? r.records.Account.get(accountId) : undefined;
        if (!account) throw invalidRef('An account');
        base.IncomeAccountRef = { value: account.Id, name: account.Name };
        base.Name = base.Name.trim();
        base.FullyQualifiedName = base.Name;
        base.Type = typeof base.Type === 'string' ? base.Type : 'Service';
        base.Active = base.Active !== false;
        base.UnitPrice = typeof base.UnitPrice === 'number' ? base.UnitPrice : 0;
        break;
      }
      case 'Invoice': {
        const customer = customerOf(r, base.CustomerRef);
        base.CustomerRef = { value: customer.Id, name: customer.DisplayName };
        const voided = typeof base.PrivateNote === 'string' && /^Voided\b/.test(base.PrivateNote) && existing?.TotalAmt === 0;
        const { lines, total } = invoiceLines(r, base.Line, voided);
        base.Line = lines;
        base.TotalAmt = total;
        if (typeof base.DocNumber !== 'string' || base.DocNumber === '') base.DocNumber = existing?.DocNumber ?? String(r.nextDocNumber++);
        base.TxnDate = typeof base.TxnDate === 'string' ? base.TxnDate : ymd(now());
        base.DueDate = typeof base.DueDate === 'string' ? base.DueDate : base.TxnDate;
        base.CurrencyRef = currencyRef(r, base.CurrencyRef);
        delete base.Balance;
        break;
      }
      case 'Payment': {
        const customer = customerOf(r, base.CustomerRef);
        base.CustomerRef = { value: customer.Id, name: customer.DisplayName };
        if (typeof base.TotalAmt !== 'number') throw required('TotalAmt');
        let linkedSum = 0;
        for (const line of Array.isArray(base.Line) ? base.Line.filter(isObject) : []) {
          for (const t of Array.isArray(line.LinkedTxn) ? line.LinkedTxn.filter(isObject) : []) {
            const inv = t.TxnType === 'Invoice' && typeof t.TxnId === 'string' ? r.records.Invoice.get(t.TxnId) : undefined;
            if (!inv || !isObject(inv.CustomerRef) || inv.CustomerRef.value !== customer.Id) throw invalidRef('An invoice');
          }
          linkedSum += typeof line.Amount === 'number' ? line.Amount : 0;
        }
        if (linkedSum > base.TotalAmt + 1e-9) throw fault(400, '6000', 'A business validation error has occurred while processing your request', 'Business Validation Error: The amount applied is more than the payment amount.');
        const total = money(base.TotalAmt);
        base.TotalAmt = total;
        base.UnappliedAmt = money(total - linkedSum);
        base.TxnDate = typeof base.TxnDate === 'string' ? base.TxnDate : ymd(now());
        base.CurrencyRef = currencyRef(r, base.CurrencyRef);
        break;
      }
      default:
        break;
    }
    return base;
  }

  function write(r: FakeRealm, entity: QboEntity, body: Json, operation: string | null): Json {
    const time = qboTime(now());
    if (operation === 'delete' || operation === 'void') {
      if (entity !== 'Invoice' && entity !== 'Payment') throw fault(400, '2010', 'Request has invalid or unsupported property', `Operation ${operation} is not supported for ${entity}`);
      const rec = typeof body.Id === 'string' ? r.records[entity].get(body.Id) : undefined;
      if (!rec) throw notFound(`${entity} ${String(body.Id)}`);
      if (body.SyncToken !== rec.SyncToken) throw stale();
      if (operation === 'delete') {
        removeRecord(r, entity, rec.Id);
        return { [entity]: { status: 'Deleted', domain: 'QBO', Id: rec.Id }, time };
      }
      return { [entity]: view(r, entity, voidRecord(r, entity, rec.Id)), time };
    }
    if (typeof body.Id === 'string' && body.Id !== '') {
      const existing = r.records[entity].get(body.Id);
      if (!existing) throw notFound(`${entity} ${body.Id}`);
      if (body.SyncToken !== existing.SyncToken) throw stale();
      const next = build(r, entity, body, existing);
      next.SyncToken = String(Number(existing.SyncToken) + 1);
      stamp(next, false);
      r.records[entity].set(existing.Id, next as QboRecord);
      return { [entity]: view(r, entity, next as QboRecord), time };
    }
    const rec = put(r, entity, { ...build(r, entity, body), Id: '', SyncToken: '0' });
    stamp(rec, true);
    return { [entity]: view(r, entity, rec), time };
  }

  function removeRecord(r: FakeRealm, entity: QboEntity, id: string) {
    if (!r.records[entity].delete(id)) throw new Error(`no ${entity} ${id} in realm ${r.realmId}`);
    r.deleted.push({ entity, Id: id, at: qboTime(now()) });
  }

  function voidRecord(r: FakeRealm, entity: QboEntity, id: string): QboRecord {
    const rec = r.records[entity].get(id);
    if (!rec) throw new Error(`no ${entity} ${id} in realm ${r.realmId}`);
    const next = clone(rec);
    next.PrivateNote = typeof rec.PrivateNote === 'string' && rec.PrivateNote ? `Voided - ${rec.PrivateNote}` : 'Voided';
    next.TotalAmt = 0;
    if (entity === 'Invoice') next.Line = invoiceLines(r, rec.Line, true).lines;
    else next.Line = [];
    next.SyncToken = String(Number(rec.SyncToken) + 1);
    stamp(next, false);
    r.records[entity].set(id, next);
    return next;
  }

  function runQuery(r: FakeRealm, q: string): Json {
    const parsed = parseQuery(q);
    let rows = [...r.records[parsed.entity].values()];
    if (NAME_LISTS.has(parsed.entity) && !parsed.where.some((c) => c.field.toLowerCase() === 'active')) rows = rows.filter((x) => x.Active !== false);
    rows = rows.filter((x) => parsed.where.every((c) => matches(x, c)));
    const order = parsed.orderBy.length ? parsed.orderBy : [{ field: 'Id', desc: false }];
    rows.sort((a, b) => {
      for (const o of order) {
        const av = fieldOf(a, o.field);
        const d = compare(av, (fieldOf(b, o.field) ?? '') as Value) ?? 0;
        if (d !== 0) return o.desc ? -d : d;
      }
      return 0;
    });
    const time = qboTime(now());
    if (parsed.count) return { QueryResponse: { totalCount: rows.length }, time };
    const page = rows.slice(parsed.start - 1, parsed.start - 1 + parsed.max).map((x) => view(r, parsed.entity, x));
    if (page.length === 0) return { QueryResponse: {}, time };
    return { QueryResponse: { [parsed.entity]: page, startPosition: parsed.start, maxResults: page.length }, time };
  }

  function cdc(r: FakeRealm, entities: string, changedSince: string): Json {
    const since = Date.parse(changedSince);
    if (!entities || Number.isNaN(since)) throw fault(400, '2020', 'Required param missing, need to supply the required value for the API', 'Required parameters entities and changedSince are missing or invalid');
    const groups: Json[] = [];
    let budget = 1000;
    for (const name of entities.split(',')) {
      const entity = QBO_ENTITIES.find((e) => e.toLowerCase() === name.trim().toLowerCase());
      if (!entity) throw fault(400, '4001', 'Invalid query', `QueryValidationError: value ${name} is not a valid entity for CDC`);
      const changed = [...r.records[entity].values()]
        .filter((x) => isObject(x.MetaData) && Date.parse(String(x.MetaData.LastUpdatedTime)) >= since)
        .sort((a, b) => Date.parse(String((a.MetaData as Json).LastUpdatedTime)) - Date.parse(String((b.MetaData as Json).LastUpdatedTime)))
        .map((x) => view(r, entity, x));
      const gone = r.deleted
        .filter((d) => d.entity === entity && Date.parse(d.at) >= since)
        .map((d) => ({ status: 'Deleted', domain: 'QBO', Id: d.Id, MetaData: { LastUpdatedTime: d.at } }));
      const all = [...changed, ...gone].slice(0, budget);
      budget -= all.length;
      groups.push(all.length ? { [entity]: all, startPosition: 1, maxResults: all.length } : { startPosition: 1, maxResults: 0 });
    }
    return { CDCResponse: [{ QueryResponse: groups }], time: qboTime(now()) };
  }

  // -------------------------------------------------------------------------------------------- tokens
  function issue(realmId: string, grant?: Grant): Json {
    const t = now().getTime();
    const g: Grant = grant ?? { realmId, refreshToken: '', refreshExpiresAt: 0 };
    if (!grant || rotate) {
      if (grant) refreshTokens.delete(grant.refreshToken);
      g.refreshToken = token('rt_');
      g.refreshExpiresAt = t + refreshTtl * 1000;
      refreshTokens.set(g.refreshToken, g);
    }
    const access = token('at_');
    accessTokens.set(access, { grant: g, expiresAt: t + accessTtl * 1000 });
    return {
      token_type: 'bearer',
      access_token: access,
      refresh_token: g.refreshToken,
      expires_in: accessTtl,
      x_refresh_token_expires_in: Math.max(0, Math.round((g.refreshExpiresAt - t) / 1000)),
    };
  }

  function revokeGrant(g: Grant) {
    refreshTokens.delete(g.refreshToken);
    for (const [k, v] of accessTokens) if (v.grant === g) accessTokens.delete(k);
  }

  function basicClient(req: IncomingMessage): boolean {
    const h = req.headers.authorization ?? '';
    const m = /^Basic\s+([A-Za-z0-9+/=]+)$/i.exec(h);
    if (!m) return false;
    const decoded = Buffer.from(m[1]!, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) return false;
    return formDecode(decoded.slice(0, colon)) === clientId && formDecode(decoded.slice(colon + 1)) === clientSecret;
  }

  // -------------------------------------------------------------------------------------------- HTTP
  const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    const raw = typeof body === 'string' ? body : JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json;charset=UTF-8', intuit_tid: randomBytes(8).toString('hex'), ...headers });
    res.end(raw);
  };
  const faultBody = (f: QboFault) => ({
    Fault: { Error: [{ Message: f.faultMessage, Detail: f.detail, code: f.code, ...(f.element ? { element: f.element } : {}) }], type: f.type },
    time: qboTime(now()),
  });
  /** A 401 as the live API sends it: the lower-case envelope of the SDK's IntuitResponse. */
  const authFailed = (detail: string) => ({
    warnings: null,
    intuitObject: null,
    fault: { error: [{ message: 'message=AuthenticationFailed; errorCode=003200; statusCode=401', detail, code: '3200', element: null }], type: 'AUTHENTICATION' },
    report: null,
    queryResponse: null,
    batchItemResponse: [],
    attachableResponse: [],
    syncErrorResponse: null,
    requestId: null,
    time: Date.now(),
    status: null,
    cdcresponse: [],
  });

  function takeFailure(scope: 'api' | 'oauth'): PendingFailure | undefined {
    const f = failures.find((x) => x.scope === scope);
    if (f && --f.remaining <= 0) failures = failures.filter((x) => x !== f);
    return f;
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://fake');
    const { parsed: body } = await readBody(req);
    const query = Object.fromEntries(url.searchParams);
    received.push({ method: req.method ?? '', path: url.pathname, query, body, auth: req.headers.authorization, contentType: req.headers['content-type'] });

    // ---------------------------------------------------------------- OAuth
    if (req.method === 'GET' && url.pathname === '/connect/oauth2') {
      const redirectUri = query.redirect_uri ?? '';
      let target: URL;
      try {
        target = new URL(redirectUri);
      } catch {
        res.writeHead(400, { 'content-type': 'text/html' });
        return void res.end('<h1>redirect_uri is not valid</h1>');
      }
      const allowed = opts.redirectUris ? opts.redirectUris.includes(redirectUri) : /^https?:$/.test(target.protocol);
      if (query.client_id !== clientId || !allowed) {
        res.writeHead(400, { 'content-type': 'text/html' });
        return void res.end('<h1>The client or redirect URI is not registered</h1>');
      }
      const error = (e: string) => {
        target.searchParams.set('error', e);
        if (query.state) target.searchParams.set('state', query.state);
        res.writeHead(302, { location: target.href });
        res.end();
      };
      if (query.response_type !== 'code' || !query.state) return error('invalid_request');
      if (!(query.scope ?? '').split(' ').includes('com.intuit.quickbooks.accounting')) return error('invalid_scope');
      if (consent.deny) return error('access_denied');
      target.searchParams.set('code', issueCode(consent.realmId, redirectUri));
      target.searchParams.set('state', query.state);
      target.searchParams.set('realmId', consent.realmId);
      res.writeHead(302, { location: target.href });
      return void res.end();
    }

    if (req.method === 'POST' && (url.pathname === '/oauth2/v1/tokens/bearer' || url.pathname === '/v2/oauth2/tokens/revoke')) {
      const f = takeFailure('oauth');
      if (f) {
        if (f.delayMs) await new Promise((resolve) => setTimeout(resolve, f.delayMs));
        return send(res, f.status, f.body ?? { error: 'server_error' }, f.contentType ? { 'content-type': f.contentType } : {});
      }
      if (!basicClient(req)) return send(res, 401, { error: 'invalid_client' });
      const b = isObject(body) ? body : {};
      if (url.pathname === '/v2/oauth2/tokens/revoke') {
        const t = typeof b.token === 'string' ? b.token : '';
        if (!t) return send(res, 400, { error: 'invalid_request' });
        const grant = refreshTokens.get(t) ?? accessTokens.get(t)?.grant;
        if (grant) revokeGrant(grant);
        res.writeHead(200);
        return void res.end();
      }
      const t = now().getTime();
      if (b.grant_type === 'authorization_code') {
        const code = typeof b.code === 'string' ? codes.get(b.code) : undefined;
        if (!code || code.used || code.expiresAt <= t || code.clientId !== clientId || code.redirectUri !== b.redirect_uri) {
          if (code) code.used = true;
          return send(res, 400, { error: 'invalid_grant' });
        }
        code.used = true;
        return send(res, 200, issue(code.realmId));
      }
      if (b.grant_type === 'refresh_token') {
        const grant = typeof b.refresh_token === 'string' ? refreshTokens.get(b.refresh_token) : undefined;
        if (!grant || grant.refreshExpiresAt <= t) return send(res, 400, { error: 'invalid_grant' });
        return send(res, 200, issue(grant.realmId, grant));
      }
      return send(res, 400, { error: 'unsupported_grant_type' });
    }

    // ---------------------------------------------------------------- Accounting API
    const m = /^\/v3\/company\/([^/]+)\/([a-z]+)(?:\/([^/]+))?$/.exec(url.pathname);
    if (!m) {
      res.writeHead(404, { 'content-type': 'text/html' });
      return void res.end('<h1>Not Found</h1>');
    }
    const f = takeFailure('api');
    if (f) {
      if (f.delayMs) await new Promise((resolve) => setTimeout(resolve, f.delayMs));
      const headers: Record<string, string> = {};
      if (f.contentType) headers['content-type'] = f.contentType;
      if (f.retryAfterSeconds !== undefined) headers['retry-after'] = String(f.retryAfterSeconds);
      const fallback =
        f.status === 429
          ? { Fault: { Error: [{ Message: 'ThrottleExceeded', Detail: 'ThrottleExceeded', code: '003001' }], type: 'ValidationFault' }, time: qboTime(now()) }
          : faultBody(fault(f.status, '10000', 'An application error has occurred while processing your request', 'System Failure Error: An unexpected error occurred while accessing or saving your data.', 'SystemFault'));
      return send(res, f.status, f.body ?? fallback, headers);
    }

    if (expireAfter !== null && expireAfter-- <= 0) {
      expireAfter = null;
      for (const t of accessTokens.values()) t.expiresAt = 0;
    }
    const realmId = decodeURIComponent(m[1]!);
    const bearer = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
    const access = bearer ? accessTokens.get(bearer) : undefined;
    if (!access) return send(res, 401, authFailed('Token revoked or unknown'));
    if (access.expiresAt <= now().getTime()) return send(res, 401, authFailed('Token expired: 0'));
    if (access.grant.realmId !== realmId) {
      return send(res, 403, faultBody(fault(403, '003100', 'message=ApplicationAuthorizationFailed; errorCode=003100; statusCode=403', 'The application is not authorized for this company', 'AuthorizationFault')));
    }
    if (!(req.headers.accept ?? '').includes('application/json')) {
      res.writeHead(200, { 'content-type': 'application/xml' });
      return void res.end('<?xml version="1.0" encoding="UTF-8" standalone="yes"?><IntuitResponse xmlns="http://schema.intuit.com/finance/v3"/>');
    }

    const r = realm(realmId);
    const resource = m[2]!;
    const id = m[3] === undefined ? undefined : decodeURIComponent(m[3]);
    const entity = QBO_ENTITIES.find((e) => e.toLowerCase() === resource);
    try {
      if (req.method === 'GET' && resource === 'query' && id === undefined) {
        if (!query.query) throw parseError('<EOF>');
        return send(res, 200, runQuery(r, query.query));
      }
      if (req.method === 'GET' && resource === 'cdc' && id === undefined) return send(res, 200, cdc(r, query.entities ?? '', query.changedSince ?? ''));
      if (req.method === 'GET' && resource === 'companyinfo') {
        if (id !== realmId) throw notFound(`CompanyInfo ${id ?? ''}`);
        return send(res, 200, {
          CompanyInfo: {
            Id: '1', SyncToken: '3', domain: 'QBO', sparse: false, CompanyName: r.companyName, LegalName: r.companyName, Country: r.country,
            SupportedLanguages: 'en', CompanyAddr: { Id: '1', Line1: '123 Sierra Way', City: 'San Pablo', CountrySubDivisionCode: 'CA', PostalCode: '87999' },
            FiscalYearStartMonth: 'January', NameValue: [{ Name: 'SubscriptionStatus', Value: 'PAID' }, { Name: 'OfferingSku', Value: 'QuickBooks Online Plus' }],
            MetaData: { CreateTime: '2024-01-10T09:00:00-08:00', LastUpdatedTime: '2024-01-10T09:00:00-08:00' },
          },
          time: qboTime(now()),
        });
      }
      if (req.method === 'GET' && resource === 'preferences' && id === undefined) {
        return send(res, 200, {
          Preferences: {
            Id: '1', SyncToken: '5', domain: 'QBO',
            CurrencyPrefs: { MultiCurrencyEnabled: false, HomeCurrency: { value: r.homeCurrency } },
            SalesFormsPrefs: { CustomTxnNumbers: false, DefaultTerms: { value: '9' } },
            TaxPrefs: { UsingSalesTax: true },
          },
          time: qboTime(now()),
        });
      }
      if (req.method === 'GET' && entity && id !== undefined) {
        const rec = r.records[entity].get(id);
        if (!rec) throw notFound(`${entity} ${id}`);
        return send(res, 200, { [entity]: view(r, entity, rec), time: qboTime(now()) });
      }
      if (req.method === 'POST' && entity && id === undefined) {
        if (!WRITABLE.has(entity)) throw fault(400, '2010', 'Request has invalid or unsupported property', `Create and update of ${entity} are not supported here`);
        if (!isObject(body)) throw fault(400, '2020', 'Request body is not valid JSON', 'Request body could not be parsed');
        const key = query.requestid ? `${realmId}\u0000${query.requestid}` : undefined;
        const replay = key ? idempotent.get(key) : undefined;
        if (replay) return send(res, replay.status, replay.body);
        const answer = write(r, entity, body, query.operation ?? null);
        if (key) idempotent.set(key, { status: 200, body: answer });
        if (failAfterWrite && failAfterWrite.remaining > 0) {
          const status = failAfterWrite.status;
          if (--failAfterWrite.remaining <= 0) failAfterWrite = null;
          return send(res, status, faultBody(fault(status, '10000', 'An application error has occurred while processing your request', 'System Failure Error: the response was lost', 'SystemFault')));
        }
        return send(res, 200, answer);
      }
      throw fault(400, '4000', 'Unsupported Operation', `Operation ${req.method} ${resource} is not supported.`);
    } catch (err) {
      if (err instanceof QboFault) return send(res, err.status, faultBody(err));
      throw err;
    }
  }

  function issueCode(realmId: string, redirectUri: string): string {
    realm(realmId);
    const code = token('AB11');
    codes.set(code, { realmId, redirectUri, clientId, expiresAt: now().getTime() + 5 * 60_000, used: false });
    return code;
  }

  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const base = `http://127.0.0.1:${port}`;
  realm(defaultRealm);

  const recordOf = (realmId: string, entity: QboEntity, id: string): QboRecord => {
    const rec = realm(realmId).records[entity].get(id);
    if (!rec) throw new Error(`no ${entity} ${id} in realm ${realmId}`);
    return rec;
  };

  return {
    url: base,
    apiBaseUrl: base,
    authorizeUrl: `${base}/connect/oauth2`,
    tokenUrl: `${base}/oauth2/v1/tokens/bearer`,
    revokeUrl: `${base}/v2/oauth2/tokens/revoke`,
    clientId,
    clientSecret,
    realmId: defaultRealm,
    received,
    consent,
    realm,
    seed(realmId, entity, record) {
      const r = realm(realmId);
      const rec = clone(record);
      if (entity === 'Invoice' && Array.isArray(rec.Line)) {
        const { lines, total } = invoiceLines(r, rec.Line);
        rec.Line = lines;
        if (typeof rec.TotalAmt !== 'number') rec.TotalAmt = total;
        rec.DocNumber ??= String(r.nextDocNumber++);
        rec.CurrencyRef = currencyRef(r, rec.CurrencyRef);
      }
      if (entity === 'Payment') rec.CurrencyRef = currencyRef(r, rec.CurrencyRef);
      if (entity === 'Customer') {
        rec.Active ??= true;
        rec.CurrencyRef = currencyRef(r, rec.CurrencyRef);
      }
      return put(r, entity, { ...rec, Id: typeof rec.Id === 'string' ? rec.Id : '' });
    },
    seedCustomers(realmId, count, prefix = 'Customer') {
      const r = realm(realmId);
      for (let n = 1; n <= count; n++) put(r, 'Customer', { Id: '', DisplayName: `${prefix} ${n}`, Active: true, CurrencyRef: currencyRef(r, undefined) });
    },
    get: (realmId, entity, id) => realm(realmId).records[entity].get(id),
    list: (realmId, entity) => [...realm(realmId).records[entity].values()],
    edit(realmId, entity, id, patch) {
      const r = realm(realmId);
      const next = { ...clone(recordOf(realmId, entity, id)), ...clone(patch) } as QboRecord;
      if (entity === 'Invoice' && 'Line' in patch) {
        const { lines, total } = invoiceLines(r, next.Line);
        next.Line = lines;
        if (!('TotalAmt' in patch)) next.TotalAmt = total;
      }
      next.SyncToken = String(Number(next.SyncToken) + 1);
      stamp(next, false);
      r.records[entity].set(id, next);
      return next;
    },
    remove: (realmId, entity, id) => removeRecord(realm(realmId), entity, id),
    voidInvoice: (realmId, id) => voidRecord(realm(realmId), 'Invoice', id),
    issueCode,
    issueTokens(realmId = defaultRealm) {
      realm(realmId);
      const t = issue(realmId);
      return { accessToken: t.access_token as string, refreshToken: t.refresh_token as string };
    },
    expireAccessTokens() {
      for (const t of accessTokens.values()) t.expiresAt = 0;
    },
    expireAccessTokensAfter(n) {
      expireAfter = n;
    },
    expireRefreshTokens() {
      for (const g of refreshTokens.values()) g.refreshExpiresAt = 0;
    },
    revokeAll() {
      accessTokens.clear();
      refreshTokens.clear();
    },
    throttleNext(n, retryAfterSeconds) {
      failures.push({ scope: 'api', status: 429, remaining: n, retryAfterSeconds });
    },
    failNext(n, status, o = {}) {
      failures.push({ scope: o.scope ?? 'api', status, remaining: n, body: o.body, contentType: o.contentType, retryAfterSeconds: o.retryAfterSeconds, delayMs: o.delayMs });
    },
    failAfterCreate(n, status = 500) {
      failAfterWrite = { remaining: n, status };
    },
    clear() {
      failures = [];
      failAfterWrite = null;
      received.length = 0;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
