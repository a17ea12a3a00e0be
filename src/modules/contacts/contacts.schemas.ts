import { Type, type Static } from 'typebox';
import { Email, Id, Nullable, Phone, Timestamp, dataOf, listOf, listQuery } from '../../platform/http/schemas.ts';

export const Contact = Type.Object({
  contact_id: Id,
  client_id: Nullable(Id),
  full_name: Type.String(),
  email: Nullable(Type.String()),
  phone: Nullable(Type.String()),
  role: Nullable(Type.String()),
  is_inactive: Type.Boolean(),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type Contact = Static<typeof Contact>;

const fields = {
  full_name: Type.String({ minLength: 1, maxLength: 255, description: 'Trimmed' }),
  client_id: Nullable(Id),
  email: Nullable(Email),
  phone: Nullable(Phone),
  role: Nullable(Type.String({ maxLength: 100 })),
  is_inactive: Type.Boolean(),
};

export const CreateContactBody = Type.Object(
  {
    full_name: fields.full_name,
    client_id: Type.Optional(fields.client_id),
    email: Type.Optional(fields.email),
    phone: Type.Optional(fields.phone),
    role: Type.Optional(fields.role),
    is_inactive: Type.Optional(fields.is_inactive),
  },
  { additionalProperties: false, description: 'client-portal keys create contacts of their own client only (client_id defaults to it)' },
);
export type CreateContactBody = Static<typeof CreateContactBody>;

export const UpdateContactBody = Type.Object(
  {
    full_name: Type.Optional(fields.full_name),
    client_id: Type.Optional(fields.client_id),
    email: Type.Optional(fields.email),
    phone: Type.Optional(fields.phone),
    role: Type.Optional(fields.role),
    is_inactive: Type.Optional(fields.is_inactive),
  },
  { additionalProperties: false, minProperties: 1, description: 'Partial update; client_id null detaches the contact from its client' },
);
export type UpdateContactBody = Static<typeof UpdateContactBody>;

export const CONTACT_SORT_FIELDS = ['full_name', 'created_at', 'updated_at'] as const;
export type ContactSortField = (typeof CONTACT_SORT_FIELDS)[number];

const commonFilters = {
  is_inactive: Type.Optional(Type.Boolean()),
  search: Type.Optional(Type.String({ maxLength: 200, description: 'Case-insensitive substring of full_name or email; blank means no search' })),
};

export const ListContactsQuery = listQuery(CONTACT_SORT_FIELDS, { client_id: Type.Optional(Id), ...commonFilters });
export type ListContactsQuery = Static<typeof ListContactsQuery>;

export const ListClientContactsQuery = listQuery(CONTACT_SORT_FIELDS, commonFilters);
export type ListClientContactsQuery = Static<typeof ListClientContactsQuery>;

export const NoQuery = Type.Object({}, { additionalProperties: false });

export const ContactResponse = dataOf(Contact);
export const ContactListResponse = listOf(Contact);
