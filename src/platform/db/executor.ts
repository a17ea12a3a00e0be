import type { Kysely, Transaction } from 'kysely';
import type { DB } from './schema.ts';

/**
 * What repo functions take first. Inside a transaction pass only the `trx`: on PGlite (one connection)
 * a query issued outside the open transaction waits for it forever.
 */
export type Executor = Kysely<DB> | Transaction<DB>;

export function withTransaction<T>(db: Kysely<DB>, fn: (trx: Transaction<DB>) => Promise<T>): Promise<T> {
  return db.transaction().execute(fn);
}
