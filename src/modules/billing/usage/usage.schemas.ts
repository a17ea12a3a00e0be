import { Type, type Static } from 'typebox';
import { DateOnly, Id, Nullable, Timestamp, dataOf, listOf, listQuery } from '../../../platform/http/schemas.ts';

const Quantity = Type.Number({ exclusiveMinimum: 0, maximum: 1_000_000_000, description: 'How much was used, up to four decimals, in the service’s unit_of_measure' });

export const UsageRecord = Type.Object({
  usage_id: Id,
  client_id: Id,
  client_name: Type.String(),
  service_id: Id,
  service_name: Type.String(),
  unit_of_measure: Type.String(),
  quantity: Type.Number(),
  usage_date: DateOnly,
  description: Nullable(Type.String()),
  created_by: Nullable(Id),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type UsageRecord = Static<typeof UsageRecord>;

export const CreateUsageRecordBody = Type.Object(
  {
    client_id: Id,
    service_id: Type.Unsafe<string>({ ...Id, description: 'A catalogue item billed by usage (a usage service or a product)' }),
    quantity: Quantity,
    usage_date: Type.Optional(Type.String({ format: 'date', description: 'YYYY-MM-DD (default today, UTC)' })),
    description: Type.Optional(Nullable(Type.String({ maxLength: 2000 }))),
  },
  { additionalProperties: false },
);
export type CreateUsageRecordBody = Static<typeof CreateUsageRecordBody>;

export const UpdateUsageRecordBody = Type.Object(
  {
    quantity: Type.Optional(Quantity),
    usage_date: Type.Optional(DateOnly),
    description: Type.Optional(Nullable(Type.String({ maxLength: 2000 }))),
  },
  { additionalProperties: false, minProperties: 1, description: 'Partial update (client and service are fixed; record anew to change them)' },
);
export type UpdateUsageRecordBody = Static<typeof UpdateUsageRecordBody>;

export const USAGE_SORT_FIELDS = ['usage_date', 'quantity', 'created_at', 'updated_at'] as const;
export const ListUsageRecordsQuery = listQuery(USAGE_SORT_FIELDS, {
  client_id: Type.Optional(Id),
  service_id: Type.Optional(Id),
  from: Type.Optional(Type.String({ format: 'date', description: 'usage_date on or after (YYYY-MM-DD)' })),
  to: Type.Optional(Type.String({ format: 'date', description: 'usage_date on or before (YYYY-MM-DD)' })),
});
export type ListUsageRecordsQuery = Static<typeof ListUsageRecordsQuery>;

export const UsageRecordResponse = dataOf(UsageRecord);
export const UsageRecordListResponse = listOf(UsageRecord);
