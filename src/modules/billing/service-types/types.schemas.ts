import { Type, type Static } from 'typebox';
import { Id, Name, Nullable, Timestamp, dataOf, listOf, listQuery } from '../../../platform/http/schemas.ts';

export const ServiceType = Type.Object({
  service_type_id: Id,
  name: Type.String(),
  description: Nullable(Type.String()),
  is_builtin: Type.Boolean({ description: 'Every tenant has the built-in types; they can be renamed or deactivated, not deleted' }),
  is_active: Type.Boolean(),
  item_count: Type.Integer({ description: 'Catalogue services and products of this type' }),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type ServiceType = Static<typeof ServiceType>;

export const CreateServiceTypeBody = Type.Object(
  {
    name: Name,
    description: Type.Optional(Nullable(Type.String({ maxLength: 2000 }))),
    is_active: Type.Optional(Type.Boolean({ default: true })),
  },
  { additionalProperties: false },
);
export type CreateServiceTypeBody = Static<typeof CreateServiceTypeBody>;

export const UpdateServiceTypeBody = Type.Object(
  {
    name: Type.Optional(Name),
    description: Type.Optional(Nullable(Type.String({ maxLength: 2000 }))),
    is_active: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false, minProperties: 1, description: 'Partial update' },
);
export type UpdateServiceTypeBody = Static<typeof UpdateServiceTypeBody>;

export const SERVICE_TYPE_SORT_FIELDS = ['name', 'created_at', 'updated_at'] as const;
export const ListServiceTypesQuery = listQuery(SERVICE_TYPE_SORT_FIELDS, {
  search: Type.Optional(Type.String({ maxLength: 255, description: 'Part of the name, any case' })),
  is_active: Type.Optional(Type.Boolean()),
});
export type ListServiceTypesQuery = Static<typeof ListServiceTypesQuery>;

export const ServiceTypeResponse = dataOf(ServiceType);
export const ServiceTypeListResponse = listOf(ServiceType);
