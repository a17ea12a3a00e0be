/**
 * The provider-neutral view of an accounting ledger. An adapter translates one product's wire format
 * (QuickBooks Online today) into these shapes, so the sync engine, the mappings and the routes are the same
 * whichever ledger a tenant connects. Money is integer cents of the record's currency; dates are YYYY-MM-DD.
 */

/** OAuth tokens as the ledger issued them (sealed before they are stored). */
export interface LedgerTokens {
  accessToken: string;
  refreshToken: string;
  accessTokenExpiresAt: Date;
  /** null when the ledger does not say. */
  refreshTokenExpiresAt: Date | null;
}

/**
 * How an adapter gets a bearer token for one realm. `current` returns the stored access token (refreshing
 * first when it is about to expire); `renew` forces a refresh after the ledger answered 401 and returns the
 * new access token. The service persists what `renew` obtains, so tokens survive a crash mid-sync.
 */
export interface TokenSource {
  current(): Promise<string>;
  renew(): Promise<string>;
}

/** One connected company (QuickBooks: realm) and how to authorize calls to it. */
export interface LedgerSession {
  realmId: string;
  tokens: TokenSource;
}

export interface LedgerCompany {
  realmId: string;
  name: string;
  country: string | null;
  /** The company's home currency (ISO 4217), when the ledger says. */
  currency: string | null;
}

export interface LedgerAccount {
  id: string;
  name: string;
  /** Full name with parents, e.g. "Income:Services". */
  fullName: string;
  /** The ledger's classification: Asset | Liability | Equity | Revenue | Expense. */
  classification: string | null;
  /** The ledger's account type, e.g. "Income", "Bank", "Accounts Receivable". */
  type: string | null;
  subType: string | null;
  active: boolean;
  currency: string | null;
}

export interface LedgerItem {
  id: string;
  name: string;
  /** Service | NonInventory | Inventory | Category | Group … */
  type: string | null;
  active: boolean;
  description: string | null;
  unitPriceCents: number | null;
  incomeAccountId: string | null;
  version: string;
}

export interface LedgerTaxCode {
  id: string;
  name: string;
  description: string | null;
  active: boolean;
  taxable: boolean | null;
}

export interface LedgerTerm {
  id: string;
  name: string;
  /** STANDARD | DATE_DRIVEN */
  type: string | null;
  dueDays: number | null;
  active: boolean;
}

export interface LedgerPaymentMethod {
  id: string;
  name: string;
  /** CREDIT_CARD | NON_CREDIT_CARD (QuickBooks) */
  type: string | null;
  active: boolean;
}

export interface LedgerCustomer {
  id: string;
  displayName: string;
  companyName: string | null;
  email: string | null;
  phone: string | null;
  active: boolean;
  currency: string | null;
  /** The ledger's optimistic-concurrency token (QuickBooks SyncToken). */
  version: string;
  updatedAt: string | null;
}

export interface CustomerInput {
  displayName: string;
  companyName?: string | null;
  email?: string | null;
  phone?: string | null;
  currency?: string | null;
  active?: boolean;
}

export interface LedgerInvoiceLine {
  description: string | null;
  amountCents: number;
  quantity: number | null;
  unitPriceCents: number | null;
  itemId: string | null;
  taxCodeId: string | null;
}

export interface LedgerInvoice {
  id: string;
  docNumber: string | null;
  customerId: string;
  txnDate: string | null;
  dueDate: string | null;
  currency: string | null;
  totalCents: number;
  balanceCents: number;
  /** Sales lines only (subtotal and discount lines are left out). */
  lines: LedgerInvoiceLine[];
  version: string;
  /** QuickBooks marks a voided invoice with PrivateNote "Voided" and a zero total; adapters normalise it here. */
  voided: boolean;
  updatedAt: string | null;
}

export interface InvoiceInput {
  customerId: string;
  docNumber: string | null;
  txnDate: string;
  dueDate: string;
  currency: string;
  /** Our invoice id, written where the ledger keeps a private memo, so a person can trace the record back. */
  privateNote: string | null;
  lines: {
    description: string;
    /** quantity × unit price, net of tax. */
    amountCents: number;
    quantity: number;
    unitPriceCents: number;
    itemId: string;
    taxCodeId: string | null;
  }[];
}

export interface LedgerPaymentAllocation {
  /** The ledger's invoice id the payment was applied to. */
  invoiceId: string;
  amountCents: number;
}

export interface LedgerPayment {
  id: string;
  customerId: string;
  txnDate: string | null;
  currency: string | null;
  totalCents: number;
  /** What is applied to invoices; the rest is unapplied. */
  allocations: LedgerPaymentAllocation[];
  reference: string | null;
  paymentMethodId: string | null;
  version: string;
  updatedAt: string | null;
}

/** What changed since a moment (QuickBooks change data capture): records changed or created, and ids deleted. */
export interface LedgerChanges {
  customers: LedgerCustomer[];
  invoices: LedgerInvoice[];
  payments: LedgerPayment[];
  deleted: { entity: 'customer' | 'invoice' | 'payment'; id: string }[];
  /**
   * The ledger may have left changes out (QuickBooks answers at most 1000 objects per request): the caller should
   * ask again from a later moment or fall back to full lists. Absent means complete.
   */
  truncated?: boolean;
}

/** Inclusive YYYY-MM-DD bounds on the transaction date; either may be absent. */
export interface DateRange {
  from?: string;
  to?: string;
}

export interface LedgerProvider {
  /** The stored provider name, e.g. `quickbooks_online`. */
  readonly name: string;
  readonly label: string;

  /** The URL the browser is sent to; `state` is ours and comes back unchanged on the callback. */
  authorizationUrl(input: { state: string; redirectUri: string }): string;
  /** Exchanges the authorization code of a callback (its full query string, so the library checks state). */
  exchangeCode(input: { callbackUrl: URL; expectedState: string }): Promise<LedgerTokens>;
  refresh(refreshToken: string): Promise<LedgerTokens>;
  /** Revokes the refresh token (and with it the access token) at the ledger. */
  revoke(token: string): Promise<void>;

  companyInfo(s: LedgerSession): Promise<LedgerCompany>;
  listAccounts(s: LedgerSession): Promise<LedgerAccount[]>;
  listItems(s: LedgerSession): Promise<LedgerItem[]>;
  listTaxCodes(s: LedgerSession): Promise<LedgerTaxCode[]>;
  listTerms(s: LedgerSession): Promise<LedgerTerm[]>;
  listPaymentMethods(s: LedgerSession): Promise<LedgerPaymentMethod[]>;

  listCustomers(s: LedgerSession): Promise<LedgerCustomer[]>;
  getCustomer(s: LedgerSession, id: string): Promise<LedgerCustomer>;
  /** `requestId` makes the create idempotent at the ledger: the same id never creates a second record. */
  createCustomer(s: LedgerSession, input: CustomerInput, requestId: string): Promise<LedgerCustomer>;
  /** A sparse update of the given fields; `version` is the record's current version (stale → `conflict`). */
  updateCustomer(s: LedgerSession, id: string, version: string, input: Partial<CustomerInput>, requestId: string): Promise<LedgerCustomer>;

  createItem(s: LedgerSession, input: { name: string; incomeAccountId: string; description?: string | null }, requestId: string): Promise<LedgerItem>;

  getInvoice(s: LedgerSession, id: string): Promise<LedgerInvoice>;
  /** Invoices by transaction date (all when the range is empty). */
  listInvoices(s: LedgerSession, range: DateRange): Promise<LedgerInvoice[]>;
  createInvoice(s: LedgerSession, input: InvoiceInput, requestId: string): Promise<LedgerInvoice>;
  /** Replaces the invoice's lines and the fields of `input`, keeping others set in the ledger; stale `version` → `conflict`. */
  updateInvoice(s: LedgerSession, id: string, version: string, input: InvoiceInput, requestId: string): Promise<LedgerInvoice>;
  /** Voids the invoice in the ledger (amounts zeroed, the record kept); stale `version` → `conflict`. */
  voidInvoice(s: LedgerSession, id: string, version: string, requestId: string): Promise<LedgerInvoice>;

  getPayment(s: LedgerSession, id: string): Promise<LedgerPayment>;
  listPayments(s: LedgerSession, range: DateRange): Promise<LedgerPayment[]>;

  /** Change data capture: what changed at or after `since` (the ledger bounds how far back: QuickBooks 30 days). */
  changesSince(s: LedgerSession, since: Date): Promise<LedgerChanges>;

  usage(realmId: string): LedgerUsage;
}

/**
 * Why a ledger call failed. Messages are safe to show to the caller: they never contain a token or the
 * client secret, and an upstream message is quoted only after trimming it.
 */
export type LedgerFailure =
  | 'auth_failed' // the ledger refused the tokens and a refresh did not help (or the refresh token is dead: invalid_grant)
  | 'throttled' // 429 after the adapter's own retries
  | 'rejected' // a validation or business fault (4xx), with the ledger's code in `upstreamCode`
  | 'not_found'
  | 'conflict' // stale version (QuickBooks 5010) or a duplicate name (6240)
  | 'unavailable' // 5xx after retries
  | 'timeout'
  | 'unreachable' // no connection (DNS, refused, TLS)
  | 'invalid_response'; // not the JSON the wire format promises

export class LedgerProviderError extends Error {
  override name = 'LedgerProviderError';

  constructor(
    readonly reason: LedgerFailure,
    message: string,
    readonly upstreamStatus?: number,
    /** The ledger's own error code (QuickBooks Fault.Error[].code). */
    readonly upstreamCode?: string,
  ) {
    super(message);
  }
}

/** What this process has asked of one realm lately, for the health checks (QuickBooks allows 500 calls a minute per realm). */
export interface LedgerUsage {
  limitPerMinute: number;
  callsLastMinute: number;
  throttledLastHour: number;
  lastThrottledAt: string | null;
}
