import type { Kysely } from 'kysely';
import { runStatements } from './run-statements.ts';

/**
 * Automation: rules (a trigger, conditions over the trigger's envelope, ordered actions), their executions
 * with one row per action step and an append-only log, and tenant templates (built-in templates live in code).
 *
 * An execution is unique per (rule, trigger key) — the outbox event id, the schedule's due time, the
 * inbound delivery id, or a manual run's id — so a trigger delivered twice (at-least-once outbox, a crashed
 * worker, two schedulers) makes one execution. Each step records its outcome in the same transaction as an
 * in-process action's writes, so a step that completed is never run again when the execution resumes.
 *
 * `events.cause` records which automation execution (and how deep a chain of rules) produced an event, so a
 * rule is never re-triggered by its own actions and chains stop at a depth limit.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, `
    alter table events add column cause jsonb;

    create table automation_rules (
      tenant uuid not null references tenants (tenant_id) on delete cascade,
      rule_id uuid not null,
      name text not null check (length(name) between 1 and 255),
      description text,
      status text not null default 'draft' check (status in ('draft', 'active', 'inactive', 'error')),
      priority text not null default 'normal' check (priority in ('low', 'normal', 'high', 'critical')),
      trigger_type text not null check (trigger_type in ('event', 'schedule', 'manual', 'inbound_webhook')),
      trigger_config jsonb not null default '{}',
      conditions jsonb not null default '[]',
      condition_logic text not null default 'and' check (condition_logic in ('and', 'or')),
      actions jsonb not null default '[]',
      max_concurrent_executions integer not null default 1 check (max_concurrent_executions between 1 and 100),
      execution_timeout_minutes integer not null default 60 check (execution_timeout_minutes between 1 and 1440),
      retry_failed_executions boolean not null default false,
      tags text[] not null default '{}',
      event_type text generated always as (case when trigger_type = 'event' then trigger_config ->> 'event_type' end) stored,
      next_run_at timestamptz(3),
      last_run_at timestamptz(3),
      last_error text,
      signing_secret_enc text not null,
      created_by uuid,
      updated_by uuid,
      created_at timestamptz(3) not null default now(),
      updated_at timestamptz(3) not null default now(),
      primary key (tenant, rule_id),
      foreign key (tenant, created_by) references users (tenant, user_id) on delete set null (created_by)
    );
    create index automation_rules_event_idx on automation_rules (tenant, event_type) where status = 'active' and trigger_type = 'event';
    create index automation_rules_schedule_idx on automation_rules (next_run_at) where status = 'active' and trigger_type = 'schedule';
    create index automation_rules_updated_idx on automation_rules (tenant, updated_at, rule_id);

    create table automation_executions (
      tenant uuid not null references tenants (tenant_id) on delete cascade,
      execution_id uuid not null,
      rule_id uuid not null,
      trigger_type text not null check (trigger_type in ('event', 'schedule', 'manual', 'inbound_webhook')),
      trigger_key text not null,
      trigger_data jsonb not null default '{}',
      -- The rule's actions when the execution was created: a resumed or retried execution runs what it started with.
      actions jsonb not null default '[]',
      status text not null default 'pending' check (status in ('pending', 'running', 'completed', 'failed', 'cancelled', 'timeout', 'skipped')),
      depth integer not null default 0 check (depth >= 0),
      cause_rule_ids uuid[] not null default '{}',
      attempts integer not null default 0,
      actions_total integer not null default 0,
      actions_successful integer not null default 0,
      actions_failed integer not null default 0,
      failed_action_index integer,
      error_message text,
      started_at timestamptz(3),
      completed_at timestamptz(3),
      duration_ms integer,
      created_by uuid,
      created_at timestamptz(3) not null default now(),
      updated_at timestamptz(3) not null default now(),
      primary key (tenant, execution_id),
      unique (tenant, rule_id, trigger_key),
      foreign key (tenant, rule_id) references automation_rules (tenant, rule_id) on delete cascade
    );
    create index automation_executions_rule_idx on automation_executions (tenant, rule_id, created_at desc);
    create index automation_executions_status_idx on automation_executions (tenant, status, created_at desc);
    create index automation_executions_created_idx on automation_executions (tenant, created_at desc, execution_id);
    create index automation_executions_running_idx on automation_executions (tenant, rule_id) where status = 'running';

    create table automation_execution_steps (
      tenant uuid not null,
      execution_id uuid not null,
      action_index integer not null check (action_index >= 0),
      action_type text not null,
      status text not null default 'pending' check (status in ('pending', 'running', 'completed', 'failed', 'skipped')),
      attempts integer not null default 0,
      started_at timestamptz(3),
      completed_at timestamptz(3),
      duration_ms integer,
      result jsonb,
      error_message text,
      primary key (tenant, execution_id, action_index),
      foreign key (tenant, execution_id) references automation_executions (tenant, execution_id) on delete cascade
    );

    create table automation_execution_logs (
      tenant uuid not null,
      log_id uuid not null,
      execution_id uuid not null,
      logged_at timestamptz(3) not null default clock_timestamp(),
      level text not null check (level in ('debug', 'info', 'warn', 'error')),
      message text not null,
      action_index integer,
      metadata jsonb,
      primary key (tenant, log_id),
      foreign key (tenant, execution_id) references automation_executions (tenant, execution_id) on delete cascade
    );
    create index automation_execution_logs_exec_idx on automation_execution_logs (tenant, execution_id, logged_at);

    create table automation_templates (
      tenant uuid not null references tenants (tenant_id) on delete cascade,
      template_id uuid not null,
      name text not null check (length(name) between 1 and 255),
      description text,
      category text,
      template_config jsonb not null,
      template_variables jsonb not null default '[]',
      usage_count integer not null default 0,
      last_used_at timestamptz(3),
      created_by uuid,
      created_at timestamptz(3) not null default now(),
      updated_at timestamptz(3) not null default now(),
      primary key (tenant, template_id)
    );

    -- How often each tenant used a built-in template (built-ins live in code, so their counters live here).
    create table automation_builtin_template_usage (
      tenant uuid not null references tenants (tenant_id) on delete cascade,
      template_id uuid not null,
      usage_count integer not null default 0,
      last_used_at timestamptz(3),
      primary key (tenant, template_id)
    );
  `);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, `
    drop table automation_builtin_template_usage;
    drop table automation_templates;
    drop table automation_execution_logs;
    drop table automation_execution_steps;
    drop table automation_executions;
    drop table automation_rules;
    alter table events drop column cause;
  `);
}
