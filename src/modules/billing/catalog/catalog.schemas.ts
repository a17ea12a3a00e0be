import { Type, type Static } from 'typebox';
import { Id, Nullable, Timestamp, dataOf, listOf, listQuery } from '../../../platform/http/schemas.ts';
import { Cents, CurrencyCode } from '../money.ts';

const Price = Type.Object(
  { currency_code: CurrencyCode, rate: Cents('The price in this currency') },
  { additionalProperties: false },
);
const Prices = Type.Array(Price, { maxItems: 50, description: 'Prices in other currencies (one per currency); replaced wholesale on update' });

/** A catalogue item: a service, or a product (which shares the service schema and always bills by usage). */
export const CatalogItem = Type.Object({
  service_id: Id,
  item_kind: Type.Enum(['service', 'product']),
  service_name: Type.String(),
  custom_service_type_id: Id,
  service_type_name: Type.String(),
  billing_method: Type.Enum(['fixed', 'hourly', 'usage']),
  unit_of_measure: Type.String(),
  default_rate: Cents('The default price'),
  currency_code: Type.String({ description: 'ISO 4217 currency of default_rate' }),
  prices: Type.Array(Type.Object({ currency_code: Type.String(), rate: Cents('The price in this currency') })),
  description: Nullable(Type.String()),
  sku: Nullable(Type.String()),
  barcode: Nullable(Type.String()),
  cost: Nullable(Cents('What the item costs the MSP')),
  cost_currency: Nullable(Type.String({ description: 'ISO 4217 currency of cost' })),
  vendor: Nullable(Type.String()),
  manufacturer: Nullable(Type.String()),
  product_category: Nullable(Type.String()),
  is_license: Type.Boolean(),
  license_term: Nullable(Type.String()),
  license_billing_cadence: Nullable(Type.String()),
  is_active: Type.Boolean(),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type CatalogItem = Static<typeof CatalogItem>;

const shared = {
  service_name: Type.String({ minLength: 1, maxLength: 255 }),
  custom_service_type_id: Id,
  unit_of_measure: Type.String({ minLength: 1, maxLength: 128 }),
  default_rate: Type.Optional(Cents('The default price (default 0)')),
  currency_code: Type.Optional(CurrencyCode),
  prices: Type.Optional(Prices),
  description: Type.Optional(Nullable(Type.String({ maxLength: 2048 }))),
  is_active: Type.Optional(Type.Boolean({ description: 'Default true on create' })),
};

const productOnly = {
  sku: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 128, description: 'Unique per tenant (any case) when set' }))),
  barcode: Type.Optional(Nullable(Type.String({ maxLength: 255 }))),
  cost: Type.Optional(Nullable(Cents('What the product costs the MSP'))),
  cost_currency: Type.Optional(Nullable(CurrencyCode)),
  vendor: Type.Optional(Nullable(Type.String({ maxLength: 255 }))),
  manufacturer: Type.Optional(Nullable(Type.String({ maxLength: 255 }))),
  product_category: Type.Optional(Nullable(Type.String({ maxLength: 255 }))),
  is_license: Type.Optional(Type.Boolean({ description: 'Default false on create' })),
  license_term: Type.Optional(Nullable(Type.String({ maxLength: 64 }))),
  license_billing_cadence: Type.Optional(Nullable(Type.String({ maxLength: 64 }))),
};

const BillingMethod = Type.Enum(['fixed', 'hourly', 'usage'], { description: 'How the service is billed' });

export const CreateServiceBody = Type.Object(
  { ...shared, billing_method: BillingMethod, ...productOnly },
  { additionalProperties: false },
);
export type CreateServiceBody = Static<typeof CreateServiceBody>;

export const CreateProductBody = Type.Object(
  { ...shared, billing_method: Type.Optional(Type.Enum(['usage'], { description: 'Always usage for products' })), ...productOnly },
  { additionalProperties: false },
);
export type CreateProductBody = Static<typeof CreateProductBody>;

const sharedUpdate = {
  ...shared,
  service_name: Type.Optional(shared.service_name),
  custom_service_type_id: Type.Optional(shared.custom_service_type_id),
  unit_of_measure: Type.Optional(shared.unit_of_measure),
};

export const UpdateServiceBody = Type.Object(
  { ...sharedUpdate, billing_method: Type.Optional(BillingMethod), ...productOnly },
  { additionalProperties: false, minProperties: 1, description: 'Partial update; `prices` replaces the whole list' },
);
export type UpdateServiceBody = Static<typeof UpdateServiceBody>;

export const UpdateProductBody = Type.Object(
  { ...sharedUpdate, billing_method: Type.Optional(Type.Enum(['usage'])), ...productOnly },
  { additionalProperties: false, minProperties: 1, description: 'Partial update; `prices` replaces the whole list' },
);
export type UpdateProductBody = Static<typeof UpdateProductBody>;

export const CATALOG_SORT_FIELDS = ['service_name', 'billing_method', 'default_rate', 'created_at', 'updated_at'] as const;
const filters = {
  search: Type.Optional(Type.String({ maxLength: 255, description: 'Part of the name, SKU or description, any case' })),
  is_active: Type.Optional(Type.Boolean()),
  custom_service_type_id: Type.Optional(Id),
  billing_method: Type.Optional(BillingMethod),
};
export const ListServicesQuery = listQuery(CATALOG_SORT_FIELDS, {
  ...filters,
  item_kind: Type.Optional(Type.Enum(['service', 'product', 'any'], { description: 'Default service; any lists both' })),
});
export type ListServicesQuery = Static<typeof ListServicesQuery>;
export const ListProductsQuery = listQuery(CATALOG_SORT_FIELDS, { ...filters, is_license: Type.Optional(Type.Boolean()) });
export type ListProductsQuery = Static<typeof ListProductsQuery>;

export const CatalogItemResponse = dataOf(CatalogItem);
export const CatalogItemListResponse = listOf(CatalogItem);
