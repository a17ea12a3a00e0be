import { sql } from 'kysely';

/**
 * Evaluated inside a statement that runs on its own (autocommit), this lets that statement's commit return
 * without waiting for its WAL flush (`synchronous_commit = off`, for this transaction only). A flush costs
 * about a millisecond on the machines measured; a number reservation held its counter row locked through it,
 * so one tenant's creates reserved one flush at a time.
 *
 * Use it only for a write that a synchronous commit always follows before anything depends on it: the
 * reservation a create's transaction then uses, the delivery row its handler's transaction follows. The WAL
 * is one sequence, so that later commit's flush makes the earlier write durable too, and PostgreSQL never
 * loses an earlier commit while keeping a later one. A crash before it loses both together, which is what
 * the sender saw (no answer): a number that was never used is handed out again, gapless as before.
 *
 * Where it goes: a CTE the statement reads (`numbering.ts`), or a RETURNING column.
 */
export const ASYNC_COMMIT = sql<string>`set_config('synchronous_commit', 'off', true)`;
