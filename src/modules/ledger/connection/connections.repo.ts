import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Executor } from '../../../platform/db/executor.ts';
import type { LedgerConnectionsTable } from '../../../platform/db/schema.ledger.ts';

export type ConnectionRow = Selectable<LedgerConnectionsTable>;

/** The tenant's connections of one provider, default first, then by when they were connected. */
export function connectionsOf(db: Executor, tenant: string, provider: string): Promise<ConnectionRow[]> {
  return db
    .selectFrom('ledger_connections')
    .selectAll()
    .where('tenant', '=', tenant)
    .where('provider', '=', provider)
    .orderBy('is_default', 'desc')
    .orderBy('created_at')
    .orderBy('connection_id')
    .execute();
}

export function findConnection(db: Executor, tenant: string, connectionId: string, lock = false): Promise<ConnectionRow | undefined> {
  let q = db.selectFrom('ledger_connections').selectAll().where('tenant', '=', tenant).where('connection_id', '=', connectionId);
  if (lock) q = q.forUpdate();
  return q.executeTakeFirst();
}

export function findConnectionByRealm(db: Executor, tenant: string, provider: string, realmId: string): Promise<ConnectionRow | undefined> {
  return db.selectFrom('ledger_connections').selectAll().where('tenant', '=', tenant).where('provider', '=', provider).where('realm_id', '=', realmId).executeTakeFirst();
}

export async function updateConnection(db: Executor, tenant: string, connectionId: string, values: Updateable<LedgerConnectionsTable>): Promise<void> {
  await db.updateTable('ledger_connections').set({ ...values, updated_at: new Date() }).where('tenant', '=', tenant).where('connection_id', '=', connectionId).execute();
}

export async function insertConnection(db: Executor, row: Insertable<LedgerConnectionsTable>): Promise<void> {
  await db.insertInto('ledger_connections').values(row).execute();
}

/** Records a started OAuth flow (its nonce makes the state single-use). */
export async function insertOAuthState(db: Executor, row: { tenant: string; nonce: string; provider: string; redirect_uri: string; user_id: string | null; expires_at: Date }): Promise<void> {
  await db.insertInto('ledger_oauth_states').values(row).execute();
}

/**
 * Consumes a state once: true for the first caller, false when it is unknown or already used. Expired rows
 * are purged on the way, so the table holds only flows in progress.
 */
export async function consumeOAuthState(db: Executor, tenant: string, nonce: string, now: Date): Promise<boolean> {
  await db.deleteFrom('ledger_oauth_states').where('expires_at', '<', new Date(now.getTime() - 24 * 3600_000)).execute();
  const row = await db
    .updateTable('ledger_oauth_states')
    .set({ used_at: now })
    .where('tenant', '=', tenant)
    .where('nonce', '=', nonce)
    .where('used_at', 'is', null)
    .returning('nonce')
    .executeTakeFirst();
  return row !== undefined;
}

/** Every connected company of every tenant with its tenant's health configuration (the monitor's round). */
export function monitoredConnections(db: Executor) {
  return db
    .selectFrom('ledger_connections as c')
    .leftJoin('ledger_health_config as h', 'h.tenant', 'c.tenant')
    .select(['c.tenant', 'c.connection_id', 'c.realm_id', 'c.display_name', 'c.health_checked_at', 'c.health_status', 'c.health_alerted_at', 'h.config'])
    .where('c.status', '<>', 'disconnected')
    .orderBy('c.tenant')
    .orderBy('c.connection_id')
    .execute();
}
