import { Type, type Static } from 'typebox';
import { Id, Name, Nullable, Timestamp, dataOf, listOf, listQuery } from '../../../platform/http/schemas.ts';
import { BillingFrequency } from '../billing.schemas.ts';
import { Cents, CurrencyCode } from '../money.ts';
import { LineConfig, LineConfigInput } from './lines.config.ts';

export const LINE_TYPES = ['fixed', 'hourly', 'usage', 'bucket'] as const;
const LineType = Type.Enum([...LINE_TYPES], { description: 'fixed: a set price per period; hourly: time at an hourly rate; usage: a price per unit counted; bucket: prepaid minutes with an overage rate' });

export const LineService = Type.Object({
  service_id: Id,
  service_name: Type.String(),
  item_kind: Type.Enum(['service', 'product']),
  billing_method: Type.Enum(['fixed', 'hourly', 'usage']),
  quantity: Type.Integer(),
  custom_rate_cents: Nullable(Cents("This line's price for the service (null = the catalogue's default_rate)")),
  default_rate: Cents("The catalogue's default price"),
  currency_code: Type.String({ description: "The catalogue item's currency" }),
});
export type LineService = Static<typeof LineService>;

export const ContractLine = Type.Object({
  contract_line_id: Id,
  contract_line_name: Type.String(),
  description: Nullable(Type.String()),
  contract_line_type: LineType,
  billing_frequency: BillingFrequency,
  currency_code: Type.String({ description: 'ISO 4217; every amount of the line is in this currency' }),
  config: LineConfig,
  is_active: Type.Boolean(),
  services: Type.Array(LineService),
  contract_count: Type.Integer({ description: 'Contracts the line is attached to' }),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type ContractLine = Static<typeof ContractLine>;

export const CreateContractLineBody = Type.Object(
  {
    contract_line_name: Name,
    contract_line_type: LineType,
    billing_frequency: BillingFrequency,
    currency_code: Type.Optional(CurrencyCode),
    description: Type.Optional(Nullable(Type.String({ maxLength: 2048 }))),
    is_active: Type.Optional(Type.Boolean({ description: 'Default true' })),
    config: LineConfigInput,
  },
  { additionalProperties: false },
);
export type CreateContractLineBody = Static<typeof CreateContractLineBody>;

export const UpdateContractLineBody = Type.Object(
  {
    contract_line_name: Type.Optional(Name),
    contract_line_type: Type.Optional(Type.Enum([...LINE_TYPES], { description: 'A new type needs its config in the same request' })),
    billing_frequency: Type.Optional(BillingFrequency),
    currency_code: Type.Optional(Type.Unsafe<string>({ ...CurrencyCode, description: 'Only while the line is attached to no contract' })),
    description: Type.Optional(Nullable(Type.String({ maxLength: 2048 }))),
    is_active: Type.Optional(Type.Boolean()),
    config: Type.Optional(Type.Unsafe<LineConfigInput>({ ...LineConfigInput, description: 'Replaces the settings wholesale (checked against the type)' })),
  },
  { additionalProperties: false, minProperties: 1, description: 'Partial update' },
);
export type UpdateContractLineBody = Static<typeof UpdateContractLineBody>;

export const LINE_SORT_FIELDS = ['contract_line_name', 'contract_line_type', 'created_at', 'updated_at'] as const;
export const ListContractLinesQuery = listQuery(LINE_SORT_FIELDS, {
  search: Type.Optional(Type.String({ maxLength: 255, description: 'Part of the name, any case' })),
  contract_line_type: Type.Optional(LineType),
  billing_frequency: Type.Optional(BillingFrequency),
  currency_code: Type.Optional(CurrencyCode),
  is_active: Type.Optional(Type.Boolean()),
  contract_id: Type.Optional(Type.Unsafe<string>({ ...Id, description: 'Only lines attached to this contract' })),
});
export type ListContractLinesQuery = Static<typeof ListContractLinesQuery>;

export const AddLineServiceBody = Type.Object(
  {
    service_id: Id,
    quantity: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, description: 'Default 1' })),
    custom_rate_cents: Type.Optional(Nullable(Cents("This line's price for the service, in the line's currency"))),
  },
  { additionalProperties: false },
);
export type AddLineServiceBody = Static<typeof AddLineServiceBody>;

export const UpdateLineServiceBody = Type.Object(
  {
    quantity: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
    custom_rate_cents: Type.Optional(Nullable(Cents("This line's price for the service, in the line's currency"))),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateLineServiceBody = Static<typeof UpdateLineServiceBody>;

export const LineServiceParams = Type.Object({ id: Id, serviceId: Id }, { additionalProperties: false });

export const ContractLineResponse = dataOf(ContractLine);
export const ContractLineListResponse = listOf(ContractLine);
export const LineServiceResponse = dataOf(LineService);
export const LineServiceListResponse = Type.Object({ data: Type.Array(LineService) });
