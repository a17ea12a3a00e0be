import { Type, type Static } from 'typebox';
import { Email, Id, Nullable, Phone, Timestamp, dataOf } from '../../../platform/http/schemas.ts';

export const Location = Type.Object({
  location_id: Id,
  client_id: Id,
  location_name: Nullable(Type.String()),
  address_line1: Nullable(Type.String()),
  address_line2: Nullable(Type.String()),
  city: Nullable(Type.String()),
  state_province: Nullable(Type.String()),
  postal_code: Nullable(Type.String()),
  country_code: Type.String({ description: 'ISO 3166-1 alpha-2' }),
  country_name: Type.String(),
  phone: Nullable(Type.String()),
  email: Nullable(Type.String()),
  is_default: Type.Boolean({ description: 'The client\'s default location (always active); its email, phone and address are the client\'s' }),
  is_active: Type.Boolean(),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type Location = Static<typeof Location>;

const text = (maxLength: number) => Type.Optional(Nullable(Type.String({ maxLength })));

const addressFields = {
  location_name: text(255),
  address_line1: text(255),
  address_line2: text(255),
  city: text(255),
  state_province: text(255),
  postal_code: text(20),
  phone: Type.Optional(Nullable(Phone)),
  email: Type.Optional(Nullable(Email)),
  is_default: Type.Optional(Type.Boolean()),
  is_active: Type.Optional(Type.Boolean()),
};

const CountryCode = Type.String({ pattern: '^[A-Za-z]{2}$', minLength: 2, maxLength: 2, description: 'ISO 3166-1 alpha-2 (any case; stored upper-case)' });
const CountryName = Type.String({ minLength: 1, maxLength: 100 });

export const LocationCreateBody = Type.Object(
  { ...addressFields, country_code: CountryCode, country_name: CountryName },
  {
    additionalProperties: false,
    description: 'The first active location of a client becomes its default automatically; is_default: true moves the default here',
  },
);
export type LocationCreateBody = Static<typeof LocationCreateBody>;

export const LocationUpdateBody = Type.Object(
  { ...addressFields, country_code: Type.Optional(CountryCode), country_name: Type.Optional(CountryName) },
  { additionalProperties: false, minProperties: 1, description: 'Partial update' },
);
export type LocationUpdateBody = Static<typeof LocationUpdateBody>;

export const LocationParams = Type.Object({ id: Id, locationId: Id }, { additionalProperties: false });

export const LocationResponse = dataOf(Location);
export const LocationListResponse = Type.Object({ data: Type.Array(Location) });
