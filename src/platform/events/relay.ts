import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/database.ts';
import type { DB } from '../db/schema.ts';
import { LeaseLoop, type LoopLog } from '../jobs/lease-loop.ts';
import { defaultBackoff } from '../jobs/types.ts';
import type { EventCause } from './cause.ts';
import { EVENTS_CHANNEL } from './outbox.ts';

export interface OutboxEvent {
  tenant: string;
  event_id: string;
  event_type: string;
  aggregate_type: string;
  aggregate_id: string;
  payload: Record<string, unknown>;
  occurred_at: Date;
  attempts: number;
  /** Set when an automation action emitted the event. */
  cause: EventCause | null;
}

/** A consumer must be idempotent on event_id: delivery is at least once. */
export interface Consumer {
  name: string;
  handle(event: OutboxEvent): Promise<void>;
  /**
   * Optional: handles a claimed batch at once (one round trip instead of one per event). If it throws,
   * the relay falls back to handle() for each of those events, so it must be all-or-nothing or idempotent.
   */
  handleBatch?(events: readonly OutboxEvent[]): Promise<void>;
}

export type ClaimedEvent = OutboxEvent & { completed_consumers: string[] };

export interface RelayOptions {
  batchSize?: number;
  /**
   * How long a claim lasts unrenewed before another worker may take the event over (a crashed worker);
   * a running loop renews what it holds every leaseMs/3. PSA_OUTBOX_LEASE_MS (default 30 s).
   */
  leaseMs?: number;
  maxAttempts?: number;
  /** Delay before retry n (1-based). */
  backoffMs?: (attempt: number) => number;
}

/**
 * Claims due events with FOR UPDATE SKIP LOCKED (so any number of workers share the queue without
 * double-claiming), runs each through every consumer that has not yet succeeded on it, and records
 * the outcome: done, retry later with backoff, or dead after maxAttempts.
 */
export class OutboxRelay {
  private readonly batchSize: number;
  private readonly leaseMs: number;
  private readonly maxAttempts: number;
  private readonly backoffMs: (attempt: number) => number;

  constructor(
    private readonly db: Kysely<DB>,
    private readonly consumers: readonly Consumer[],
    private readonly log: Pick<LoopLog, 'error'>,
    options: RelayOptions = {},
  ) {
    this.batchSize = options.batchSize ?? 50;
    this.leaseMs = options.leaseMs ?? 30_000;
    this.maxAttempts = options.maxAttempts ?? 10;
    this.backoffMs = options.backoffMs ?? defaultBackoff;
  }

  /**
   * The relay in the shared lease loop: one batch at a time (consumers see events in claim order),
   * woken by emit()'s NOTIFY, renewing the batch's leases while its consumers run.
   */
  loop(database: Pick<Database, 'listen'>, opts: { pollMs: number; log: LoopLog }): LeaseLoop<ClaimedEvent> {
    return new LeaseLoop(database, {
      capacity: (held) => (held === 0 ? this.batchSize : 0),
      claim: async (limit) => {
        const items = await this.claim(limit);
        return { claimed: items.length, items };
      },
      process: (batch) => this.processBatch(batch),
      renew: (held) => this.renew(held),
    }, { name: 'outbox relay', channel: EVENTS_CHANNEL, leaseMs: this.leaseMs, pollMs: opts.pollMs, log: opts.log });
  }

  async claim(limit = this.batchSize): Promise<ClaimedEvent[]> {
    const result = await sql<ClaimedEvent>`
      update events e set status = 'processing', attempts = e.attempts + 1,
        locked_until = now() + ${`${this.leaseMs} milliseconds`}::interval
      from (
        select tenant, event_id from events
        where (status = 'pending' and next_attempt_at <= now())
           or (status = 'processing' and locked_until < now())
        order by next_attempt_at
        limit ${limit}
        for update skip locked
      ) due
      where e.tenant = due.tenant and e.event_id = due.event_id
      returning e.tenant, e.event_id, e.event_type, e.aggregate_type, e.aggregate_id, e.payload,
        e.occurred_at, e.attempts, e.cause, e.completed_consumers`.execute(this.db);
    return result.rows;
  }

  /** Extends the leases of events still being processed (only unexpired ones: an expired one may be taken over). */
  async renew(events: readonly ClaimedEvent[]): Promise<void> {
    if (events.length === 0) return;
    await sql`
      update events e set locked_until = now() + ${`${this.leaseMs} milliseconds`}::interval
      from unnest(${events.map((ev) => ev.tenant)}::uuid[], ${events.map((ev) => ev.event_id)}::uuid[]) as h(tenant, event_id)
      where e.tenant = h.tenant and e.event_id = h.event_id and e.status = 'processing' and e.locked_until >= now()`.execute(this.db);
  }

  /** One pass, awaited to the end: claim a batch and process it. Returns how many events were claimed. */
  async runOnce(): Promise<number> {
    const batch = await this.claim();
    await this.processBatch(batch);
    return batch.length;
  }

  /**
   * Consumers with handleBatch see the whole batch at once; the others (and batch consumers whose batch
   * failed) see one event at a time. Events every consumer succeeded on are marked done together.
   */
  async processBatch(batch: readonly ClaimedEvent[]): Promise<void> {
    if (batch.length === 0) return;
    const completed = new Map(batch.map((e) => [e, [...e.completed_consumers]]));
    for (const consumer of this.consumers) {
      if (!consumer.handleBatch) continue;
      const pending = batch.filter((e) => !completed.get(e)!.includes(consumer.name));
      if (pending.length === 0) continue;
      try {
        await consumer.handleBatch(pending);
        for (const e of pending) completed.get(e)!.push(consumer.name);
      } catch (err) {
        this.log.error({ err, consumer: consumer.name, events: pending.length }, 'event consumer batch failed; handling its events one by one');
      }
    }
    const done: { event: OutboxEvent; completed: string[] }[] = [];
    for (const event of batch) {
      const finished = await this.process(event, completed.get(event)!);
      if (finished) done.push({ event, completed: finished });
    }
    await this.markDone(done);
  }

  /** Marks events done in one statement per distinct completed-consumers list (normally one). */
  private async markDone(done: readonly { event: OutboxEvent; completed: string[] }[]): Promise<void> {
    const byList = new Map<string, OutboxEvent[]>();
    for (const d of done) {
      const key = JSON.stringify(d.completed);
      byList.set(key, [...(byList.get(key) ?? []), d.event]);
    }
    for (const [key, events] of byList) {
      await sql`
        update events e set status = 'done', processed_at = now(), locked_until = null,
          completed_consumers = ${JSON.parse(key) as string[]}::text[], last_error = null
        from unnest(${events.map((ev) => ev.tenant)}::uuid[], ${events.map((ev) => ev.event_id)}::uuid[]) as d(tenant, event_id)
        where e.tenant = d.tenant and e.event_id = d.event_id`.execute(this.db);
    }
  }

  /**
   * Runs the consumers that have not yet succeeded on the event. Returns the completed-consumers list
   * when all succeeded (the caller marks it done); otherwise records the failure for a retry and
   * returns undefined.
   */
  private async process(event: ClaimedEvent, already: readonly string[]): Promise<string[] | undefined> {
    const completed = [...already];
    const errors: string[] = [];
    for (const consumer of this.consumers) {
      if (completed.includes(consumer.name)) continue;
      try {
        await consumer.handle(event);
        completed.push(consumer.name);
      } catch (err) {
        errors.push(`${consumer.name}: ${err instanceof Error ? err.message : String(err)}`.slice(0, 500));
        this.log.error({ err, event_id: event.event_id, consumer: consumer.name }, 'event consumer failed');
      }
    }
    if (errors.length === 0) return completed;
    const dead = event.attempts >= this.maxAttempts;
    await this.db
      .updateTable('events')
      .where('tenant', '=', event.tenant)
      .where('event_id', '=', event.event_id)
      .set({
        status: dead ? 'dead' : 'pending',
        locked_until: null,
        completed_consumers: completed,
        last_error: errors.join('\n'),
        next_attempt_at: new Date(Date.now() + this.backoffMs(event.attempts)),
      })
      .execute();
    return undefined;
  }
}
