import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';

export interface OutboxEvent {
  tenant: string;
  event_id: string;
  event_type: string;
  aggregate_type: string;
  aggregate_id: string;
  payload: Record<string, unknown>;
  occurred_at: Date;
  attempts: number;
}

/** A consumer must be idempotent on event_id: delivery is at least once. */
export interface Consumer {
  name: string;
  handle(event: OutboxEvent): Promise<void>;
}

export interface RelayOptions {
  batchSize?: number;
  /** How long a claim lasts before another worker may take the event over (a crashed worker). */
  leaseMs?: number;
  maxAttempts?: number;
  /** Delay before retry n (1-based). */
  backoffMs?: (attempt: number) => number;
}

const defaultBackoff = (attempt: number) => Math.min(60 * 60_000, 1000 * 2 ** (attempt - 1));

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
    private readonly log: { error(obj: object, msg: string): void },
    options: RelayOptions = {},
  ) {
    this.batchSize = options.batchSize ?? 50;
    this.leaseMs = options.leaseMs ?? 60_000;
    this.maxAttempts = options.maxAttempts ?? 10;
    this.backoffMs = options.backoffMs ?? defaultBackoff;
  }

  async claim(): Promise<(OutboxEvent & { completed_consumers: string[] })[]> {
    const result = await sql<OutboxEvent & { completed_consumers: string[] }>`
      update events e set status = 'processing', attempts = e.attempts + 1,
        locked_until = now() + ${`${this.leaseMs} milliseconds`}::interval
      from (
        select tenant, event_id from events
        where (status = 'pending' and next_attempt_at <= now())
           or (status = 'processing' and locked_until < now())
        order by next_attempt_at
        limit ${this.batchSize}
        for update skip locked
      ) due
      where e.tenant = due.tenant and e.event_id = due.event_id
      returning e.tenant, e.event_id, e.event_type, e.aggregate_type, e.aggregate_id, e.payload,
        e.occurred_at, e.attempts, e.completed_consumers`.execute(this.db);
    return result.rows;
  }

  /** One pass: claim a batch and process it. Returns how many events were claimed. */
  async runOnce(): Promise<number> {
    const batch = await this.claim();
    for (const event of batch) await this.process(event);
    return batch.length;
  }

  private async process(event: OutboxEvent & { completed_consumers: string[] }): Promise<void> {
    const completed = [...event.completed_consumers];
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
    const base = this.db.updateTable('events').where('tenant', '=', event.tenant).where('event_id', '=', event.event_id);
    if (errors.length === 0) {
      await base.set({ status: 'done', processed_at: new Date(), locked_until: null, completed_consumers: completed, last_error: null }).execute();
      return;
    }
    const dead = event.attempts >= this.maxAttempts;
    await base
      .set({
        status: dead ? 'dead' : 'pending',
        locked_until: null,
        completed_consumers: completed,
        last_error: errors.join('\n'),
        next_attempt_at: new Date(Date.now() + this.backoffMs(event.attempts)),
      })
      .execute();
  }
}
