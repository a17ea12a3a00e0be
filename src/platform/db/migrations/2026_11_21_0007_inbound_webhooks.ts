import type { Kysely } from 'kysely';
import { runStatements } from './run-statements.ts';

/**
 * Inbound webhooks: the receiver configurations, one delivery row per authenticated request, the
 * idempotency keys and the external-id mappings direct actions keep.
 *
 * Secrets (HMAC secret, bearer or path token) are SecretBox-sealed in `secret_enc`; `auth_config`
 * holds only the non-secret settings. Request and response bodies are text, not jsonb: kept exactly as
 * received (key order, duplicate keys, `\u0000` escapes), so a replay runs on the same document.
 *
 * Idempotency is a unique key per (tenant, webhook, key): the receiver claims it with one
 * INSERT … ON CONFLICT DO UPDATE … WHERE expired, so of many concurrent duplicates exactly one wins and an
 * expired key is taken over atomically. External ids are claimed the same way (`claim_token` with a
 * lease) before a direct action creates the record they name, so two deliveries never create it twice.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, `
    create table inbound_webhooks (
      tenant uuid not null references tenants (tenant_id),
      inbound_webhook_id uuid not null,
      name text not null,
      description text,
      slug text not null check (slug ~ '^[a-z0-9]([a-z0-9-]{0,62}[a-z0-9])?$'),
      auth_type text not null check (auth_type in ('hmac_sha256', 'bearer', 'ip_allowlist', 'path_token')),
      auth_config jsonb not null,
      secret_enc text,
      secret_rotated_at timestamptz(3),
      idempotency_source jsonb,
      idempotency_window_seconds integer not null check (idempotency_window_seconds between 1 and 2592000),
      handler_type text not null check (handler_type in ('direct_action', 'workflow')),
      handler_config jsonb not null,
      rate_limit_per_minute integer not null check (rate_limit_per_minute between 1 and 60000),
      is_active boolean not null default true,
      sample_payload text,
      sample_captured_at timestamptz(3),
      sample_capture_requested_at timestamptz(3),
      created_by_user_id uuid,
      created_at timestamptz(3) not null,
      updated_at timestamptz(3) not null,
      primary key (tenant, inbound_webhook_id),
      unique (tenant, slug),
      foreign key (tenant, created_by_user_id) references users (tenant, user_id) on delete set null (created_by_user_id)
    );
    create index inbound_webhooks_creator_idx on inbound_webhooks (tenant, created_by_user_id);

    create table inbound_webhook_deliveries (
      tenant uuid not null,
      delivery_id uuid not null,
      inbound_webhook_id uuid not null,
      received_at timestamptz(3) not null,
      completed_at timestamptz(3),
      request_method text not null,
      request_path text not null,
      request_headers text not null,
      request_body text,
      request_body_bytes integer not null default 0,
      source_ip text,
      user_agent text,
      idempotency_key text,
      auth_status text not null check (auth_status in ('verified', 'internal')),
      dispatch_status text not null check (dispatch_status in ('processing', 'processed', 'queued', 'duplicate', 'failed', 'error', 'rejected', 'rate_limited')),
      handler_type text not null,
      handler_outcome text,
      response_status integer,
      response_body text,
      duration_ms integer,
      is_test boolean not null default false,
      is_replay boolean not null default false,
      replayed_from_delivery_id uuid,
      duplicate_of_delivery_id uuid,
      triggered_by_user_id uuid,
      primary key (tenant, delivery_id),
      foreign key (tenant, inbound_webhook_id) references inbound_webhooks (tenant, inbound_webhook_id) on delete cascade
    );
    -- A webhook's history, newest first.
    create index inbound_webhook_deliveries_history_idx on inbound_webhook_deliveries (tenant, inbound_webhook_id, received_at, delivery_id);
    -- Retention: the worker deletes rows older than 30 days across tenants.
    create index inbound_webhook_deliveries_received_idx on inbound_webhook_deliveries (received_at);

    create table inbound_webhook_idempotency_keys (
      tenant uuid not null,
      inbound_webhook_id uuid not null,
      idempotency_key text not null,
      delivery_id uuid not null,
      expires_at timestamptz(3) not null,
      primary key (tenant, inbound_webhook_id, idempotency_key),
      foreign key (tenant, inbound_webhook_id) references inbound_webhooks (tenant, inbound_webhook_id) on delete cascade
    );
    create index inbound_webhook_idempotency_keys_expiry_idx on inbound_webhook_idempotency_keys (expires_at);

    create table inbound_external_ids (
      tenant uuid not null references tenants (tenant_id),
      entity_type text not null,
      external_id text not null,
      entity_id uuid,
      claim_token uuid,
      claimed_until timestamptz(3),
      inbound_webhook_id uuid,
      created_at timestamptz(3) not null,
      updated_at timestamptz(3) not null,
      primary key (tenant, entity_type, external_id),
      check (entity_id is not null or claim_token is not null)
    );
    create index inbound_external_ids_entity_idx on inbound_external_ids (tenant, entity_type, entity_id);
  `);
}
