import { sql } from 'kysely';
import type { Executor } from '../../platform/db/executor.ts';
import type { DB } from '../../platform/db/schema.ts';

interface Dependent {
  /** Key in the 409's `details`. */
  name: string;
  table: keyof DB;
  /** Column holding the client id (every table also has `tenant`). */
  column: string;
}

/**
 * Records that keep a client from being deleted. An area whose rows point at clients (tickets,
 * projects, assets, …) adds one line here. Locations, billing profiles and notes are owned by the client
 * and go with it.
 */
export const CLIENT_DEPENDENTS: readonly Dependent[] = [
  { name: 'contacts', table: 'contacts', column: 'client_id' },
  { name: 'portal_users', table: 'users', column: 'client_id' },
  { name: 'merged_clients', table: 'clients', column: 'merged_into_client_id' },
  { name: 'tickets', table: 'tickets', column: 'client_id' },
  { name: 'assets', table: 'assets', column: 'client_id' },
  { name: 'projects', table: 'projects', column: 'client_id' },
  { name: 'contracts', table: 'contracts', column: 'client_id' },
  { name: 'usage_records', table: 'usage_records', column: 'client_id' },
  { name: 'invoices', table: 'invoices', column: 'client_id' },
  { name: 'quotes', table: 'quotes', column: 'client_id' },
  { name: 'client_credit_entries', table: 'client_credit_entries', column: 'client_id' },
  { name: 'opportunities', table: 'opportunities', column: 'client_id' },
  { name: 'interactions', table: 'interactions', column: 'client_id' },
];

/** Counts every dependent in one round trip; returns only the non-zero counts. */
export async function countClientDependents(db: Executor, tenant: string, clientId: string): Promise<Record<string, number>> {
  const columns = CLIENT_DEPENDENTS.map(
    (d) =>
      sql`(select count(*) from ${sql.table(d.table)} where tenant = ${tenant} and ${sql.ref(d.column)} = ${clientId}) as ${sql.id(d.name)}`,
  );
  const { rows } = await sql<Record<string, number | string>>`select ${sql.join(columns)}`.execute(db);
  const counts: Record<string, number> = {};
  for (const [name, n] of Object.entries(rows[0] ?? {})) if (Number(n) > 0) counts[name] = Number(n);
  return counts;
}
