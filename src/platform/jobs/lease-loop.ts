import type { Database } from '../db/database.ts';

export interface LoopLog {
  info(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/** What a leased queue plugs into LeaseLoop: how to claim, process and renew its rows. */
export interface LeasedWork<T> {
  /**
   * How many rows to claim now, given how many this loop holds; 0 means full: the loop sleeps until
   * wake() (a freed slot), a NOTIFY or the poll.
   */
  capacity(held: number): number;
  /**
   * Claims up to `limit` due rows under a lease. `claimed` counts every row the claim took, including
   * those it handed straight back (rate-limited, parked): fewer than `limit` means the queue is drained.
   */
  claim(limit: number): Promise<{ claimed: number; items: T[] }>;
  /** Processes a claimed batch; resolves once every item's outcome is recorded. Must not throw. */
  process(items: T[]): Promise<void>;
  /** Extends the lease of rows still held (the heartbeat of a live worker). */
  renew(items: T[]): Promise<void>;
}

export interface LeaseLoopOptions {
  /** Names the loop in logs. */
  name: string;
  /** NOTIFY channel that announces new rows; a notification wakes the loop at once. */
  channel: string;
  leaseMs: number;
  /** Idle poll interval: due times pass without a NOTIFY (retries, schedules, expired leases). */
  pollMs: number;
  log: LoopLog;
}

/**
 * The one claim loop of every database-backed queue (outbox relay, jobs, webhook deliveries): claim up
 * to capacity, hand the batch to `process` without waiting, renew the leases of everything held every
 * leaseMs/3, and sleep when drained or full until a NOTIFY, wake() or the poll interval. stop() stops
 * claiming and lets the work in flight finish (renewing its leases until then).
 */
export class LeaseLoop<T> {
  private readonly held = new Set<T>();
  private readonly inFlight = new Set<Promise<void>>();
  private running = false;
  private loop: Promise<void> | undefined;
  private wakeUp: (() => void) | undefined;
  // A wake that arrives while a pass runs (after its claim saw nothing) must not wait for the poll: it
  // is remembered and the next sleep returns at once.
  private woken = false;
  private unlisten: (() => Promise<void>) | undefined;
  private renewTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly database: Pick<Database, 'listen'>,
    private readonly work: LeasedWork<T>,
    private readonly opts: LeaseLoopOptions,
  ) {}

  get heldCount(): number {
    return this.held.size;
  }

  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    this.unlisten = await this.database.listen(this.opts.channel, () => this.wake());
    this.renewTimer = setInterval(() => void this.renew(), Math.max(50, Math.floor(this.opts.leaseMs / 3)));
    this.loop = this.run();
  }

  /** Stops claiming, waits for the batches in flight, then stops renewing and listening. */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    this.wake();
    await this.loop;
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight]);
    clearInterval(this.renewTimer);
    await this.unlisten?.();
  }

  /** Ends the current or next sleep (new rows, or the work has room again). */
  wake(): void {
    if (this.wakeUp) this.wakeUp();
    else this.woken = true;
  }

  private async run(): Promise<void> {
    while (this.running) {
      const wanted = Math.max(0, this.work.capacity(this.held.size));
      let claimed = 0;
      if (wanted > 0) {
        try {
          const batch = await this.work.claim(wanted);
          claimed = batch.claimed;
          if (batch.items.length > 0) this.launch(batch.items);
        } catch (err) {
          if (this.running) this.opts.log.error({ err, loop: this.opts.name }, `${this.opts.name}: claim failed`);
        }
      }
      if (!this.running) break;
      if (wanted === 0 || claimed < wanted) await this.sleep(this.opts.pollMs);
    }
  }

  private launch(items: T[]): void {
    for (const item of items) this.held.add(item);
    const done: Promise<void> = this.work
      .process(items)
      .catch((err: unknown) => this.opts.log.error({ err, loop: this.opts.name }, `${this.opts.name}: processing failed`))
      .finally(() => {
        for (const item of items) this.held.delete(item);
        this.inFlight.delete(done);
        this.wake();
      });
    this.inFlight.add(done);
  }

  private async renew(): Promise<void> {
    if (this.held.size === 0) return;
    try {
      await this.work.renew([...this.held]);
    } catch (err) {
      this.opts.log.error({ err, loop: this.opts.name }, `${this.opts.name}: renewing leases failed`);
    }
  }

  private sleep(ms: number): Promise<void> {
    if (this.woken) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wakeUp = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wakeUp = done;
    });
  }
}
