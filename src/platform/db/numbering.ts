import { sql, type Kysely, type Transaction } from 'kysely';
import { conflict } from '../http/errors.ts';
import type { DB } from './schema.ts';
import { withTransaction } from './executor.ts';
import { ASYNC_COMMIT } from './async-commit.ts';
import { PREPARE_MARK } from './prepared.ts';

/**
 * Per-tenant record numbers (T-000042, P-000007) that are unique and gapless without making concurrent
 * creates queue behind each other's whole transaction.
 *
 * Taking the number from the counter inside the create's transaction locks the counter row until that
 * transaction commits, so creates in one tenant ran one at a time, each holding the lock across every
 * round trip of its writes (tags, search document, events). Instead a create first *reserves* a number in
 * a statement of its own (the counter row is locked only for that statement), then the statement that inserts
 * its record deletes the reservation. A create that fails gives its number back at once; one whose process
 * dies leaves a reservation that expires and is handed to a later create. Every number the counter gave out
 * is therefore on a record or reserved — a number is never skipped, though a reused one can be lower than
 * numbers given out before it.
 */
export type NumberSequence = 'ticket' | 'project';

const COUNTERS = { ticket: 'ticket_number_counters', project: 'project_number_counters' } as const satisfies Record<NumberSequence, keyof DB>;

/** Far longer than any create's transaction; only a crashed create's reservation ever gets this old. */
const RESERVATION_MS = 60 * 60_000;

/**
 * A number reserved for one create. The create's insert consumes it (`consuming`): the statement that writes
 * the record also deletes the reservation, so the reservation costs the create's transaction no round trip
 * of its own.
 */
export class ReservedNumber {
  /** Set when an insert was built to consume the reservation (withReservedNumber checks it). */
  consumed = false;

  constructor(
    readonly tenant: string,
    readonly sequence: NumberSequence,
    readonly seq: number,
    readonly until: Date,
  ) {}
}

/** The number columns, NOT NULL: an insert whose reservation is gone writes null there and is refused. */
const NUMBER_COLUMNS = { ticket: 'ticket_seq', project: 'project_seq' } as const satisfies Record<NumberSequence, string>;

/**
 * The statement creator for the insert that takes `reserved`'s number: a CTE `reservation` deletes the
 * reservation, and the insert reads its number with `reservedSeq` — null when the reservation was reassigned
 * (only a create stalled past its lifetime loses it), which the number column's NOT NULL refuses.
 */
export function consuming(db: Transaction<DB>, reserved: ReservedNumber) {
  reserved.consumed = true;
  return db.with('reservation', (qc) => qc.deleteFrom('number_reservations')
    .where('tenant', '=', reserved.tenant).where('sequence', '=', reserved.sequence)
    .where('seq', '=', reserved.seq).where('reserved_until', '=', reserved.until)
    .returning('seq'));
}

/** The consumed reservation's number, as the value of the insert's number column (see consuming). */
export const reservedSeq = sql<number>`(select reservation.seq from reservation)`;

/**
 * Runs `create` in a transaction with a reserved number: the lowest expired reservation of the tenant's
 * sequence if there is one, else the counter's next. `create` inserts its record through `consuming`. Call it
 * outside any transaction (the reservation commits on its own).
 */
export async function withReservedNumber<T>(db: Kysely<DB>, tenant: string, sequence: NumberSequence, create: (trx: Transaction<DB>, reserved: ReservedNumber) => Promise<T>): Promise<T> {
  const until = new Date(Date.now() + RESERVATION_MS);
  const reserved = new ReservedNumber(tenant, sequence, await reserve(db, tenant, sequence, until), until);
  try {
    return await withTransaction(db, async (trx) => {
      const created = await create(trx, reserved);
      // A create that kept its number without consuming it would leave the reservation to be handed out again.
      if (!reserved.consumed) throw new Error(`withReservedNumber: the ${sequence} create did not consume its reservation`);
      return created;
    });
  } catch (err) {
    // Given back at once; if even that fails (the database went away), the reservation expires instead.
    await db.updateTable('number_reservations').set({ reserved_until: new Date(0) })
      .where('tenant', '=', tenant).where('sequence', '=', sequence).where('seq', '=', reserved.seq).where('reserved_until', '=', until)
      .execute()
      .catch(() => undefined);
    const { code, column } = (err ?? {}) as { code?: unknown; column?: unknown };
    if (code === '23502' && column === NUMBER_COLUMNS[sequence]) throw conflict('The create took too long and its number was reassigned; send it again');
    throw err;
  }
}

/**
 * The next number inside a transaction already open (a create that is one step of another write): the
 * counter row stays locked until that transaction ends, as the price of not reserving outside it.
 */
export async function nextNumberInTrx(trx: Transaction<DB>, tenant: string, sequence: NumberSequence): Promise<number> {
  const counter = sql.table(COUNTERS[sequence]);
  const { rows } = await sql<{ n: number }>`
    insert into ${counter} as c (tenant, last_number) values (${tenant}, 1)
    on conflict (tenant) do update set last_number = c.last_number + 1
    returning last_number as n`.execute(trx);
  return Number(rows[0]!.n);
}

async function reserve(db: Kysely<DB>, tenant: string, sequence: NumberSequence, until: Date): Promise<number> {
  const counter = sql.table(COUNTERS[sequence]);
  // One statement: reclaim the lowest expired reservation (skipping ones another create is reclaiming),
  // or take the counter's next number and record it as reserved. Prepared, like the reservation's delete:
  // every create runs both, and on PostgreSQL parsing and planning them cost more than running them. Its
  // commit does not wait for the WAL flush (async-commit.ts): the create's own commit follows and flushes it,
  // and the counter row is no longer locked through a flush per create.
  const { rows } = await sql<{ seq: number }>`
    with async_commit as (select ${ASYNC_COMMIT}),
    reclaimed as (
      update number_reservations r set reserved_until = ${until}
      where (r.tenant, r.sequence, r.seq) = (
        select tenant, sequence, seq from number_reservations
        where tenant = ${tenant} and sequence = ${sequence} and reserved_until < now()
        order by seq limit 1 for update skip locked)
      returning r.seq),
    bumped as (
      insert into ${counter} as c (tenant, last_number) select ${tenant}, 1 where not exists (select 1 from reclaimed)
      on conflict (tenant) do update set last_number = c.last_number + 1
      returning last_number),
    recorded as (
      insert into number_reservations (tenant, sequence, seq, reserved_until) select ${tenant}, ${sequence}, last_number, ${until} from bumped
      returning seq)
    select u.seq from (select seq from reclaimed union all select seq from recorded) u, async_commit${sql.raw(PREPARE_MARK)}`.execute(db);
  return Number(rows[0]!.seq);
}
