import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import type { Executor } from '../../../platform/db/executor.ts';
import type { ClientLocationsTable } from '../../../platform/db/schema.ts';

export type LocationRow = Selectable<ClientLocationsTable>;

/** Default first, then by name (unnamed last), then oldest first. */
export async function listLocations(db: Executor, tenant: string, clientId: string): Promise<LocationRow[]> {
  return db
    .selectFrom('client_locations')
    .selectAll()
    .where('tenant', '=', tenant)
    .where('client_id', '=', clientId)
    .orderBy('is_default', 'desc')
    .orderBy(sql`lower(location_name)`, (ob) => ob.asc().nullsLast())
    .orderBy('created_at', 'asc')
    .orderBy('location_id', 'asc')
    .execute();
}

export async function findLocation(db: Executor, tenant: string, clientId: string, locationId: string, lock = false): Promise<LocationRow | undefined> {
  let q = db
    .selectFrom('client_locations')
    .selectAll()
    .where('tenant', '=', tenant)
    .where('client_id', '=', clientId)
    .where('location_id', '=', locationId);
  if (lock) q = q.forUpdate();
  return q.executeTakeFirst();
}

export async function findDefaultLocation(db: Executor, tenant: string, clientId: string): Promise<LocationRow | undefined> {
  return db
    .selectFrom('client_locations')
    .selectAll()
    .where('tenant', '=', tenant)
    .where('client_id', '=', clientId)
    .where('is_default', '=', true)
    .executeTakeFirst();
}

/** The oldest active location other than `exceptId`: the one promoted when the default goes away. */
export async function findSuccessor(db: Executor, tenant: string, clientId: string, exceptId: string): Promise<LocationRow | undefined> {
  return db
    .selectFrom('client_locations')
    .selectAll()
    .where('tenant', '=', tenant)
    .where('client_id', '=', clientId)
    .where('is_active', '=', true)
    .where('location_id', '!=', exceptId)
    .orderBy('created_at', 'asc')
    .orderBy('location_id', 'asc')
    .limit(1)
    .executeTakeFirst();
}

export async function insertLocation(db: Executor, row: Insertable<ClientLocationsTable>): Promise<LocationRow> {
  return db.insertInto('client_locations').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function updateLocation(db: Executor, tenant: string, locationId: string, set: Updateable<ClientLocationsTable>): Promise<LocationRow> {
  return db
    .updateTable('client_locations')
    .set(set)
    .where('tenant', '=', tenant)
    .where('location_id', '=', locationId)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function deleteLocation(db: Executor, tenant: string, locationId: string): Promise<void> {
  await db.deleteFrom('client_locations').where('tenant', '=', tenant).where('location_id', '=', locationId).execute();
}
