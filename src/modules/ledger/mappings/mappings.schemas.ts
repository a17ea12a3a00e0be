import { Type, type Static } from 'typebox';
import { dataOf, Id, listOf, listQuery, Nullable, Timestamp } from '../../../platform/http/schemas.ts';
import { RealmId } from '../ledger.openapi.ts';

export const ENTITY_TYPES = ['customer', 'invoice', 'payment', 'item', 'tax_code', 'account', 'term', 'payment_method'] as const;
export const SYNC_STATUSES = ['synced', 'pending', 'error', 'conflict', 'drift'] as const;
export const ACCOUNT_TYPES = ['income', 'expense', 'asset', 'liability', 'equity', 'bank', 'receivable'] as const;

const ExternalId = Type.String({ minLength: 1, maxLength: 64, description: "The ledger's id of the record" });

export const Mapping = Type.Object({
  mapping_id: Id,
  realm_id: Type.String(),
  entity_type: Type.Enum([...ENTITY_TYPES]),
  local_id: Type.String({
    description: 'Our side: a client id (customer), invoice id, payment id, catalogue service or product id (item); a tax region or `untaxed` (tax_code); `<account_type>:<name>` (account); a payment method (payment_method); a terms key (term)',
  }),
  external_id: Type.String(),
  external_name: Nullable(Type.String()),
  is_default: Type.Boolean({ description: 'Used where nothing more specific is mapped (accounts: per account type)' }),
  sync_status: Type.Enum([...SYNC_STATUSES], { description: 'drift: the ledger changed the record since our last sync; conflict: both sides changed' }),
  last_synced_at: Nullable(Timestamp),
  sync_error: Nullable(Type.String()),
  metadata: Type.Object({}, { additionalProperties: true, description: 'What the last sync saw (version, total_cents, doc_number)' }),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type Mapping = Static<typeof Mapping>;

export const MappingResponse = dataOf(Mapping);
export const MappingListResponse = listOf(Mapping);

export const ListMappingsQuery = listQuery(['created_at', 'updated_at', 'local_id', 'last_synced_at'] as const, {
  realm_id: Type.Optional(RealmId),
  entity_type: Type.Optional(Type.Enum([...ENTITY_TYPES])),
  sync_status: Type.Optional(Type.Enum([...SYNC_STATUSES])),
  local_id: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  external_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
});
export type ListMappingsQuery = Static<typeof ListMappingsQuery>;
/** The per-type lists (customers, accounts, tax codes): the same query without entity_type. */
export const ListTypedMappingsQuery = listQuery(['created_at', 'updated_at', 'local_id', 'last_synced_at'] as const, {
  realm_id: Type.Optional(RealmId),
  sync_status: Type.Optional(Type.Enum([...SYNC_STATUSES])),
  local_id: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  external_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
});
export type ListTypedMappingsQuery = Static<typeof ListTypedMappingsQuery>;

const Metadata = Type.Unknown({ description: 'A JSON object kept with the mapping (≤ 4 KiB serialized)' });

export const CreateMappingBody = Type.Object(
  {
    entity_type: Type.Enum([...ENTITY_TYPES]),
    local_id: Type.String({ minLength: 1, maxLength: 255 }),
    external_id: ExternalId,
    external_name: Type.Optional(Nullable(Type.String({ maxLength: 255, description: "Default: the ledger record's name" }))),
    is_default: Type.Optional(Type.Boolean({ default: false })),
    metadata: Type.Optional(Metadata),
  },
  { additionalProperties: false },
);
export type CreateMappingBody = Static<typeof CreateMappingBody>;

export const UpdateMappingBody = Type.Object(
  {
    external_id: Type.Optional(ExternalId),
    external_name: Type.Optional(Nullable(Type.String({ maxLength: 255 }))),
    is_default: Type.Optional(Type.Boolean()),
    metadata: Type.Optional(Metadata),
    sync_status: Type.Optional(Type.Literal('synced', {
      description: 'Accept a drifted or conflicting mapping: both records as they are now become the baseline the next sync compares with (neither is changed)',
    })),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateMappingBody = Static<typeof UpdateMappingBody>;

export const MappingParams = Type.Object({ mappingId: Id }, { additionalProperties: false });

export const PutAccountMappingsBody = Type.Object(
  {
    mappings: Type.Array(
      Type.Object(
        {
          account_type: Type.Enum([...ACCOUNT_TYPES]),
          local_name: Type.Optional(Type.String({ minLength: 1, maxLength: 200, pattern: '^[^:]+$', default: 'default', description: 'What the account is for on our side (default: `default`)' })),
          qbo_account_id: ExternalId,
          is_default: Type.Optional(Type.Boolean({ default: false, description: 'The account used for this account type when nothing more specific is mapped' })),
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: 200 },
    ),
    replace_existing: Type.Optional(Type.Boolean({ default: false, description: 'Delete account mappings not in this list' })),
  },
  { additionalProperties: false },
);
export type PutAccountMappingsBody = Static<typeof PutAccountMappingsBody>;

export const PutTaxCodeMappingsBody = Type.Object(
  {
    mappings: Type.Array(
      Type.Object(
        {
          tax_region: Type.String({ minLength: 1, maxLength: 255, description: "A tax rate's region (any case), or `untaxed` for lines without tax" }),
          qbo_tax_code_id: ExternalId,
          is_default: Type.Optional(Type.Boolean({ default: false, description: 'The code for taxed lines whose region is not mapped' })),
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: 200 },
    ),
    replace_existing: Type.Optional(Type.Boolean({ default: false, description: 'Delete tax-code mappings not in this list' })),
  },
  { additionalProperties: false },
);
export type PutTaxCodeMappingsBody = Static<typeof PutTaxCodeMappingsBody>;

export const MappingArrayResponse = dataOf(Type.Array(Mapping));
