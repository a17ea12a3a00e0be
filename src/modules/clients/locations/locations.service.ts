import type { Kysely, Transaction } from 'kysely';
import type { Actor } from '../../../platform/auth/context.ts';
import { withTransaction } from '../../../platform/db/executor.ts';
import type { DB } from '../../../platform/db/schema.ts';
import { assertIfMatch } from '../../../platform/http/etag.ts';
import { notFound } from '../../../platform/http/errors.ts';
import { lockWritableClient, requireVisibleClient } from '../clients.access.ts';
import { emitClientUpdated } from '../clients.events.ts';
import { updateClient } from '../clients.repo.ts';
import { toLocation } from './locations.mapper.ts';
import { findLocation, listLocations, type LocationRow } from './locations.repo.ts';
import { addLocation, changeLocation, normalizeLocationFields, removeLocation } from './locations.rules.ts';
import type { Location, LocationCreateBody, LocationUpdateBody } from './locations.schemas.ts';

export function createLocationsService(deps: { db: Kysely<DB> }) {
  const { db } = deps;

  /** Every location write changes the client's email/phone/address view: bump it and say so. */
  const afterWrite = async (trx: Transaction<DB>, actor: Actor, clientId: string, locationId: string, now: Date) => {
    await updateClient(trx, actor.tenant, clientId, { updated_at: now });
    await emitClientUpdated(trx, actor.tenant, clientId, ['locations'], { location_id: locationId });
  };

  const lockLocation = async (trx: Transaction<DB>, actor: Actor, clientId: string, locationId: string, ifMatch: string | undefined): Promise<LocationRow> => {
    await lockWritableClient(trx, actor, clientId);
    const row = await findLocation(trx, actor.tenant, clientId, locationId, true);
    if (!row) throw notFound('Location', locationId);
    assertIfMatch(ifMatch, toLocation(row));
    return row;
  };

  return {
    async list(actor: Actor, clientId: string): Promise<Location[]> {
      await requireVisibleClient(db, actor, clientId);
      return (await listLocations(db, actor.tenant, clientId)).map(toLocation);
    },

    async get(actor: Actor, clientId: string, locationId: string): Promise<Location> {
      await requireVisibleClient(db, actor, clientId);
      const row = await findLocation(db, actor.tenant, clientId, locationId);
      if (!row) throw notFound('Location', locationId);
      return toLocation(row);
    },

    async create(actor: Actor, clientId: string, body: LocationCreateBody): Promise<Location> {
      normalizeLocationFields(body); // validate before opening a transaction
      return withTransaction(db, async (trx) => {
        await lockWritableClient(trx, actor, clientId);
        const now = new Date();
        const row = await addLocation(trx, actor.tenant, clientId, body, now);
        await afterWrite(trx, actor, clientId, row.location_id, now);
        return toLocation(row);
      });
    },

    async update(actor: Actor, clientId: string, locationId: string, body: LocationUpdateBody, ifMatch?: string): Promise<Location> {
      normalizeLocationFields(body);
      return withTransaction(db, async (trx) => {
        const row = await lockLocation(trx, actor, clientId, locationId, ifMatch);
        const now = new Date();
        const updated = await changeLocation(trx, actor.tenant, row, body, now);
        await afterWrite(trx, actor, clientId, locationId, now);
        return toLocation(updated);
      });
    },

    async remove(actor: Actor, clientId: string, locationId: string, ifMatch?: string): Promise<void> {
      await withTransaction(db, async (trx) => {
        const row = await lockLocation(trx, actor, clientId, locationId, ifMatch);
        const now = new Date();
        await removeLocation(trx, actor.tenant, row, now);
        await afterWrite(trx, actor, clientId, locationId, now);
      });
    },
  };
}

export type LocationsService = ReturnType<typeof createLocationsService>;
