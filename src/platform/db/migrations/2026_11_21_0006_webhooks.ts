import type { Kysely } from 'kysely';
import { runStatements } from './run-statements.ts';

/**
 * Outbound webhooks: the subscriptions, and one delivery row per attempt.
 *
 * Secrets never sit in clear: the signing secret and the custom headers (which often carry credentials)
 * are SecretBox-sealed; the header names are kept beside them so responses can show them masked.
 *
 * A delivery row is an attempt: `pending` until a worker sends it, then `delivered`, `retrying` (the
 * next attempt is its own pending row), `abandoned` (the sixth attempt failed) or `failed` (final, not
 * retried: an unsafe target, or a test). `request_body` is the envelope as text, not jsonb: jsonb would
 * reorder its keys, and every attempt must send the same bytes. `cycle` counts manual retries, so the
 * unique key lets a redelivered outbox event add nothing (ON CONFLICT DO NOTHING) while a manual retry
 * still starts a fresh cycle for the same event. `claim_token`/`claimed_until` are the worker's lease.
 * Rows are updated in place by the claim and lease renewals; free space per page (fillfactor) lets
 * those updates stay on the page (HOT), with no new index entries.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, `
    create table webhooks (
      tenant uuid not null references tenants (tenant_id),
      webhook_id uuid not null,
      name text not null,
      description text,
      url text not null,
      event_types text[] not null,
      custom_headers_enc text,
      custom_header_names text[] not null default '{}',
      rate_limit_per_minute integer not null default 100 check (rate_limit_per_minute between 1 and 10000),
      payload_fields jsonb,
      event_filter jsonb,
      secret_enc text not null,
      is_active boolean not null default true,
      auto_disabled_at timestamptz(3),
      failing_since timestamptz(3),
      last_success_at timestamptz(3),
      last_failure_at timestamptz(3),
      -- Token bucket of the per-webhook rate limit (capacity = rate_limit_per_minute), shared by all workers.
      rate_tokens double precision not null,
      rate_refilled_at timestamptz(3) not null,
      rate_granted integer not null default 0,
      created_by_user_id uuid,
      created_at timestamptz(3) not null,
      updated_at timestamptz(3) not null,
      primary key (tenant, webhook_id),
      foreign key (tenant, created_by_user_id) references users (tenant, user_id) on delete set null (created_by_user_id)
    );
    create index webhooks_creator_idx on webhooks (tenant, created_by_user_id);

    create table webhook_deliveries (
      tenant uuid not null,
      delivery_id uuid not null,
      webhook_id uuid not null,
      event_id uuid not null,
      event_type text not null,
      cycle integer not null default 1,
      attempt integer not null check (attempt between 1 and 6),
      status text not null check (status in ('pending', 'delivered', 'retrying', 'abandoned', 'failed')),
      request_body text not null,
      response_status integer,
      response_body text,
      duration_ms integer,
      error text,
      is_test boolean not null default false,
      attempted_at timestamptz(3),
      next_attempt_at timestamptz(3),
      -- A pending attempt of an inactive webhook waits, out of the queue index, until it is re-enabled.
      paused boolean not null default false,
      claim_token uuid,
      claimed_until timestamptz(3),
      created_at timestamptz(3) not null,
      primary key (tenant, delivery_id),
      unique (tenant, webhook_id, event_id, cycle, attempt),
      foreign key (tenant, webhook_id) references webhooks (tenant, webhook_id) on delete cascade
    ) with (fillfactor = 80);
    -- The delivery queue. It leads with the due time, not the tenant, because a worker serves every
    -- tenant: its claim scans the earliest due attempts across all of them (like the outbox's own index).
    create index webhook_deliveries_due_idx on webhook_deliveries (next_attempt_at) where status = 'pending' and not paused;
    -- A webhook's history, newest first; also how retention finds each webhook's old rows.
    create index webhook_deliveries_history_idx on webhook_deliveries (tenant, webhook_id, created_at);
  `);
}
