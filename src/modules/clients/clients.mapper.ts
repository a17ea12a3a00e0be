import type { ClientViewRow } from './clients.repo.ts';
import type { Client } from './clients.schemas.ts';

const present = (s: string | null): s is string => s !== null && s.trim() !== '';

/**
 * The default location's address as one line: address lines, city, state/province, postal code,
 * country. Null when the location has none of the street-level parts (a bare country is no address).
 */
export function formatAddress(row: Pick<ClientViewRow, 'loc_address_line1' | 'loc_address_line2' | 'loc_city' | 'loc_state_province' | 'loc_postal_code' | 'loc_country_name'>): string | null {
  const parts = [row.loc_address_line1, row.loc_address_line2, row.loc_city, row.loc_state_province, row.loc_postal_code].filter(present);
  if (parts.length === 0) return null;
  if (present(row.loc_country_name)) parts.push(row.loc_country_name);
  return parts.map((p) => p.trim()).join(', ');
}

export function toClient(row: ClientViewRow): Client {
  return {
    client_id: row.client_id,
    client_name: row.client_name,
    client_type: row.client_type,
    billing_cycle: row.billing_cycle,
    email: row.loc_email,
    phone_no: row.loc_phone,
    address: formatAddress(row),
    payment_terms: row.payment_terms,
    default_currency_code: row.default_currency_code,
    client_since: row.client_since,
    tax_id_number: row.tax_id_number,
    is_inactive: row.is_inactive,
    merged_into_client_id: row.merged_into_client_id,
    merged_at: row.merged_at?.toISOString() ?? null,
    merged_by: row.merged_by,
    parent_client_id: row.parent_client_id,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}
