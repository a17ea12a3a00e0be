import { sql, type Kysely, type Transaction } from 'kysely';
import type { DB } from './schema.ts';

/**
 * What repo functions take first. Inside a transaction pass only the `trx`: on PGlite (one connection)
 * a query issued outside the open transaction waits for it forever.
 */
export type Executor = Kysely<DB> | Transaction<DB>;

const wakeups = new WeakMap<Transaction<DB>, Set<string>>();

/**
 * Runs `fn` in a transaction; after it commits, sends the NOTIFYs the transaction asked for
 * (notifyAfterCommit).
 */
export async function withTransaction<T>(db: Kysely<DB>, fn: (trx: Transaction<DB>) => Promise<T>): Promise<T> {
  let channels: Set<string> | undefined;
  const result = await db.transaction().execute(async (trx) => {
    const value = await fn(trx);
    channels = wakeups.get(trx);
    return value;
  });
  if (channels) for (const channel of channels) wake(db, channel);
  return result;
}

/**
 * Wakes the listeners of `channel` (idle workers) once this transaction has committed. A NOTIFY inside
 * the write transaction would take PostgreSQL's database-wide notification lock at commit and hold it
 * through the commit's WAL flush, so every event-emitting write in the database would commit one at a
 * time. Sent after the commit, it is a tiny transaction of its own; the listeners also poll, so a lost
 * wake-up only adds latency.
 */
export function notifyAfterCommit(trx: Transaction<DB>, channel: string): void {
  let channels = wakeups.get(trx);
  if (!channels) wakeups.set(trx, (channels = new Set()));
  channels.add(channel);
}

/** Per database handle and channel: whether a NOTIFY is on its way, and whether another is owed after it. */
const sending = new WeakMap<Kysely<DB>, Map<string, 'sending' | 'owed'>>();

/** At most one NOTIFY per channel in flight per process; commits meanwhile are covered by one more after it. */
function wake(db: Kysely<DB>, channel: string): void {
  let states = sending.get(db);
  if (!states) sending.set(db, (states = new Map()));
  if (states.has(channel)) {
    states.set(channel, 'owed');
    return;
  }
  const send = (): void => {
    states.set(channel, 'sending');
    void sql`select pg_notify(${channel}, '')`.execute(db).catch(() => undefined).finally(() => {
      if (states.get(channel) === 'owed') send();
      else states.delete(channel);
    });
  };
  send();
}
