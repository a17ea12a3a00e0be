import type { ColumnType, Generated } from 'kysely';

/** Kysely table types of migrations 0015_billing and 0017_tax (src/modules/billing); kept apart from schema.ts. */

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
}
