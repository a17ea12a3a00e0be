import type { ColumnType, Generated } from 'kysely';

/** Kysely table types of migrations 0015_billing, 0017_tax and 0018_invoices (src/modules/billing); kept apart from schema.ts. */

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type CreatedAt = ColumnType<Date, Date | string | undefined, never>;
/** bigint cents: both engines hand int8 back as a number (database.ts sets the parser). */
type Cents = number;

export type BillingFrequency = 'weekly' | 'bi-weekly' | 'monthly' | 'quarterly' | 'semi-annually' | 'annually';
export type BillingMethod = 'fixed' | 'hourly' | 'usage';
export type ItemKind = 'service' | 'product';
export type ContractStatus = 'draft' | 'active' | 'terminated' | 'expired';
export type ContractLineType = 'fixed' | 'hourly' | 'usage' | 'bucket';

export interface BillingSettingsTable {
  tenant: string;
  default_currency_code: Generated<string>;
  invoice_number_prefix: Generated<string>;
  next_invoice_number: Generated<number>;
  credit_note_number_prefix: Generated<string>;
  next_credit_note_number: Generated<number>;
  quote_number_prefix: Generated<string>;
  next_quote_number: Generated<number>;
  default_payment_terms_days: Generated<number>;
  updated_at: Timestamp;
}

export interface ServiceTypesTable {
  tenant: string;
  service_type_id: string;
  name: string;
  description: string | null;
  is_builtin: Generated<boolean>;
  is_active: Generated<boolean>;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

export interface ServiceCatalogTable {
  tenant: string;
  service_id: string;
  item_kind: ItemKind;
  service_name: string;
  custom_service_type_id: string;
  billing_method: BillingMethod;
  unit_of_measure: string;
  default_rate: ColumnType<Cents, Cents | undefined, Cents>;
  currency_code: string;
  description: string | null;
  sku: string | null;
  barcode: string | null;
  cost: Cents | null;
  cost_currency: string | null;
  vendor: string | null;
  manufacturer: string | null;
  product_category: string | null;
  is_license: Generated<boolean>;
  license_term: string | null;
  license_billing_cadence: string | null;
  is_active: Generated<boolean>;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

export interface ServicePricesTable {
  tenant: string;
  service_id: string;
  currency_code: string;
  rate: Cents;
}

export interface ContractsTable {
  tenant: string;
  contract_id: string;
  client_id: string;
  contract_name: string;
  contract_description: string | null;
  /** DATE: 'YYYY-MM-DD'. */
  start_date: string;
  end_date: string | null;
  billing_frequency: BillingFrequency;
  status: Generated<ContractStatus>;
  currency_code: string;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

export interface ClientContractsTable {
  tenant: string;
  client_contract_id: string;
  contract_id: string;
  client_id: string;
  billing_profile_id: string;
  start_date: string;
  end_date: string | null;
  is_active: Generated<boolean>;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

export interface ContractLinesTable {
  tenant: string;
  contract_line_id: string;
  contract_line_name: string;
  description: string | null;
  contract_line_type: ContractLineType;
  billing_frequency: BillingFrequency;
  currency_code: string;
  /** The type's settings (validated against the type's schema before every write). */
  config: ColumnType<Record<string, unknown>, string, string>;
  is_active: Generated<boolean>;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

export interface ContractLineServicesTable {
  tenant: string;
  contract_line_id: string;
  service_id: string;
  quantity: Generated<number>;
  custom_rate_cents: Cents | null;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

export interface ContractLineAttachmentsTable {
  tenant: string;
  contract_id: string;
  contract_line_id: string;
  custom_rate_cents: Cents | null;
  display_order: Generated<number>;
  created_at: CreatedAt;
}

export interface TaxRatesTable {
  tenant: string;
  tax_rate_id: string;
  name: string;
  region: string | null;
  /** Thousandths of a percent: 8.875 % is 8875. */
  percentage_thousandths: number;
  description: string | null;
  is_active: Generated<boolean>;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

export interface ClientTaxSettingsTable {
  tenant: string;
  client_id: string;
  is_tax_exempt: Generated<boolean>;
  tax_exemption_certificate: string | null;
  default_tax_rate_id: string | null;
  updated_at: Timestamp;
}

export interface UsageRecordsTable {
  tenant: string;
  usage_id: string;
  client_id: string;
  service_id: string;
  /** Ten-thousandths of a unit: 1.5 GB is 15000. */
  quantity_units: number;
  /** DATE: 'YYYY-MM-DD'. */
  usage_date: string;
  description: string | null;
  created_by: string | null;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

export type InvoiceStatus = 'draft' | 'finalized' | 'sent' | 'partially_paid' | 'paid' | 'void';
export type PaymentMethod = 'cash' | 'check' | 'card' | 'bank_transfer' | 'other';
export type CreditEntryKind = 'overpayment' | 'credit_note' | 'applied' | 'reversal';
export type QuoteStatus = 'draft' | 'sent' | 'accepted' | 'rejected' | 'expired';

export interface InvoicesTable {
  tenant: string;
  invoice_id: string;
  client_id: string;
  billing_profile_id: string;
  /** Null while draft; taken from the tenant's sequence at finalize. */
  invoice_number: string | null;
  status: InvoiceStatus;
  currency_code: string;
  /** DATE columns: 'YYYY-MM-DD'. */
  issue_date: string;
  due_date: string;
  period_start: string | null;
  period_end: string | null;
  is_generated: Generated<boolean>;
  po_number: string | null;
  subtotal_cents: Generated<Cents>;
  tax_cents: Generated<Cents>;
  total_cents: Generated<Cents>;
  amount_paid_cents: Generated<Cents>;
  credited_cents: Generated<Cents>;
  balance_cents: Generated<Cents>;
  finalized_at: Date | null;
  sent_at: Date | null;
  paid_at: Date | null;
  voided_at: Date | null;
  void_reason: string | null;
  created_by: string | null;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

/** The priced line shape invoices and quotes share. */
interface PricedItem {
  tenant: string;
  item_id: string;
  display_order: Generated<number>;
  description: string;
  /** Ten-thousandths of a unit. */
  quantity_units: number;
  unit_price_cents: Cents;
  service_id: string | null;
  tax_rate_id: string | null;
  /** The rate's percentage when the line was priced (thousandths of a percent). */
  tax_percentage_thousandths: Generated<number>;
  /** Net: quantity × unit price, half-even to the cent. */
  total_cents: Cents;
  tax_cents: Cents;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

export interface InvoiceItemsTable extends PricedItem {
  invoice_id: string;
  contract_id: string | null;
  contract_line_id: string | null;
  /** What generation billed (line type, period, quantities); null for a hand-made item. */
  source: ColumnType<Record<string, unknown> | null, string | null | undefined, string | null>;
}

export interface InvoiceAnnotationsTable {
  tenant: string;
  annotation_id: string;
  invoice_id: string;
  content: string;
  is_internal: Generated<boolean>;
  created_by: string | null;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

export interface InvoicePaymentsTable {
  tenant: string;
  payment_id: string;
  invoice_id: string;
  client_id: string;
  billing_profile_id: string;
  currency_code: string;
  amount_cents: Cents;
  /** The part that reduced the invoice's balance; the rest (to_credit_cents) became client credit. */
  applied_cents: Cents;
  to_credit_cents: Cents;
  payment_date: string;
  method: PaymentMethod;
  reference: string | null;
  /** Set when the payment was reversed: its money left the invoice (and the client credit). */
  reversed_at: Date | null;
  reversal_reason: string | null;
  created_by: string | null;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

export interface CreditNotesTable {
  tenant: string;
  credit_note_id: string;
  credit_note_number: string;
  invoice_id: string;
  client_id: string;
  billing_profile_id: string;
  currency_code: string;
  amount_cents: Cents;
  applied_cents: Cents;
  to_credit_cents: Cents;
  reason: string;
  issue_date: string;
  created_by: string | null;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

export interface ClientCreditEntriesTable {
  tenant: string;
  entry_id: string;
  client_id: string;
  billing_profile_id: string;
  currency_code: string;
  /** Signed: positive adds credit, negative uses it. */
  amount_cents: Cents;
  kind: CreditEntryKind;
  invoice_id: string | null;
  payment_id: string | null;
  credit_note_id: string | null;
  created_by: string | null;
  created_at: CreatedAt;
}

export interface QuotesTable {
  tenant: string;
  quote_id: string;
  quote_number: string;
  client_id: string;
  title: string;
  description: string | null;
  currency_code: string;
  issue_date: string;
  valid_until: string;
  status: QuoteStatus;
  subtotal_cents: Generated<Cents>;
  tax_cents: Generated<Cents>;
  total_cents: Generated<Cents>;
  mrr_cents: Generated<Cents>;
  nrr_cents: Generated<Cents>;
  hardware_cents: Generated<Cents>;
  sent_at: Date | null;
  accepted_at: Date | null;
  rejected_at: Date | null;
  rejection_reason: string | null;
  converted_contract_id: string | null;
  converted_at: Date | null;
  created_by: string | null;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

export interface QuoteItemsTable extends PricedItem {
  quote_id: string;
  item_kind: ItemKind;
  is_recurring: Generated<boolean>;
  billing_frequency: BillingFrequency | null;
}

export interface BillingTables {
  billing_settings: BillingSettingsTable;
  service_types: ServiceTypesTable;
  service_catalog: ServiceCatalogTable;
  service_prices: ServicePricesTable;
  contracts: ContractsTable;
  client_contracts: ClientContractsTable;
  contract_lines: ContractLinesTable;
  contract_line_services: ContractLineServicesTable;
  contract_line_attachments: ContractLineAttachmentsTable;
  tax_rates: TaxRatesTable;
  client_tax_settings: ClientTaxSettingsTable;
  usage_records: UsageRecordsTable;
  invoices: InvoicesTable;
  invoice_items: InvoiceItemsTable;
  invoice_annotations: InvoiceAnnotationsTable;
  invoice_payments: InvoicePaymentsTable;
  credit_notes: CreditNotesTable;
  client_credit_entries: ClientCreditEntriesTable;
  quotes: QuotesTable;
  quote_items: QuoteItemsTable;
}
