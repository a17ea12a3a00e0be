import type { Kysely } from 'kysely';
import { runStatements } from './run-statements.ts';

/**
 * Identity beyond API keys: user profile and security columns, two-factor recovery codes, avatars,
 * activity, teams, sign-in sessions and sign-in flows, and the tenant's plan and entitlements.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, `
    alter table users
      add column phone text,
      add column timezone text,
      add column preferences jsonb not null default '{}',
      add column two_factor_enabled boolean not null default false,
      add column two_factor_secret_enc text,
      add column two_factor_pending_secret_enc text,
      add column two_factor_pending_at timestamptz(3),
      -- The TOTP time step last accepted, so a code cannot be replayed within its window.
      add column two_factor_last_step integer,
      add column last_login_at timestamptz(3),
      add column failed_login_count integer not null default 0,
      add column locked_until timestamptz(3),
      add column password_changed_at timestamptz(3);
    create index users_updated_idx on users (tenant, updated_at, user_id);
    -- Sign-in looks an email or username up across tenants (the tenant is not known yet).
    create index users_login_email_idx on users (lower(email));
    create index users_login_username_idx on users (lower(username));

    create table user_recovery_codes (
      tenant uuid not null,
      user_id uuid not null,
      code_hash text not null,
      used_at timestamptz(3),
      created_at timestamptz(3) not null default now(),
      primary key (tenant, user_id, code_hash),
      foreign key (tenant, user_id) references users (tenant, user_id) on delete cascade
    );

    create table user_avatars (
      tenant uuid not null,
      user_id uuid not null,
      image bytea not null,
      content_type text not null,
      etag text not null,
      updated_at timestamptz(3) not null default now(),
      primary key (tenant, user_id),
      foreign key (tenant, user_id) references users (tenant, user_id) on delete cascade
    );

    create table user_activity (
      tenant uuid not null references tenants (tenant_id),
      activity_id uuid not null,
      user_id uuid not null,
      actor_user_id uuid,
      activity_type text not null,
      details jsonb not null default '{}',
      ip text,
      user_agent text,
      created_at timestamptz(3) not null default now(),
      primary key (tenant, activity_id)
    );
    create index user_activity_user_idx on user_activity (tenant, user_id, created_at desc, activity_id desc);
    create index user_activity_tenant_idx on user_activity (tenant, created_at desc, activity_id desc);

    create table teams (
      tenant uuid not null references tenants (tenant_id),
      team_id uuid not null,
      team_name text not null,
      description text,
      manager_id uuid,
      created_at timestamptz(3) not null default now(),
      updated_at timestamptz(3) not null default now(),
      primary key (tenant, team_id),
      foreign key (tenant, manager_id) references users (tenant, user_id)
    );
    create unique index teams_name_uq on teams (tenant, lower(team_name));
    -- Role names are unique regardless of case ('admin' may not sit beside the built-in 'Admin').
    create unique index roles_name_ci_uq on roles (tenant, lower(role_name));

    create table team_members (
      tenant uuid not null,
      team_id uuid not null,
      user_id uuid not null,
      joined_at timestamptz(3) not null default now(),
      primary key (tenant, team_id, user_id),
      foreign key (tenant, team_id) references teams (tenant, team_id) on delete cascade,
      foreign key (tenant, user_id) references users (tenant, user_id) on delete cascade
    );
    create index team_members_user_idx on team_members (tenant, user_id);

    -- Sign-in sessions: only the token's SHA-256 is stored (like API keys, globally unique).
    create table sessions (
      tenant uuid not null,
      session_id uuid not null,
      user_id uuid not null,
      token_hash text not null unique,
      login_method text not null,
      ip text,
      user_agent text,
      created_at timestamptz(3) not null default now(),
      last_seen_at timestamptz(3) not null default now(),
      expires_at timestamptz(3) not null,
      revoked_at timestamptz(3),
      primary key (tenant, session_id),
      foreign key (tenant, user_id) references users (tenant, user_id) on delete cascade
    );
    create index sessions_user_idx on sessions (tenant, user_id);

    -- In-flight identity-provider sign-ins (state, nonce, PKCE verifier); short-lived, not tenant data.
    create table auth_flows (
      state text primary key,
      provider text not null,
      nonce text not null,
      code_verifier text not null,
      callback_url text,
      tenant_slug text,
      created_at timestamptz(3) not null default now(),
      expires_at timestamptz(3) not null
    );

    alter table tenants
      add column addons text[] not null default '{}',
      add column subscription_status text check (subscription_status in ('active', 'trialing', 'past_due', 'unpaid')),
      add column trial_end timestamptz(3),
      add column solo_pro_trial_end timestamptz(3),
      add column premium_trial_end timestamptz(3),
      add column premium_trial_confirmed boolean not null default false,
      add column premium_trial_effective_date timestamptz(3);
  `);
}
