import type { Database } from '../../platform/db/database.ts';
import { withTransaction } from '../../platform/db/executor.ts';
import type { SecretBox } from '../../platform/crypto/secret-box.ts';
import { newId } from '../../platform/ids.ts';
import { LeaseLoop } from '../../platform/jobs/lease-loop.ts';
import type { OutboundClient } from '../../platform/net/outbound-http.ts';
import { DELIVERY_TIMEOUT_MS, sendAttempt, type AttemptResult } from './attempt.ts';
import { WEBHOOK_EVENTS, emitWebhookEvent } from './webhooks.events.ts';
import { DELIVERY_CHANNEL, setDeliveriesPaused } from './webhooks.repo.ts';
import { openHeaders } from './webhooks.secrets.ts';
import {
  claimDue,
  disableFailing,
  finishAttempts,
  lockWebhooks,
  postpone,
  queueNextAttempts,
  recordHealth,
  renewClaims,
  takeTokens,
  type ClaimedRow,
  type FinishedAttempt,
  type HealthUpdate,
} from './queue.repo.ts';

/** Delays after failed attempt 1…5; the sixth attempt failing abandons the delivery. */
export const RETRY_DELAYS_MS: readonly number[] = [60_000, 5 * 60_000, 30 * 60_000, 2 * 60 * 60_000, 12 * 60 * 60_000];
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;
/** A webhook whose only outcomes for this long are failures is disabled. */
export const AUTO_DISABLE_AFTER_MS = 24 * 60 * 60_000;

export interface DispatcherLog {
  info(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface DispatcherOptions {
  /** The SSRF-guarded client every attempt goes through. */
  client: OutboundClient;
  secretBox: SecretBox;
  log?: DispatcherLog;
  /** Most attempts in flight at once (default 100). */
  concurrency?: number;
  /** Most attempts taken per claim (default 100). */
  batchSize?: number;
  /** How long a claim lasts without renewal; a live dispatcher renews it every leaseMs/3 (default 30 s). */
  leaseMs?: number;
  /** Idle poll interval; a NOTIFY wakes the dispatcher sooner (default 500 ms). */
  pollMs?: number;
  /** Per-attempt limit (default 10 s: success is a 2xx within it). */
  timeoutMs?: number;
  /** How long finished attempts may wait to be recorded together (default 5 ms; the receiver already has them). */
  flushMs?: number;
  /** The clock of scheduling (due times, leases, rate limits, retries, auto-disable); tests move it. */
  now?: () => Date;
}

type Job = ClaimedRow & { token: string };

interface Outcome extends FinishedAttempt {
  webhook_id: string;
  job: Job;
}

/** A finished attempt waiting to be recorded, and who waits for that. */
interface Unrecorded {
  outcome: Outcome;
  recorded: () => void;
}

const keyOf = (r: { tenant: string; delivery_id: string }) => `${r.tenant}/${r.delivery_id}`;
const hookKey = (r: { tenant: string; webhook_id: string }) => `${r.tenant}/${r.webhook_id}`;
const quiet: DispatcherLog = { info: () => undefined, error: () => undefined };

/**
 * Sends the queued webhook attempts, in the platform's lease loop (src/platform/jobs/lease-loop.ts:
 * NOTIFY wake-ups, lease renewal every leaseMs/3, idle polling, graceful stop). Each pass claims due
 * attempts under a lease (FOR UPDATE SKIP LOCKED, so any number of dispatchers share the queue and
 * none sends an attempt another holds), takes rate-limit tokens per webhook (an attempt without one
 * is postponed to when one will exist: never dropped, never counted), signs and posts each (up to
 * `concurrency` in flight), and records outcomes in batches: delivered; retrying with the next attempt
 * queued per RETRY_DELAYS_MS; abandoned after the sixth; failed (final) for an unsafe target. A claim
 * left by a crashed process expires and the attempt is sent again (at least once); a stale completion
 * is ignored (claim token).
 */
export class WebhookDispatcher {
  private readonly client: OutboundClient;
  private readonly secretBox: SecretBox;
  private readonly log: DispatcherLog;
  private readonly concurrency: number;
  private readonly batchSize: number;
  private readonly leaseMs: number;
  private readonly pollMs: number;
  private readonly timeoutMs: number;
  private readonly flushMs: number;
  private readonly now: () => Date;
  /** Under full load, claims wait until this many request slots are free (half a batch). */
  private readonly lowWater: number;
  private readonly loop: LeaseLoop<Job>;

  /** Requests in flight. */
  private sending = 0;
  private done: Unrecorded[] = [];
  private flushing: Promise<void> | undefined;
  private readonly secrets = new Map<string, string>();
  private readonly headerSets = new Map<string, Record<string, string>>();

  constructor(private readonly database: Pick<Database, 'db' | 'listen'>, opts: DispatcherOptions) {
    this.client = opts.client;
    this.secretBox = opts.secretBox;
    this.log = opts.log ?? quiet;
    this.concurrency = opts.concurrency ?? 100;
    this.batchSize = opts.batchSize ?? 100;
    this.leaseMs = opts.leaseMs ?? 30_000;
    this.pollMs = opts.pollMs ?? 500;
    this.timeoutMs = opts.timeoutMs ?? DELIVERY_TIMEOUT_MS;
    this.flushMs = opts.flushMs ?? 5;
    this.now = opts.now ?? (() => new Date());
    this.lowWater = Math.max(1, Math.floor(Math.min(this.batchSize, this.concurrency) / 2));
    this.loop = new LeaseLoop(database, {
      capacity: (held) => this.capacity(held),
      claim: async (limit) => {
        const { claimed, jobs } = await this.claim(limit);
        return { claimed, items: jobs };
      },
      process: (jobs) => Promise.all(jobs.map((job) => this.send(job))).then(() => undefined),
      renew: (held) => this.renew(held),
    }, { name: 'webhook dispatcher', channel: DELIVERY_CHANNEL, leaseMs: this.leaseMs, pollMs: this.pollMs, log: this.log });
  }

  /**
   * One pass, awaited to the end (tests and tools): claim a batch, send what the rate limits allow,
   * record the outcomes. Returns how many attempts were claimed (sent or postponed).
   */
  async runOnce(): Promise<number> {
    const { claimed, jobs } = await this.claim(this.batchSize);
    const outcomes = await Promise.all(jobs.map((job) => this.attempt(job)));
    await this.complete(outcomes);
    return claimed;
  }

  /** Runs until stop(): woken by NOTIFY on new attempts, by freed slots, or the poll interval. */
  async start(): Promise<void> {
    await this.loop.start();
    this.log.info({ concurrency: this.concurrency, batchSize: this.batchSize, leaseMs: this.leaseMs }, 'webhook dispatcher started');
  }

  /** Stops claiming, lets the attempts in flight finish (each within the timeout) and records them. */
  async stop(): Promise<void> {
    await this.loop.stop();
    await this.flushing;
  }

  /**
   * Requests in flight count against the concurrency; finished attempts waiting to be recorded do not
   * (up to a bound: `held` counts claimed attempts not yet recorded), so a slow write never holds up
   * sending. Under full load, claim in large batches: wait until at least half a batch of request slots
   * is free.
   */
  private capacity(held: number): number {
    const free = Math.min(this.concurrency - this.sending, this.concurrency * 10 - held);
    return free >= this.lowWater || this.sending === 0 ? Math.max(0, Math.min(free, this.batchSize)) : 0;
  }

  /** Claims due attempts and splits them by the rate limits: those to send now, and those postponed. */
  private async claim(limit: number): Promise<{ claimed: number; jobs: Job[] }> {
    const now = this.now();
    const token = newId();
    const rows = await claimDue(this.database.db, { now, until: new Date(now.getTime() + this.leaseMs), token, limit });
    const groups = new Map<string, ClaimedRow[]>();
    for (const row of rows.filter((r) => !r.paused).sort((a, b) => a.next_attempt_at.getTime() - b.next_attempt_at.getTime() || a.delivery_id.localeCompare(b.delivery_id))) {
      const group = groups.get(hookKey(row)) ?? [];
      group.push(row);
      groups.set(hookKey(row), group);
    }
    try {
      return { claimed: rows.length, jobs: await this.grant(groups, token, now) };
    } catch (err) {
      // Hand the claims back at once rather than leaving them to the lease: nothing was sent.
      await postpone(this.database.db, token, rows.map((r) => ({ tenant: r.tenant, delivery_id: r.delivery_id, at: r.next_attempt_at }))).catch(() => undefined);
      throw err;
    }
  }

  /** Takes rate-limit tokens per webhook: the granted attempts become jobs, the rest wait for theirs. */
  private async grant(groups: Map<string, ClaimedRow[]>, token: string, now: Date): Promise<Job[]> {
    const jobs: Job[] = [];
    const later: { tenant: string; delivery_id: string; at: Date }[] = [];
    const grants = await retryOnDeadlock(() => takeTokens(this.database.db, [...groups.values()].map((g) => ({ tenant: g[0]!.tenant, webhook_id: g[0]!.webhook_id, wanted: g.length })), now));
    const grantOf = new Map(grants.map((g) => [hookKey(g), g]));
    for (const [key, group] of groups) {
      // A webhook deleted meanwhile grants nothing; its rows are gone with it.
      const { granted, left, rate } = grantOf.get(key) ?? { granted: 0, left: 0, rate: 1 };
      group.slice(0, granted).forEach((row) => jobs.push({ ...row, token }));
      // The k-th waiting attempt gets the k-th token to come: (k - left) / rate minutes from now.
      group.slice(granted).forEach((row, i) => later.push({ tenant: row.tenant, delivery_id: row.delivery_id, at: new Date(now.getTime() + Math.ceil(((i + 1 - left) * 60_000) / rate)) }));
    }
    await postpone(this.database.db, token, later);
    return jobs;
  }

  /** Sends one attempt and resolves once its outcome is recorded (or recording gave up: the lease decides). */
  private async send(job: Job): Promise<void> {
    this.sending++;
    let outcome: Outcome;
    try {
      outcome = await this.attempt(job);
    } finally {
      this.sending--;
      // A request slot is free: a loop waiting for one may claim again.
      if (this.sending === this.concurrency - this.lowWater) this.loop.wake();
    }
    await new Promise<void>((recorded) => {
      this.done.push({ outcome, recorded });
      this.flushing ??= this.flush();
    });
  }

  /**
   * Writes finished attempts in batches: those that finish within flushMs of the first (or fill a
   * batch), then whatever accumulated while the previous write ran.
   */
  private async flush(): Promise<void> {
    const full = Math.min(this.batchSize, this.concurrency);
    for (let waited = 0; waited < this.flushMs && this.done.length < full && this.sending > 0; waited += 2) {
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    while (this.done.length > 0) {
      const batch = this.done.splice(0, 1000);
      // Recording is idempotent (only claims still held are finished), so a failed write is simply
      // tried again; if it keeps failing, the claims expire and the attempts are sent again.
      for (let tries = 1; ; tries++) {
        try {
          await this.complete(batch.map((u) => u.outcome));
          break;
        } catch (err) {
          if (tries >= 3) {
            this.log.error({ err, attempts: batch.length }, 'recording webhook outcomes failed');
            break;
          }
          await new Promise((resolve) => setTimeout(resolve, 50 * tries));
        }
      }
      for (const u of batch) u.recorded();
    }
    this.flushing = undefined;
  }

  /** Extends the lease of the attempts held (those already recorded are no longer pending: untouched). */
  private renew(held: readonly Job[]): Promise<void> {
    return renewClaims(this.database.db, held, new Date(this.now().getTime() + this.leaseMs));
  }

  private secretOf(sealed: string): string {
    let plain = this.secrets.get(sealed);
    if (plain === undefined) {
      if (this.secrets.size > 10_000) this.secrets.clear();
      plain = this.secretBox.decrypt(sealed);
      this.secrets.set(sealed, plain);
    }
    return plain;
  }

  private headersOf(sealed: string | null): Record<string, string> {
    if (sealed === null) return {};
    let headers = this.headerSets.get(sealed);
    if (headers === undefined) {
      if (this.headerSets.size > 10_000) this.headerSets.clear();
      headers = openHeaders(this.secretBox, sealed);
      this.headerSets.set(sealed, headers);
    }
    return headers;
  }

  /** Sends one attempt (never throws) and decides what follows from its result. */
  private async attempt(job: Job): Promise<Outcome> {
    const attemptedAt = this.now();
    let result: AttemptResult;
    try {
      result = await sendAttempt(
        this.client,
        { url: job.url, secret: this.secretOf(job.secret_enc), customHeaders: this.headersOf(job.custom_headers_enc) },
        { webhookId: job.webhook_id, deliveryId: job.delivery_id, eventId: job.event_id, eventType: job.event_type, attempt: job.attempt, body: job.request_body },
        this.timeoutMs,
      );
    } catch (err) {
      // Only the secrets can throw here (a changed PSA_SECRET_KEY): retried like any failure.
      result = { ok: false, unsafe: false, response_status: null, response_body: null, duration_ms: null, error: `cannot read the webhook's secrets: ${(err as Error).message}` };
    }
    const base = { tenant: job.tenant, delivery_id: job.delivery_id, webhook_id: job.webhook_id, token: job.token, attempted_at: attemptedAt, job, ...pick(result) };
    if (result.ok) return { ...base, status: 'delivered', next_attempt_at: null };
    if (result.unsafe) return { ...base, status: 'failed', next_attempt_at: null };
    if (job.attempt >= MAX_ATTEMPTS) return { ...base, status: 'abandoned', next_attempt_at: null };
    return { ...base, status: 'retrying', next_attempt_at: new Date(this.now().getTime() + RETRY_DELAYS_MS[job.attempt - 1]!) };
  }

  /**
   * Records a batch in one transaction: the webhook rows are locked first (in key order, so concurrent
   * completions never deadlock), then the attempts this dispatcher still holds are finished, their
   * next attempts queued, the webhooks' health updated, and webhooks failing for 24 hours disabled
   * (with an outbox event whose consumer e-mails the creator, so a crash cannot lose the mail).
   */
  private async complete(outcomes: readonly Outcome[]): Promise<void> {
    if (outcomes.length === 0) return;
    const now = this.now();
    const hooks = [...new Map(outcomes.map((o) => [hookKey(o), { tenant: o.tenant, webhook_id: o.webhook_id }])).values()];
    await withTransaction(this.database.db, async (trx) => {
      const active = await lockWebhooks(trx, hooks);
      const recorded = await finishAttempts(trx, outcomes);
      const mine = outcomes.filter((o) => recorded.has(keyOf(o)));
      await queueNextAttempts(trx, mine.filter((o) => o.status === 'retrying').map((o) => ({
        tenant: o.tenant,
        delivery_id: newId(),
        webhook_id: o.webhook_id,
        event_id: o.job.event_id,
        event_type: o.job.event_type,
        cycle: o.job.cycle,
        attempt: o.job.attempt + 1,
        status: 'pending',
        request_body: o.job.request_body,
        is_test: false,
        paused: active.get(hookKey(o)) === false,
        next_attempt_at: o.next_attempt_at,
        created_at: now,
      })));
      await recordHealth(trx, healthOf(mine));
      const failing = [...new Map(mine.filter((o) => o.status !== 'delivered').map((o) => [hookKey(o), { tenant: o.tenant, webhook_id: o.webhook_id }])).values()];
      const disabled = await disableFailing(trx, failing, new Date(now.getTime() - AUTO_DISABLE_AFTER_MS), now);
      for (const hook of disabled) {
        await setDeliveriesPaused(trx, hook.tenant, hook.webhook_id, true);
        await emitWebhookEvent(trx, hook.tenant, WEBHOOK_EVENTS.autoDisabled, hook.webhook_id, {
          name: hook.name,
          failing_since: new Date(hook.failing_since).toISOString(),
          disabled_at: now.toISOString(),
          created_by_user_id: hook.created_by_user_id,
        });
        this.log.info({ tenant: hook.tenant, webhook_id: hook.webhook_id }, 'webhook auto-disabled after 24 hours of failures');
      }
    });
  }
}

const pick = (r: AttemptResult) => ({ response_status: r.response_status, response_body: r.response_body, duration_ms: r.duration_ms, error: r.error });

/** Per webhook: last success, last failure, first failure, and the first failure after the last success. */
function healthOf(outcomes: readonly Outcome[]): HealthUpdate[] {
  const byHook = new Map<string, Outcome[]>();
  for (const o of outcomes) byHook.set(hookKey(o), [...(byHook.get(hookKey(o)) ?? []), o]);
  return [...byHook.values()].map((list) => {
    const t = (o: Outcome) => o.attempted_at.getTime();
    const successes = list.filter((o) => o.status === 'delivered').map(t);
    const failures = list.filter((o) => o.status !== 'delivered').map(t);
    const lastSuccess = successes.length ? Math.max(...successes) : null;
    const after = lastSuccess === null ? [] : failures.filter((f) => f > lastSuccess);
    const date = (ms: number | null) => (ms === null ? null : new Date(ms));
    return {
      tenant: list[0]!.tenant,
      webhook_id: list[0]!.webhook_id,
      last_success: date(lastSuccess),
      last_failure: date(failures.length ? Math.max(...failures) : null),
      first_failure: date(failures.length ? Math.min(...failures) : null),
      failing_after_success: date(after.length ? Math.min(...after) : null),
    };
  });
}

/**
 * Runs a statement again when PostgreSQL chose it as a deadlock victim (or a serialization failure):
 * two workers taking tokens of the same webhooks can meet that way, and a retry always succeeds.
 */
async function retryOnDeadlock<T>(run: () => Promise<T>, tries = 3): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      if (attempt >= tries || (code !== '40P01' && code !== '40001')) throw err;
    }
  }
}
