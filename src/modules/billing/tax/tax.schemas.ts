import { Type, type Static } from 'typebox';
import { Id, Name, Nullable, Timestamp, dataOf, listOf, listQuery } from '../../../platform/http/schemas.ts';
import { Cents, CurrencyCode } from '../money.ts';

const Percentage = Type.Number({ minimum: 0, maximum: 100, description: 'Percent with up to three decimals (8.875 means 8.875 %)' });

export const TaxRate = Type.Object({
  tax_rate_id: Id,
  name: Type.String(),
  region: Nullable(Type.String()),
  percentage: Type.Number({ description: 'Percent, up to three decimals' }),
  description: Nullable(Type.String()),
  is_active: Type.Boolean(),
  client_count: Type.Integer({ description: 'Clients using the rate as their default' }),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type TaxRate = Static<typeof TaxRate>;

export const CreateTaxRateBody = Type.Object(
  {
    name: Name,
    region: Type.Optional(Nullable(Type.String({ maxLength: 255, description: 'Where the rate applies (state, country, …)' }))),
    percentage: Percentage,
    description: Type.Optional(Nullable(Type.String({ maxLength: 2000 }))),
    is_active: Type.Optional(Type.Boolean({ description: 'Default true' })),
  },
  { additionalProperties: false },
);
export type CreateTaxRateBody = Static<typeof CreateTaxRateBody>;

export const UpdateTaxRateBody = Type.Object(
  {
    name: Type.Optional(Name),
    region: Type.Optional(Nullable(Type.String({ maxLength: 255 }))),
    percentage: Type.Optional(Percentage),
    description: Type.Optional(Nullable(Type.String({ maxLength: 2000 }))),
    is_active: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false, minProperties: 1, description: 'Partial update' },
);
export type UpdateTaxRateBody = Static<typeof UpdateTaxRateBody>;

export const TAX_RATE_SORT_FIELDS = ['name', 'percentage', 'created_at', 'updated_at'] as const;
export const ListTaxRatesQuery = listQuery(TAX_RATE_SORT_FIELDS, {
  search: Type.Optional(Type.String({ maxLength: 255, description: 'Part of the name or region, any case' })),
  region: Type.Optional(Type.String({ maxLength: 255, description: 'Exact region, any case' })),
  is_active: Type.Optional(Type.Boolean()),
});
export type ListTaxRatesQuery = Static<typeof ListTaxRatesQuery>;

export const ClientTaxSettings = Type.Object({
  client_id: Id,
  is_tax_exempt: Type.Boolean({ description: 'An exempt client is charged no tax on any line' }),
  tax_exemption_certificate: Nullable(Type.String()),
  default_tax_rate_id: Nullable(Id),
  default_tax_rate: Nullable(Type.Object({ tax_rate_id: Id, name: Type.String(), percentage: Type.Number() })),
  updated_at: Nullable(Timestamp),
});
export type ClientTaxSettings = Static<typeof ClientTaxSettings>;

export const PutClientTaxSettingsBody = Type.Object(
  {
    is_tax_exempt: Type.Optional(Type.Boolean()),
    tax_exemption_certificate: Type.Optional(Nullable(Type.String({ maxLength: 255 }))),
    default_tax_rate_id: Type.Optional(Nullable(Type.Unsafe<string>({ ...Id, description: 'An active tax rate of the tenant; null = none' }))),
  },
  { additionalProperties: false, minProperties: 1, description: 'Partial update of the settings (a client without settings is not exempt and has no default rate)' },
);
export type PutClientTaxSettingsBody = Static<typeof PutClientTaxSettingsBody>;

export const CalculateTaxBody = Type.Object(
  {
    client_id: Type.Optional(Type.Unsafe<string>({ ...Id, description: "Applies the client's exemption and default rate" })),
    currency_code: CurrencyCode,
    lines: Type.Array(
      Type.Object(
        {
          description: Type.Optional(Type.String({ maxLength: 2000 })),
          quantity: Type.Number({ exclusiveMinimum: 0, maximum: 1_000_000_000, description: 'Up to four decimals' }),
          unit_price_cents: Cents('The price of one unit'),
          tax_rate_id: Type.Optional(Nullable(Type.Unsafe<string>({ ...Id, description: "Default: the client's default rate; null = untaxed" }))),
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: 500 },
    ),
  },
  { additionalProperties: false },
);
export type CalculateTaxBody = Static<typeof CalculateTaxBody>;

const Amount = (what: string) => Type.Integer({ description: `${what}, in integer cents of the currency's minor unit` });
export const TaxCalculation = Type.Object({
  currency_code: Type.String(),
  is_tax_exempt: Type.Boolean(),
  lines: Type.Array(Type.Object({
    description: Nullable(Type.String()),
    quantity: Type.Number(),
    unit_price_cents: Amount('The price of one unit'),
    amount_cents: Amount('quantity × unit price, rounded half to even'),
    tax_rate_id: Nullable(Id),
    tax_percentage: Type.Number(),
    tax_cents: Amount("The line's tax, rounded half to even"),
    total_cents: Amount('amount_cents + tax_cents'),
  })),
  subtotal_cents: Amount('Σ amount_cents'),
  tax_cents: Amount('Σ tax_cents'),
  total_cents: Amount('subtotal_cents + tax_cents'),
});
export type TaxCalculation = Static<typeof TaxCalculation>;

export const TaxRateResponse = dataOf(TaxRate);
export const TaxRateListResponse = listOf(TaxRate);
export const ClientTaxSettingsResponse = dataOf(ClientTaxSettings);
export const TaxCalculationResponse = dataOf(TaxCalculation);
