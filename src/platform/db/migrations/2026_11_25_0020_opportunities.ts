import type { Kysely } from 'kysely';
import { runStatements } from './run-statements.ts';

/**
 * Opportunities: the sales pipeline and its interactions timeline.
 *
 * The discipline invariant — an open opportunity always has exactly one current next action — is held by
 * the schema, not only by the service: an open opportunity points at its current step (`current_step_id`,
 * a foreign key into its own steps, checked deferred so the deal and its first step are written in one
 * transaction), a closed one points at none, at most one step per deal is `current` (partial unique
 * index), and the deal's `next_action`/`next_action_due` mirror that step and are present exactly when it
 * is open.
 *
 * Evidence is an append-only log: rows are never deleted or rewritten, a correction stamps the correction
 * columns once. The stage is the highest uncorrected checkpoint, stored for lists and sorted by rank.
 *
 * Money is integer cents (bigint) beside an ISO 4217 code; aggregates are always per currency.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, `
    create table opportunity_settings (
      tenant uuid primary key references tenants (tenant_id) on delete cascade,
      next_opportunity_number bigint not null default 1 check (next_opportunity_number >= 1),
      nudge_days integer not null default 14 check (nudge_days between 1 and 365),
      renewal_lead_days integer not null default 120 check (renewal_lead_days between 1 and 730),
      tm_threshold_cents bigint not null default 120000 check (tm_threshold_cents >= 0),
      asset_age_years integer not null default 6 check (asset_age_years between 1 and 50),
      updated_at timestamptz(3) not null default now()
    );

    create table interactions (
      tenant uuid not null references tenants (tenant_id) on delete cascade,
      interaction_id uuid not null,
      client_id uuid not null,
      contact_id uuid,
      opportunity_id uuid,
      interaction_type text not null check (interaction_type in ('call', 'email', 'meeting', 'note')),
      title text not null,
      notes text,
      interaction_date timestamptz(3) not null,
      duration_minutes integer check (duration_minutes between 0 and 1440),
      user_id uuid,
      created_by uuid,
      created_at timestamptz(3) not null default now(),
      updated_at timestamptz(3) not null default now(),
      primary key (tenant, interaction_id),
      foreign key (tenant, client_id) references clients (tenant, client_id) on delete restrict,
      foreign key (tenant, contact_id) references contacts (tenant, contact_id) on delete set null (contact_id),
      foreign key (tenant, user_id) references users (tenant, user_id) on delete set null (user_id)
    );
    create index interactions_client_idx on interactions (tenant, client_id, interaction_date desc);
    create index interactions_contact_idx on interactions (tenant, contact_id) where contact_id is not null;
    create index interactions_opportunity_idx on interactions (tenant, opportunity_id, interaction_date) where opportunity_id is not null;
    create index interactions_updated_idx on interactions (tenant, updated_at, interaction_id);

    create table opportunities (
      tenant uuid not null references tenants (tenant_id) on delete cascade,
      opportunity_id uuid not null,
      opportunity_number text not null,
      client_id uuid not null,
      contact_id uuid,
      title text not null,
      opportunity_type text not null check (opportunity_type in ('new_logo', 'expansion', 'renewal', 'project')),
      owner_id uuid,
      status text not null default 'open' check (status in ('open', 'won', 'lost')),
      stage text not null default 'identified' check (stage in ('identified', 'qualified', 'assessment', 'proposed', 'verbal', 'won', 'lost')),
      stage_rank integer not null default 0 check (stage_rank between 0 and 5),
      confidence text not null default 'medium' check (confidence in ('low', 'medium', 'high', 'committed')),
      mrr_cents bigint not null default 0 check (mrr_cents >= 0),
      nrr_cents bigint not null default 0 check (nrr_cents >= 0),
      hardware_cents bigint not null default 0 check (hardware_cents >= 0),
      currency_code text not null check (currency_code ~ '^[A-Z]{3}$'),
      values_locked_by_quote boolean not null default false,
      expected_close_date date,
      current_step_id uuid,
      next_action text,
      next_action_due timestamptz(3),
      last_activity_at timestamptz(3) not null default now(),
      loss_reason text check (loss_reason in ('no_response', 'chose_competitor', 'price', 'timing', 'no_budget', 'not_a_fit', 'other')),
      loss_notes text,
      lost_to text,
      generator_key text check (generator_key in ('renewal', 'tm_conversion', 'whitespace', 'asset_aging', 'inbound-lead')),
      generator_context jsonb,
      suggestion_id uuid,
      converted_contract_id uuid,
      converted_project_id uuid,
      won_at timestamptz(3),
      lost_at timestamptz(3),
      created_by uuid,
      created_at timestamptz(3) not null default now(),
      updated_at timestamptz(3) not null default now(),
      primary key (tenant, opportunity_id),
      foreign key (tenant, client_id) references clients (tenant, client_id) on delete restrict,
      foreign key (tenant, contact_id) references contacts (tenant, contact_id) on delete set null (contact_id),
      foreign key (tenant, owner_id) references users (tenant, user_id) on delete set null (owner_id),
      check ((status = 'open') = (current_step_id is not null)),
      check ((status = 'open') = (next_action is not null and next_action_due is not null)),
      check ((status = 'won') = (won_at is not null)),
      check ((status = 'lost') = (lost_at is not null and loss_reason is not null)),
      check (status = 'open' or stage = status)
    );
    create unique index opportunities_number_uq on opportunities (tenant, opportunity_number);
    create index opportunities_client_idx on opportunities (tenant, client_id);
    create index opportunities_owner_idx on opportunities (tenant, owner_id, status);
    create index opportunities_due_idx on opportunities (tenant, next_action_due, opportunity_id) where status = 'open';
    create index opportunities_updated_idx on opportunities (tenant, updated_at, opportunity_id);

    alter table interactions add constraint interactions_opportunity_fk
      foreign key (tenant, opportunity_id) references opportunities (tenant, opportunity_id) on delete set null (opportunity_id);

    create table opportunity_steps (
      tenant uuid not null,
      step_id uuid not null,
      opportunity_id uuid not null,
      title text not null check (length(title) between 1 and 300),
      due_at timestamptz(3) not null,
      status text not null check (status in ('planned', 'current', 'done', 'skipped')),
      sort_order integer not null,
      interaction_id uuid,
      completed_at timestamptz(3),
      completed_by uuid,
      created_by uuid,
      created_at timestamptz(3) not null default now(),
      updated_at timestamptz(3) not null default now(),
      primary key (tenant, step_id),
      unique (tenant, opportunity_id, step_id),
      foreign key (tenant, opportunity_id) references opportunities (tenant, opportunity_id) on delete cascade,
      foreign key (tenant, interaction_id) references interactions (tenant, interaction_id) on delete set null (interaction_id),
      check ((status = 'done') = (completed_at is not null))
    );
    create unique index opportunity_steps_one_current on opportunity_steps (tenant, opportunity_id) where status = 'current';
    create index opportunity_steps_order_idx on opportunity_steps (tenant, opportunity_id, sort_order);

    alter table opportunities add constraint opportunities_current_step_fk
      foreign key (tenant, opportunity_id, current_step_id) references opportunity_steps (tenant, opportunity_id, step_id)
      deferrable initially deferred;

    create table opportunity_evidence (
      tenant uuid not null,
      evidence_id uuid not null,
      opportunity_id uuid not null,
      checkpoint text not null check (checkpoint in ('identified', 'qualified', 'assessment', 'proposed', 'verbal', 'won')),
      source text not null check (source in ('system', 'declared', 'user_declared')),
      ref_type text check (ref_type in ('quote', 'contract', 'project', 'schedule_entry', 'interaction')),
      ref_id uuid,
      detail text,
      recorded_by uuid,
      recorded_at timestamptz(3) not null default now(),
      correction_note text,
      corrected_by uuid,
      corrected_at timestamptz(3),
      primary key (tenant, evidence_id),
      foreign key (tenant, opportunity_id) references opportunities (tenant, opportunity_id) on delete cascade,
      check ((corrected_at is null) = (correction_note is null))
    );
    create index opportunity_evidence_opp_idx on opportunity_evidence (tenant, opportunity_id, recorded_at);

    create table opportunity_quotes (
      tenant uuid not null,
      quote_id uuid not null,
      opportunity_id uuid not null,
      linked_by uuid,
      linked_at timestamptz(3) not null default now(),
      primary key (tenant, quote_id),
      foreign key (tenant, quote_id) references quotes (tenant, quote_id) on delete cascade,
      foreign key (tenant, opportunity_id) references opportunities (tenant, opportunity_id) on delete restrict
    );
    create index opportunity_quotes_opp_idx on opportunity_quotes (tenant, opportunity_id);

    create table opportunity_commitments (
      tenant uuid not null,
      commitment_id uuid not null,
      opportunity_id uuid not null,
      description text not null check (length(description) between 1 and 4000),
      made_by uuid,
      made_at timestamptz(3) not null default now(),
      resolution_status text not null default 'open' check (resolution_status in ('open', 'quote_line', 'agreement_line', 'project_task', 'declined')),
      resolution_ref_id uuid,
      resolved_by uuid,
      resolved_at timestamptz(3),
      created_at timestamptz(3) not null default now(),
      updated_at timestamptz(3) not null default now(),
      primary key (tenant, commitment_id),
      foreign key (tenant, opportunity_id) references opportunities (tenant, opportunity_id) on delete cascade,
      check ((resolution_status in ('quote_line', 'agreement_line', 'project_task')) = (resolution_ref_id is not null)),
      check ((resolution_status = 'open') = (resolved_at is null))
    );
    create index opportunity_commitments_opp_idx on opportunity_commitments (tenant, opportunity_id, made_at);

    create table opportunity_meeting_sessions (
      tenant uuid not null references tenants (tenant_id) on delete cascade,
      session_id uuid not null,
      started_by uuid not null,
      session_date date not null,
      started_at timestamptz(3) not null default now(),
      created_at timestamptz(3) not null default now(),
      primary key (tenant, session_id),
      unique (tenant, started_by, session_date)
    );

    create table opportunity_meeting_reviews (
      tenant uuid not null,
      review_id uuid not null,
      session_id uuid not null,
      opportunity_id uuid not null,
      note text check (length(note) <= 4000),
      reviewed_at timestamptz(3) not null default now(),
      primary key (tenant, review_id),
      unique (tenant, session_id, opportunity_id),
      foreign key (tenant, session_id) references opportunity_meeting_sessions (tenant, session_id) on delete cascade,
      foreign key (tenant, opportunity_id) references opportunities (tenant, opportunity_id) on delete cascade
    );

    create table opportunity_suggestions (
      tenant uuid not null references tenants (tenant_id) on delete cascade,
      suggestion_id uuid not null,
      generator_key text not null check (generator_key in ('renewal', 'tm_conversion', 'whitespace', 'asset_aging', 'inbound-lead')),
      client_id uuid not null,
      title text not null,
      evidence jsonb not null default '{}',
      mrr_cents bigint not null default 0 check (mrr_cents >= 0),
      nrr_cents bigint not null default 0 check (nrr_cents >= 0),
      currency_code text not null check (currency_code ~ '^[A-Z]{3}$'),
      status text not null default 'pending' check (status in ('pending', 'accepted', 'dismissed', 'snoozed')),
      snoozed_until timestamptz(3),
      dedupe_key text not null,
      created_opportunity_id uuid,
      created_at timestamptz(3) not null default now(),
      updated_at timestamptz(3) not null default now(),
      primary key (tenant, suggestion_id),
      unique (tenant, dedupe_key),
      foreign key (tenant, client_id) references clients (tenant, client_id) on delete cascade,
      foreign key (tenant, created_opportunity_id) references opportunities (tenant, opportunity_id) on delete set null (created_opportunity_id),
      check ((status = 'snoozed') = (snoozed_until is not null))
    );
    create index opportunity_suggestions_status_idx on opportunity_suggestions (tenant, status, created_at desc);

    create table opportunity_qbr_triggers (
      tenant uuid not null references tenants (tenant_id) on delete cascade,
      trigger_key text not null,
      client_id uuid not null,
      kind text not null check (kind in ('renewal', 'asset_aging', 'ticket_trend', 'whitespace')),
      fired_at timestamptz(3) not null default now(),
      opportunity_id uuid,
      primary key (tenant, trigger_key),
      foreign key (tenant, client_id) references clients (tenant, client_id) on delete cascade,
      foreign key (tenant, opportunity_id) references opportunities (tenant, opportunity_id) on delete set null (opportunity_id)
    );
    create index opportunity_qbr_triggers_client_idx on opportunity_qbr_triggers (tenant, client_id);
  `);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, `
    drop table opportunity_qbr_triggers;
    drop table opportunity_suggestions;
    drop table opportunity_meeting_reviews;
    drop table opportunity_meeting_sessions;
    drop table opportunity_commitments;
    drop table opportunity_quotes;
    drop table opportunity_evidence;
    alter table opportunities drop constraint opportunities_current_step_fk;
    alter table interactions drop constraint interactions_opportunity_fk;
    drop table opportunity_steps;
    drop table opportunities;
    drop table interactions;
    drop table opportunity_settings;
  `);
}
