import { Type, type Static } from 'typebox';
import { DateOnly, Id, Name, Nullable, Timestamp, dataOf, listOf, listQuery } from '../../../platform/http/schemas.ts';
import { BillingFrequency } from '../billing.schemas.ts';
import { Cents, CurrencyCode } from '../money.ts';
import { LINE_TYPES } from '../contract-lines/lines.schemas.ts';

export const CONTRACT_STATUSES = ['draft', 'active', 'terminated', 'expired'] as const;
const Status = Type.Enum([...CONTRACT_STATUSES], {
  description: 'draft → active or terminated; active → terminated or expired; terminated and expired are final',
});

const AttachedLine = Type.Object({
  contract_line_id: Id,
  contract_line_name: Type.String(),
  contract_line_type: Type.Enum([...LINE_TYPES]),
  billing_frequency: BillingFrequency,
  is_active: Type.Boolean(),
  custom_rate_cents: Nullable(Cents("This contract's price for the line (null = the line's own rate)")),
  display_order: Type.Integer(),
});

const ClientContract = Type.Object(
  {
    client_contract_id: Id,
    billing_profile_id: Id,
    billing_profile_name: Type.String(),
    start_date: DateOnly,
    end_date: Nullable(DateOnly),
    is_active: Type.Boolean({ description: 'True while the contract is active' }),
  },
  { description: "The contract's assignment to one of the client's billing profiles (its dates follow the contract's)" },
);

export const Contract = Type.Object({
  contract_id: Id,
  client_id: Id,
  client_name: Type.String(),
  contract_name: Type.String(),
  contract_description: Nullable(Type.String()),
  start_date: DateOnly,
  end_date: Nullable(Type.String({ format: 'date', description: 'YYYY-MM-DD; null = open-ended' })),
  billing_frequency: BillingFrequency,
  status: Status,
  currency_code: Type.String({ description: 'ISO 4217; every line attached must be in this currency' }),
  client_contract: ClientContract,
  contract_lines: Type.Array(AttachedLine, { description: 'The attached lines in display order. A contract holds no prices of its own' }),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type Contract = Static<typeof Contract>;

const common = {
  contract_description: Type.Optional(Nullable(Type.String({ maxLength: 2048 }))),
  end_date: Type.Optional(Nullable(Type.String({ format: 'date', description: 'YYYY-MM-DD; omitted or null = open-ended; not before start_date' }))),
  billing_frequency: Type.Optional(BillingFrequency),
  status: Type.Optional(Status),
  billing_profile_id: Type.Optional(Type.Unsafe<string>({ ...Id, description: "One of the client's billing profiles (default: the client's default profile)" })),
};

export const CreateContractBody = Type.Object(
  {
    client_id: Id,
    contract_name: Type.Optional(Name),
    start_date: Type.Optional(Type.String({ format: 'date', description: 'YYYY-MM-DD (default today, UTC)' })),
    currency_code: Type.Optional(Type.Unsafe<string>({ ...CurrencyCode, description: "ISO 4217 (default the client's currency)" })),
    ...common,
    billing_frequency: Type.Optional(Type.Unsafe<string>({ ...BillingFrequency, description: "Default the client's billing cycle" })),
    status: Type.Optional(Type.Unsafe<string>({ ...Status, description: 'Default draft' })),
  },
  { additionalProperties: false },
);
export type CreateContractBody = Static<typeof CreateContractBody>;

export const UpdateContractBody = Type.Object(
  {
    contract_name: Type.Optional(Name),
    start_date: Type.Optional(DateOnly),
    currency_code: Type.Optional(Type.Unsafe<string>({ ...CurrencyCode, description: 'Only while no line is attached' })),
    ...common,
  },
  { additionalProperties: false, minProperties: 1, description: 'Partial update (the client cannot change)' },
);
export type UpdateContractBody = Static<typeof UpdateContractBody>;

export const CONTRACT_SORT_FIELDS = ['contract_name', 'start_date', 'end_date', 'status', 'created_at', 'updated_at'] as const;
export const ListContractsQuery = listQuery(CONTRACT_SORT_FIELDS, {
  search: Type.Optional(Type.String({ maxLength: 255, description: 'Part of the contract name, any case' })),
  client_id: Type.Optional(Id),
  status: Type.Optional(Status),
  billing_frequency: Type.Optional(BillingFrequency),
  currency_code: Type.Optional(CurrencyCode),
  active_on: Type.Optional(Type.String({ format: 'date', description: 'Only contracts whose dates cover this day (YYYY-MM-DD)' })),
});
export type ListContractsQuery = Static<typeof ListContractsQuery>;

export const AttachLineBody = Type.Object(
  {
    contract_line_id: Id,
    custom_rate_cents: Type.Optional(Nullable(Cents("This contract's price for the line, in the contract's currency (null = the line's own rate)"))),
    display_order: Type.Optional(Type.Integer({ minimum: 0, maximum: 100_000, description: 'Default: after the last attached line' })),
  },
  { additionalProperties: false },
);
export type AttachLineBody = Static<typeof AttachLineBody>;

export const ContractParams = Type.Object({ contractId: Id }, { additionalProperties: false });
export const AttachmentParams = Type.Object({ contractId: Id, contractLineId: Id }, { additionalProperties: false });

export const ContractResponse = dataOf(Contract);
export const ContractListResponse = listOf(Contract);
