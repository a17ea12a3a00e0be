import { Type, type Static, type TSchema } from 'typebox';
import { DateOnly, Email, Id, Nullable, Phone, Timestamp, dataOf, listOf, listQuery } from '../../platform/http/schemas.ts';
import type { BillingCycle, ClientType } from '../../platform/db/schema.ts';
import { LocationCreateBody } from './locations/locations.schemas.ts';

export const BILLING_CYCLES: readonly BillingCycle[] = ['weekly', 'bi-weekly', 'monthly', 'quarterly', 'semi-annually', 'annually'];
export const CLIENT_TYPES: readonly ClientType[] = ['company', 'individual'];

const BillingCycleSchema = Type.Enum([...BILLING_CYCLES], { description: 'How often the client is billed' });
const ClientTypeSchema = Type.Enum([...CLIENT_TYPES], { description: 'A company or an individual' });

export const Client = Type.Object({
  client_id: Id,
  client_name: Type.String(),
  client_type: ClientTypeSchema,
  billing_cycle: BillingCycleSchema,
  email: Nullable(Type.String({ description: 'From the default active location' })),
  phone_no: Nullable(Type.String({ description: 'From the default active location' })),
  address: Nullable(Type.String({ description: 'The default active location as one line; null when it has no address' })),
  payment_terms: Nullable(Type.String()),
  default_currency_code: Type.String({ description: 'ISO 4217' }),
  client_since: Nullable(DateOnly),
  tax_id_number: Nullable(Type.String()),
  is_inactive: Type.Boolean(),
  merged_into_client_id: Nullable(Id),
  merged_at: Nullable(Timestamp),
  merged_by: Nullable(Type.Unsafe<string>({ ...Id, description: 'The user who merged this client (set on a tombstone)' })),
  parent_client_id: Nullable(Type.Unsafe<string>({ ...Id, description: 'The client above this one (a group or parent company); null at the top' })),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type Client = Static<typeof Client>;

/** Fields a client write may carry (create requires client_name and billing_cycle). */
const writableFields = {
  client_name: Type.String({ minLength: 1, maxLength: 255, description: 'Trimmed; unique per tenant, case-insensitively' }),
  billing_cycle: BillingCycleSchema,
  client_type: ClientTypeSchema,
  default_currency_code: Type.String({ pattern: '^[A-Za-z]{3}$', minLength: 3, maxLength: 3, description: 'ISO 4217 code; stored upper-case' }),
  client_since: Nullable(DateOnly),
  payment_terms: Nullable(Type.String({ maxLength: 100 })),
  tax_id_number: Nullable(Type.String({ maxLength: 255 })),
  is_inactive: Type.Boolean(),
  parent_client_id: Nullable(Type.Unsafe<string>({ ...Id, description: 'The client above this one; it must not be this client or one below it' })),
  email: Nullable(Email),
  phone_no: Nullable(Phone),
};

const optional = <P extends Record<string, TSchema>>(props: P) =>
  Object.fromEntries(Object.entries(props).map(([k, v]) => [k, Type.Optional(v)])) as { [K in keyof P]: ReturnType<typeof Type.Optional<P[K]>> };

const { client_name, billing_cycle, ...optionalFields } = writableFields;

export const CreateClientBody = Type.Object(
  {
    client_name,
    billing_cycle,
    ...optional(optionalFields),
    location: Type.Optional(LocationCreateBody),
  },
  {
    additionalProperties: false,
    description: 'email and phone_no are stored on the default location, so they need `location` (with country_code and country_name)',
  },
);
export type CreateClientBody = Static<typeof CreateClientBody>;

export const UpdateClientBody = Type.Object(optional(writableFields), {
  additionalProperties: false,
  minProperties: 1,
  description: 'Partial update; email and phone_no change the default active location',
});
export type UpdateClientBody = Static<typeof UpdateClientBody>;

export const CLIENT_SORT_FIELDS = ['client_name', 'created_at', 'updated_at', 'client_since', 'billing_cycle'] as const;
export type ClientSortField = (typeof CLIENT_SORT_FIELDS)[number];

export const ListClientsQuery = listQuery(CLIENT_SORT_FIELDS, {
  client_type: Type.Optional(ClientTypeSchema),
  billing_cycle: Type.Optional(BillingCycleSchema),
  is_inactive: Type.Optional(Type.Boolean()),
  is_merged: Type.Optional(Type.Boolean({ description: 'true: only merged (tombstoned) clients; false: only live ones' })),
  include_merged: Type.Optional(Type.Boolean({ description: 'Merged (tombstoned) clients are left out unless this is true (or is_merged=true)' })),
  parent_client_id: Type.Optional(Type.Unsafe<string>({ type: 'string', format: 'uuid', description: 'Only the direct children of this client' })),
  search: Type.Optional(Type.String({ maxLength: 200, description: 'Case-insensitive substring of the name, tax ID, or the default location\'s email, phone or city; blank means no search' })),
});
export type ListClientsQuery = Static<typeof ListClientsQuery>;

const countsOf = (keys: readonly string[]) =>
  Type.Object(Object.fromEntries(keys.map((k) => [k, Type.Integer({ minimum: 0 })])));

export const ClientStats = Type.Object({
  total_clients: Type.Integer({ description: 'Live clients (merged ones excluded)' }),
  active_clients: Type.Integer(),
  inactive_clients: Type.Integer(),
  merged_clients: Type.Integer({ description: 'Tombstones left by merges; counted nowhere else' }),
  clients_by_billing_cycle: countsOf(BILLING_CYCLES),
  clients_by_client_type: countsOf(CLIENT_TYPES),
});
export type ClientStats = Static<typeof ClientStats>;

export const NoQuery = Type.Object({}, { additionalProperties: false });

export const ClientResponse = dataOf(Client);
export const ClientListResponse = listOf(Client);
export const ClientStatsResponse = dataOf(ClientStats);
