import { sql, type Insertable, type Kysely, type Transaction } from 'kysely';
import type { DB, WebhookDeliveriesTable, WebhookDeliveryStatus } from '../../platform/db/schema.ts';
import { iso } from '../../platform/time.ts';

/**
 * The delivery queue's statements. Rows are addressed by their primary key, (tenant, delivery_id) or
 * (tenant, webhook_id); batches travel as parallel arrays through unnest(), so a statement's text does
 * not grow with its batch.
 */

export interface ClaimedRow {
  tenant: string;
  delivery_id: string;
  webhook_id: string;
  event_id: string;
  event_type: string;
  cycle: number;
  attempt: number;
  request_body: string;
  next_attempt_at: Date;
  /** The webhook is inactive: the row was parked instead of claimed. */
  paused: boolean;
  url: string;
  secret_enc: string;
  custom_headers_enc: string | null;
  rate_limit_per_minute: number;
}

/**
 * Claims up to `limit` due pending attempts (FOR UPDATE SKIP LOCKED: concurrent workers never take the
 * same row) under a lease: `claim_token` names this claim, `claimed_until` is when another worker may
 * take the row over (this one crashed). Attempts whose claim expired are due again. A due row of an
 * inactive webhook is parked (paused) instead, out of the queue index until re-enabled.
 */
export async function claimDue(db: Kysely<DB>, c: { now: Date; until: Date; token: string; limit: number }): Promise<ClaimedRow[]> {
  // The webhook is joined inside the locking scan, and the update finds its rows by primary key: a
  // plan that stays cheap even before the planner has statistics for a freshly filled queue.
  const { rows } = await sql<ClaimedRow>`
    with due as (
      select d.tenant, d.delivery_id, w.is_active, w.url, w.secret_enc, w.custom_headers_enc, w.rate_limit_per_minute
      from webhook_deliveries d
      join webhooks w on w.tenant = d.tenant and w.webhook_id = d.webhook_id
      where d.status = 'pending' and not d.paused and d.next_attempt_at <= ${c.now}
        and (d.claimed_until is null or d.claimed_until < ${c.now})
      order by d.next_attempt_at
      limit ${c.limit}
      for update of d skip locked
    )
    update webhook_deliveries d
    set claim_token = case when due.is_active then ${c.token}::uuid end,
        claimed_until = case when due.is_active then ${c.until}::timestamptz end,
        paused = not due.is_active
    from due
    where d.tenant = due.tenant and d.delivery_id = due.delivery_id
    returning d.tenant, d.delivery_id, d.webhook_id, d.event_id, d.event_type, d.cycle, d.attempt, d.request_body, d.next_attempt_at,
      d.paused, due.url, due.secret_enc, due.custom_headers_enc, due.rate_limit_per_minute`.execute(db);
  return rows;
}

export interface TokenGrant {
  tenant: string;
  webhook_id: string;
  granted: number;
  /** Tokens left after the grant: a fraction when fewer than wanted were granted. */
  left: number;
  rate: number;
}

/**
 * Takes up to `wanted` tokens from each webhook's bucket in one statement. The bucket holds at most
 * rate_limit_per_minute tokens and refills at that many per minute; the rows are locked in key order
 * (so concurrent workers never deadlock) and updated from their latest version: exact across workers.
 */
export async function takeTokens(db: Kysely<DB>, wants: readonly { tenant: string; webhook_id: string; wanted: number }[], now: Date): Promise<TokenGrant[]> {
  if (wants.length === 0) return [];
  const available = sql`least(w.rate_limit_per_minute::double precision,
    w.rate_tokens + greatest(0, extract(epoch from (${now}::timestamptz - w.rate_refilled_at))::double precision) * w.rate_limit_per_minute / 60.0)`;
  // A hair over the exact value, so float noise never turns 2 tokens into 1.999….
  const grant = sql`least(r.wanted, floor(${available} + 1e-9)::integer)`;
  const { rows } = await sql<TokenGrant>`
    with r as (
      select * from unnest(${wants.map((w) => w.tenant)}::uuid[], ${wants.map((w) => w.webhook_id)}::uuid[], ${wants.map((w) => w.wanted)}::integer[])
        as r(tenant, webhook_id, wanted)
    ),
    locked as (
      select x.tenant, x.webhook_id from webhooks x join r on r.tenant = x.tenant and r.webhook_id = x.webhook_id
      order by x.tenant, x.webhook_id
      for no key update of x
    )
    update webhooks w
    set rate_granted = ${grant},
        rate_tokens = greatest(0, ${available} - ${grant}),
        rate_refilled_at = greatest(w.rate_refilled_at, ${now}::timestamptz)
    from r, locked
    where w.tenant = r.tenant and w.webhook_id = r.webhook_id and locked.tenant = w.tenant and locked.webhook_id = w.webhook_id
    returning w.tenant, w.webhook_id, w.rate_granted as granted, w.rate_tokens as "left", w.rate_limit_per_minute as rate`.execute(db);
  return rows.map((row) => ({ ...row, granted: Number(row.granted), left: Number(row.left), rate: Number(row.rate) }));
}

/** Releases rate-limited claims: each row waits until its token will be there. Not an attempt. */
export async function postpone(db: Kysely<DB>, token: string, items: readonly { tenant: string; delivery_id: string; at: Date }[]): Promise<void> {
  if (items.length === 0) return;
  await sql`
    update webhook_deliveries d set next_attempt_at = p.at, claim_token = null, claimed_until = null
    from unnest(${items.map((i) => i.tenant)}::uuid[], ${items.map((i) => i.delivery_id)}::uuid[], ${items.map((i) => iso(i.at))}::timestamptz[]) as p(tenant, delivery_id, at)
    where d.tenant = p.tenant and d.delivery_id = p.delivery_id and d.claim_token = ${token}::uuid and d.status = 'pending'`.execute(db);
}

/** Extends the lease of attempts still in flight (the heartbeat of a live worker). */
export async function renewClaims(db: Kysely<DB>, items: readonly { tenant: string; delivery_id: string; token: string }[], until: Date): Promise<void> {
  if (items.length === 0) return;
  await sql`
    update webhook_deliveries d set claimed_until = ${until}::timestamptz
    from unnest(${items.map((i) => i.tenant)}::uuid[], ${items.map((i) => i.delivery_id)}::uuid[], ${items.map((i) => i.token)}::uuid[]) as h(tenant, delivery_id, token)
    where d.tenant = h.tenant and d.delivery_id = h.delivery_id and d.claim_token = h.token and d.status = 'pending'`.execute(db);
}

/** Locks the webhook rows a completion touches, in key order, so concurrent completions never deadlock. */
export async function lockWebhooks(trx: Transaction<DB>, keys: readonly { tenant: string; webhook_id: string }[]): Promise<Map<string, boolean>> {
  if (keys.length === 0) return new Map();
  const { rows } = await sql<{ tenant: string; webhook_id: string; is_active: boolean }>`
    select tenant, webhook_id, is_active from webhooks
    where (tenant, webhook_id) in (select * from unnest(${keys.map((k) => k.tenant)}::uuid[], ${keys.map((k) => k.webhook_id)}::uuid[]))
    order by tenant, webhook_id
    for no key update`.execute(trx);
  return new Map(rows.map((r) => [`${r.tenant}/${r.webhook_id}`, r.is_active]));
}

export interface FinishedAttempt {
  tenant: string;
  delivery_id: string;
  token: string;
  status: Exclude<WebhookDeliveryStatus, 'pending'>;
  response_status: number | null;
  response_body: string | null;
  duration_ms: number | null;
  error: string | null;
  attempted_at: Date;
  next_attempt_at: Date | null;
}

/**
 * Records outcomes, but only of attempts this claim still holds (claim_token matches and the row is
 * still pending): a worker whose lease expired and was taken over cannot overwrite the new outcome.
 * Returns the keys (`tenant/delivery_id`) that were recorded.
 */
export async function finishAttempts(trx: Transaction<DB>, items: readonly FinishedAttempt[]): Promise<Set<string>> {
  if (items.length === 0) return new Set();
  const col = <K extends keyof FinishedAttempt>(k: K) => items.map((i) => i[k]);
  const { rows } = await sql<{ tenant: string; delivery_id: string }>`
    update webhook_deliveries d
    set status = o.status, response_status = o.response_status, response_body = o.response_body, duration_ms = o.duration_ms,
        error = o.error, attempted_at = o.attempted_at, next_attempt_at = o.next_attempt_at, claim_token = null, claimed_until = null
    from unnest(${col('tenant')}::uuid[], ${col('delivery_id')}::uuid[], ${col('token')}::uuid[], ${col('status')}::text[],
      ${col('response_status')}::integer[], ${col('response_body')}::text[], ${col('duration_ms')}::integer[], ${col('error')}::text[],
      ${items.map((i) => iso(i.attempted_at))}::timestamptz[], ${items.map((i) => iso(i.next_attempt_at))}::timestamptz[])
      as o(tenant, delivery_id, token, status, response_status, response_body, duration_ms, error, attempted_at, next_attempt_at)
    where d.tenant = o.tenant and d.delivery_id = o.delivery_id and d.claim_token = o.token and d.status = 'pending'
    returning d.tenant, d.delivery_id`.execute(trx);
  return new Set(rows.map((r) => `${r.tenant}/${r.delivery_id}`));
}

/**
 * Queues the next attempts of retried ones (the same envelope, event and cycle; the caller parks them
 * when the webhook is inactive by now). The unique key makes it idempotent.
 */
export async function queueNextAttempts(trx: Transaction<DB>, rows: readonly Insertable<WebhookDeliveriesTable>[]): Promise<void> {
  if (rows.length === 0) return;
  await trx.insertInto('webhook_deliveries').values([...rows]).onConflict((oc) => oc.doNothing()).execute();
}

export interface HealthUpdate {
  tenant: string;
  webhook_id: string;
  last_success: Date | null;
  last_failure: Date | null;
  first_failure: Date | null;
  /** The first failure after last_success in this batch (null: none). */
  failing_after_success: Date | null;
}

/**
 * Folds a batch's outcomes into each webhook's health: last success and failure, and failing_since
 * (the first failure after the last success; a success clears it).
 */
export async function recordHealth(trx: Transaction<DB>, items: readonly HealthUpdate[]): Promise<void> {
  if (items.length === 0) return;
  const at = (k: 'last_success' | 'last_failure' | 'first_failure' | 'failing_after_success') => items.map((i) => iso(i[k]));
  await sql`
    update webhooks w set
      last_success_at = greatest(w.last_success_at, s.last_success),
      last_failure_at = greatest(w.last_failure_at, s.last_failure),
      failing_since = case when s.last_success is not null then s.failing_after_success else coalesce(w.failing_since, s.first_failure) end
    from unnest(${items.map((i) => i.tenant)}::uuid[], ${items.map((i) => i.webhook_id)}::uuid[], ${at('last_success')}::timestamptz[],
      ${at('last_failure')}::timestamptz[], ${at('first_failure')}::timestamptz[], ${at('failing_after_success')}::timestamptz[])
      as s(tenant, webhook_id, last_success, last_failure, first_failure, failing_after_success)
    where w.tenant = s.tenant and w.webhook_id = s.webhook_id`.execute(trx);
}

/** Disables, among `keys`, the active webhooks failing since `cutoff` or earlier; returns them. */
export async function disableFailing(trx: Transaction<DB>, keys: readonly { tenant: string; webhook_id: string }[], cutoff: Date, now: Date) {
  if (keys.length === 0) return [];
  const { rows } = await sql<{ tenant: string; webhook_id: string; name: string; failing_since: Date; created_by_user_id: string | null }>`
    update webhooks w set is_active = false, auto_disabled_at = ${now}::timestamptz, updated_at = ${now}::timestamptz
    from unnest(${keys.map((k) => k.tenant)}::uuid[], ${keys.map((k) => k.webhook_id)}::uuid[]) as c(tenant, webhook_id)
    where w.tenant = c.tenant and w.webhook_id = c.webhook_id and w.is_active
      and w.failing_since is not null and w.failing_since <= ${cutoff}::timestamptz
    returning w.tenant, w.webhook_id, w.name, w.failing_since, w.created_by_user_id`.execute(trx);
  return rows;
}
