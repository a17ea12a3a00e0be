import type { LocationRow } from './locations.repo.ts';
import type { Location } from './locations.schemas.ts';

export function toLocation(row: LocationRow): Location {
  return {
    location_id: row.location_id,
    client_id: row.client_id,
    location_name: row.location_name,
    address_line1: row.address_line1,
    address_line2: row.address_line2,
    city: row.city,
    state_province: row.state_province,
    postal_code: row.postal_code,
    country_code: row.country_code,
    country_name: row.country_name,
    phone: row.phone,
    email: row.email,
    is_default: row.is_default,
    is_active: row.is_active,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}
