import type { BillingProfileRow, ProfileContactRow } from './billing-profiles.repo.ts';
import type { BillingProfile, ProfileContact } from './billing-profiles.schemas.ts';

export const toBillingProfile = (row: BillingProfileRow): BillingProfile => ({
  billing_profile_id: row.billing_profile_id,
  client_id: row.client_id,
  name: row.name,
  is_default: row.is_default,
  is_active: row.is_active,
  created_at: row.created_at.toISOString(),
  updated_at: row.updated_at.toISOString(),
});

export const toProfileContact = (row: ProfileContactRow): ProfileContact => ({
  contact_id: row.contact_id,
  full_name: row.full_name,
  email: row.email,
  can_view_profile_tickets: row.can_view_profile_tickets,
});
