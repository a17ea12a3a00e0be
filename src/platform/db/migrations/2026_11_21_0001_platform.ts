import type { Kysely } from 'kysely';
import { runStatements } from './run-statements.ts';

/** Tenancy, identity, API keys, the event outbox and idempotency records. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, `
    create table tenants (
      tenant_id uuid primary key,
      slug text not null unique check (slug ~ '^[a-z0-9][a-z0-9-]{0,62}$'),
      name text not null,
      plan text not null default 'pro',
      created_at timestamptz(3) not null default now(),
      updated_at timestamptz(3) not null default now()
    );

    create table users (
      tenant uuid not null references tenants (tenant_id),
      user_id uuid not null,
      username text not null,
      email text not null,
      password_hash text,
      first_name text,
      last_name text,
      user_type text not null default 'internal' check (user_type in ('internal', 'client', 'admin', 'contractor')),
      client_id uuid,
      contact_id uuid,
      is_inactive boolean not null default false,
      created_at timestamptz(3) not null default now(),
      updated_at timestamptz(3) not null default now(),
      primary key (tenant, user_id)
    );
    create unique index users_email_uq on users (tenant, lower(email));
    create unique index users_username_uq on users (tenant, lower(username));

    create table roles (
      tenant uuid not null references tenants (tenant_id),
      role_id uuid not null,
      role_name text not null,
      description text,
      is_builtin boolean not null default false,
      is_client_portal boolean not null default false,
      created_at timestamptz(3) not null default now(),
      updated_at timestamptz(3) not null default now(),
      primary key (tenant, role_id),
      unique (tenant, role_name)
    );

    create table role_permissions (
      tenant uuid not null,
      role_id uuid not null,
      permission text not null,
      primary key (tenant, role_id, permission),
      foreign key (tenant, role_id) references roles (tenant, role_id) on delete cascade
    );

    create table user_roles (
      tenant uuid not null,
      user_id uuid not null,
      role_id uuid not null,
      primary key (tenant, user_id, role_id),
      foreign key (tenant, user_id) references users (tenant, user_id) on delete cascade,
      foreign key (tenant, role_id) references roles (tenant, role_id) on delete cascade
    );
    create index user_roles_role_idx on user_roles (tenant, role_id);

    -- key_hash is the sign-in lookup and is globally unique (a key names its tenant by itself).
    create table api_keys (
      tenant uuid not null,
      api_key_id uuid not null,
      user_id uuid not null,
      name text not null,
      key_hash text not null unique,
      prefix text not null,
      scopes text[],
      expires_at timestamptz(3),
      rate_limit_burst integer,
      rate_limit_per_minute integer,
      last_used_at timestamptz(3),
      revoked_at timestamptz(3),
      created_at timestamptz(3) not null default now(),
      primary key (tenant, api_key_id),
      foreign key (tenant, user_id) references users (tenant, user_id) on delete cascade
    );
    create index api_keys_user_idx on api_keys (tenant, user_id);

    create table events (
      tenant uuid not null references tenants (tenant_id),
      event_id uuid not null,
      event_type text not null,
      aggregate_type text not null,
      aggregate_id text not null,
      payload jsonb not null,
      occurred_at timestamptz(3) not null default now(),
      status text not null default 'pending' check (status in ('pending', 'processing', 'done', 'dead')),
      attempts integer not null default 0,
      next_attempt_at timestamptz(3) not null default now(),
      locked_until timestamptz(3),
      completed_consumers text[] not null default '{}',
      last_error text,
      processed_at timestamptz(3),
      primary key (tenant, event_id)
    );
    -- The relay's claim query reads only unfinished rows.
    create index events_claim_idx on events (next_attempt_at) where status in ('pending', 'processing');
    create index events_processed_idx on events (processed_at) where status = 'done';

    create table idempotency_keys (
      tenant uuid not null references tenants (tenant_id),
      owner_id uuid not null,
      idem_key text not null,
      request_hash text not null,
      status_code integer,
      response_body text,
      response_headers jsonb,
      created_at timestamptz(3) not null default now(),
      expires_at timestamptz(3) not null,
      primary key (tenant, owner_id, idem_key)
    );
    create index idempotency_keys_expiry_idx on idempotency_keys (expires_at);
  `);
}
