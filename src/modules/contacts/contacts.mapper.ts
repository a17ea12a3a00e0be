import type { ContactRow } from './contacts.repo.ts';
import type { Contact } from './contacts.schemas.ts';

export const toContact = (row: ContactRow): Contact => ({
  contact_id: row.contact_id,
  client_id: row.client_id,
  full_name: row.full_name,
  email: row.email,
  phone: row.phone,
  role: row.role,
  is_inactive: row.is_inactive,
  created_at: row.created_at.toISOString(),
  updated_at: row.updated_at.toISOString(),
});
