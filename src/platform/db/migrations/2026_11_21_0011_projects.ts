import type { Kysely } from 'kysely';
import { runStatements } from './run-statements.ts';

/**
 * Projects: the tenant's project statuses and task statuses, projects (numbered P-000001 per tenant
 * from an atomic counter), each project's task status mappings, phases, tasks, checklist items, task
 * comments and comment reactions. Hours are stored in hours (numeric, two decimals), never minutes.
 * A task names its project and its phase together, and a composite key makes the phase one of that
 * project; likewise its status mapping. Tenants that exist already get the default statuses.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, `
    create table project_statuses (
      tenant uuid not null references tenants (tenant_id),
      status_id uuid not null,
      name text not null check (char_length(name) between 1 and 100),
      is_closed boolean not null default false,
      is_default boolean not null default false,
      order_number integer not null default 0,
      created_at timestamptz(3) not null default now(),
      updated_at timestamptz(3) not null default now(),
      primary key (tenant, status_id),
      -- New projects start in the default status, so it is an open one.
      check (not (is_default and is_closed))
    );
    create unique index project_statuses_name_uq on project_statuses (tenant, lower(name));
    create unique index project_statuses_default_uq on project_statuses (tenant) where is_default;

    create table task_statuses (
      tenant uuid not null references tenants (tenant_id),
      task_status_id uuid not null,
      name text not null check (char_length(name) between 1 and 100),
      -- A task moved to a closed status is complete.
      is_closed boolean not null default false,
      is_default boolean not null default false,
      order_number integer not null default 0,
      created_at timestamptz(3) not null default now(),
      updated_at timestamptz(3) not null default now(),
      primary key (tenant, task_status_id),
      check (not (is_default and is_closed))
    );
    create unique index task_statuses_name_uq on task_statuses (tenant, lower(name));
    create unique index task_statuses_default_uq on task_statuses (tenant) where is_default;

    create table project_number_counters (
      tenant uuid primary key references tenants (tenant_id),
      last_number integer not null
    );

    create table projects (
      tenant uuid not null references tenants (tenant_id),
      project_id uuid not null,
      project_seq integer not null,
      project_number text not null,
      project_name text not null check (char_length(project_name) between 1 and 255),
      description text,
      client_id uuid,
      contact_id uuid,
      assigned_to uuid,
      assigned_team_id uuid,
      status_id uuid not null,
      is_closed boolean not null default false,
      start_date date,
      end_date date,
      budgeted_hours numeric(10, 2) check (budgeted_hours >= 0),
      created_by uuid,
      created_at timestamptz(3) not null default now(),
      updated_by uuid,
      updated_at timestamptz(3) not null default now(),
      closed_at timestamptz(3),
      primary key (tenant, project_id),
      unique (tenant, project_number),
      unique (tenant, project_seq),
      foreign key (tenant, client_id) references clients (tenant, client_id),
      foreign key (tenant, status_id) references project_statuses (tenant, status_id),
      foreign key (tenant, contact_id) references contacts (tenant, contact_id) on delete set null (contact_id),
      foreign key (tenant, assigned_to) references users (tenant, user_id) on delete set null (assigned_to),
      foreign key (tenant, assigned_team_id) references teams (tenant, team_id) on delete set null (assigned_team_id),
      foreign key (tenant, created_by) references users (tenant, user_id) on delete set null (created_by),
      foreign key (tenant, updated_by) references users (tenant, user_id) on delete set null (updated_by),
      check (end_date is null or start_date is null or end_date >= start_date),
      check (is_closed = (closed_at is not null))
    );
    create index projects_seq_idx on projects (tenant, project_seq);
    create index projects_name_idx on projects (tenant, lower(project_name), project_id);
    create index projects_updated_idx on projects (tenant, updated_at, project_id);
    create index projects_client_idx on projects (tenant, client_id, project_seq) where client_id is not null;
    create index projects_status_idx on projects (tenant, status_id);
    create index projects_assigned_idx on projects (tenant, assigned_to) where assigned_to is not null;
    create index projects_team_idx on projects (tenant, assigned_team_id) where assigned_team_id is not null;
    create index projects_contact_idx on projects (tenant, contact_id) where contact_id is not null;

    create table project_task_status_mappings (
      tenant uuid not null,
      status_mapping_id uuid not null,
      project_id uuid not null,
      task_status_id uuid not null,
      display_order integer not null default 0,
      is_visible boolean not null default true,
      created_at timestamptz(3) not null default now(),
      primary key (tenant, status_mapping_id),
      -- Lets tasks reference (project, mapping) together, so a task's status is one of its project's.
      unique (tenant, project_id, status_mapping_id),
      unique (tenant, project_id, task_status_id),
      foreign key (tenant, project_id) references projects (tenant, project_id) on delete cascade,
      foreign key (tenant, task_status_id) references task_statuses (tenant, task_status_id)
    );
    create index project_task_status_mappings_status_idx on project_task_status_mappings (tenant, task_status_id);

    create table project_phases (
      tenant uuid not null,
      phase_id uuid not null,
      project_id uuid not null,
      phase_name text not null check (char_length(phase_name) between 1 and 255),
      description text,
      start_date date,
      end_date date,
      -- 1-based and gapless among the project's phases; the service renumbers siblings on every move.
      position integer not null check (position >= 1),
      created_at timestamptz(3) not null default now(),
      updated_at timestamptz(3) not null default now(),
      primary key (tenant, phase_id),
      unique (tenant, project_id, phase_id),
      foreign key (tenant, project_id) references projects (tenant, project_id) on delete cascade,
      check (end_date is null or start_date is null or end_date >= start_date)
    );
    create index project_phases_order_idx on project_phases (tenant, project_id, position);

    create table project_tasks (
      tenant uuid not null,
      task_id uuid not null,
      project_id uuid not null,
      phase_id uuid not null,
      task_name text not null check (char_length(task_name) between 1 and 255),
      description text,
      status_mapping_id uuid not null,
      assigned_to uuid,
      assigned_team_id uuid,
      estimated_hours numeric(10, 2) check (estimated_hours >= 0),
      actual_hours numeric(10, 2) not null default 0 check (actual_hours >= 0),
      due_date date,
      priority_id uuid,
      position integer not null check (position >= 1),
      completed_at timestamptz(3),
      created_by uuid,
      created_at timestamptz(3) not null default now(),
      updated_by uuid,
      updated_at timestamptz(3) not null default now(),
      primary key (tenant, task_id),
      foreign key (tenant, project_id, phase_id) references project_phases (tenant, project_id, phase_id) on delete cascade,
      foreign key (tenant, project_id, status_mapping_id) references project_task_status_mappings (tenant, project_id, status_mapping_id),
      foreign key (tenant, priority_id) references ticket_priorities (tenant, priority_id) on delete set null (priority_id),
      foreign key (tenant, assigned_to) references users (tenant, user_id) on delete set null (assigned_to),
      foreign key (tenant, assigned_team_id) references teams (tenant, team_id) on delete set null (assigned_team_id),
      foreign key (tenant, created_by) references users (tenant, user_id) on delete set null (created_by),
      foreign key (tenant, updated_by) references users (tenant, user_id) on delete set null (updated_by)
    );
    create index project_tasks_phase_idx on project_tasks (tenant, phase_id, position);
    create index project_tasks_project_idx on project_tasks (tenant, project_id, phase_id, position);
    create index project_tasks_mapping_idx on project_tasks (tenant, project_id, status_mapping_id);
    create index project_tasks_assigned_idx on project_tasks (tenant, assigned_to) where assigned_to is not null;
    create index project_tasks_team_idx on project_tasks (tenant, assigned_team_id) where assigned_team_id is not null;
    create index project_tasks_priority_idx on project_tasks (tenant, priority_id) where priority_id is not null;

    create table project_task_checklist_items (
      tenant uuid not null,
      checklist_item_id uuid not null,
      task_id uuid not null,
      item_name text not null check (char_length(item_name) between 1 and 500),
      completed boolean not null default false,
      position integer not null check (position >= 1),
      created_at timestamptz(3) not null default now(),
      updated_at timestamptz(3) not null default now(),
      primary key (tenant, checklist_item_id),
      foreign key (tenant, task_id) references project_tasks (tenant, task_id) on delete cascade
    );
    create index project_task_checklist_items_task_idx on project_task_checklist_items (tenant, task_id, position);

    create table project_task_comments (
      tenant uuid not null,
      comment_id uuid not null,
      task_id uuid not null,
      author_user_id uuid,
      comment_text text not null check (char_length(comment_text) between 1 and 10000),
      created_at timestamptz(3) not null default now(),
      updated_at timestamptz(3) not null default now(),
      primary key (tenant, comment_id),
      foreign key (tenant, task_id) references project_tasks (tenant, task_id) on delete cascade,
      foreign key (tenant, author_user_id) references users (tenant, user_id) on delete set null (author_user_id)
    );
    create index project_task_comments_task_idx on project_task_comments (tenant, task_id, created_at, comment_id);

    create table project_task_comment_reactions (
      tenant uuid not null,
      comment_id uuid not null,
      user_id uuid not null,
      emoji text not null check (char_length(emoji) between 1 and 32),
      created_at timestamptz(3) not null default now(),
      primary key (tenant, comment_id, user_id, emoji),
      foreign key (tenant, comment_id) references project_task_comments (tenant, comment_id) on delete cascade,
      foreign key (tenant, user_id) references users (tenant, user_id) on delete cascade
    );
    create index project_task_comment_reactions_user_idx on project_task_comment_reactions (tenant, user_id);

    insert into project_statuses (tenant, status_id, name, is_closed, is_default, order_number)
      select t.tenant_id, gen_random_uuid(), v.name, v.is_closed, v.is_default, v.order_number
      from tenants t
      cross join (values ('Planning', false, true, 1), ('Active', false, false, 2), ('On Hold', false, false, 3), ('Completed', true, false, 4), ('Cancelled', true, false, 5)) as v (name, is_closed, is_default, order_number);
    insert into task_statuses (tenant, task_status_id, name, is_closed, is_default, order_number)
      select t.tenant_id, gen_random_uuid(), v.name, v.is_closed, v.is_default, v.order_number
      from tenants t
      cross join (values ('To Do', false, true, 1), ('In Progress', false, false, 2), ('Done', true, false, 3)) as v (name, is_closed, is_default, order_number);
  `);
}
