import type { Transaction } from 'kysely';
import type { DB } from '../../../platform/db/schema.ts';
import { conflict, unprocessable, validation } from '../../../platform/http/errors.ts';
import { newId } from '../../../platform/ids.ts';
import { findCountry } from '../../countries/index.ts';
import {
  deleteLocation,
  findDefaultLocation,
  findSuccessor,
  insertLocation,
  updateLocation,
  type LocationRow,
} from './locations.repo.ts';
import type { LocationCreateBody, LocationUpdateBody } from './locations.schemas.ts';

/*
 * The default-location invariant: while any location of a client is active, exactly one of them is the
 * default, and a default is always active. Every function here runs inside a transaction that holds the
 * client row's lock, so two writers never juggle the same client's default at once. The partial unique
 * index (one default per client) is checked per statement, so an old default is always cleared before a
 * new one is set.
 */

const TEXT_FIELDS = ['location_name', 'address_line1', 'address_line2', 'city', 'state_province', 'postal_code', 'phone', 'email'] as const;

type TextField = (typeof TEXT_FIELDS)[number];
type LocationFields = Partial<Record<TextField, string | null>> & { country_code?: string; country_name?: string };

/** Trims text fields (blank becomes null) and checks and upper-cases the country code. */
export function normalizeLocationFields(body: LocationUpdateBody, path = 'body'): LocationFields {
  const out: LocationFields = {};
  for (const f of TEXT_FIELDS) {
    const v = body[f];
    if (v !== undefined) out[f] = v === null || v.trim() === '' ? null : v.trim();
  }
  if (body.country_code !== undefined) {
    const country = findCountry(body.country_code);
    if (!country) throw validation(`${path}.country_code`, `'${body.country_code}' is not an ISO 3166-1 alpha-2 country code`);
    out.country_code = country.code;
  }
  if (body.country_name !== undefined) {
    if (body.country_name.trim() === '') throw validation(`${path}.country_name`, 'must not be blank');
    out.country_name = body.country_name.trim();
  }
  if (body.is_default === true && body.is_active === false) {
    throw validation(`${path}.is_default`, 'a default location must be active; it cannot be is_default with is_active false');
  }
  return out;
}

/** Adds a location; the first active one becomes the default, and is_default: true takes it over. */
export async function addLocation(
  trx: Transaction<DB>,
  tenant: string,
  clientId: string,
  body: LocationCreateBody,
  now: Date,
  path = 'body',
): Promise<LocationRow> {
  const fields = normalizeLocationFields(body, path);
  const isActive = body.is_active ?? true;
  let isDefault = false;
  if (isActive) {
    const current = await findDefaultLocation(trx, tenant, clientId);
    if (!current) isDefault = true;
    else if (body.is_default === true) {
      await updateLocation(trx, tenant, current.location_id, { is_default: false, updated_at: now });
      isDefault = true;
    }
  }
  return insertLocation(trx, {
    ...fields,
    country_code: fields.country_code!,
    country_name: fields.country_name!,
    tenant,
    client_id: clientId,
    location_id: newId(),
    is_active: isActive,
    is_default: isDefault,
    created_at: now,
    updated_at: now,
  });
}

/** Applies a partial update to a (locked) location, moving the default where the rules say. */
export async function changeLocation(
  trx: Transaction<DB>,
  tenant: string,
  row: LocationRow,
  body: LocationUpdateBody,
  now: Date,
): Promise<LocationRow> {
  const fields = normalizeLocationFields(body);
  const isActive = body.is_active ?? row.is_active;
  if (body.is_default === true && !isActive) {
    throw unprocessable('A default location must be active; send is_active: true together with is_default: true');
  }

  let isDefault = row.is_default;
  let successor: LocationRow | undefined;
  if (!row.is_default && isActive && (body.is_default === true || !row.is_active)) {
    // Taking the default over, or becoming active while the client has no default.
    const current = await findDefaultLocation(trx, tenant, row.client_id);
    if (current && body.is_default === true) {
      await updateLocation(trx, tenant, current.location_id, { is_default: false, updated_at: now });
    }
    isDefault = body.is_default === true || !current;
  } else if (row.is_default && (body.is_default === false || !isActive)) {
    // Giving the default up: the oldest other active location takes it.
    successor = await findSuccessor(trx, tenant, row.client_id, row.location_id);
    if (!successor && isActive) {
      throw conflict('Cannot unset is_default: this is the client\'s only active location, and an active client location must be the default');
    }
    isDefault = false;
  }

  const updated = await updateLocation(trx, tenant, row.location_id, { ...fields, is_active: isActive, is_default: isDefault, updated_at: now });
  if (successor) await updateLocation(trx, tenant, successor.location_id, { is_default: true, updated_at: now });
  return updated;
}

/** Deletes a (locked) location; when it was the default, the oldest other active location takes over. */
export async function removeLocation(trx: Transaction<DB>, tenant: string, row: LocationRow, now: Date): Promise<void> {
  await deleteLocation(trx, tenant, row.location_id);
  if (!row.is_default) return;
  const successor = await findSuccessor(trx, tenant, row.client_id, row.location_id);
  if (successor) await updateLocation(trx, tenant, successor.location_id, { is_default: true, updated_at: now });
}
