import type { Kysely } from 'kysely';
import { runStatements } from './run-statements.ts';

/**
 * Project templates (phases with day offsets, tasks with assignee and status hints, checklist items,
 * task status mappings) and project-ticket links. Positions are dense per parent (0, 1, 2, …) and
 * rewritten as a whole when a template's phases are replaced, so no order key juggling is needed.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, `
    create table project_templates (
      tenant uuid not null references tenants (tenant_id),
      template_id uuid not null,
      template_name text not null,
      description text,
      category text,
      use_count integer not null default 0 check (use_count >= 0),
      created_by uuid,
      created_at timestamptz(3) not null default now(),
      updated_at timestamptz(3) not null default now(),
      primary key (tenant, template_id),
      foreign key (tenant, created_by) references users (tenant, user_id) on delete set null (created_by)
    );
    create index project_templates_name_idx on project_templates (tenant, lower(template_name), template_id);
    create index project_templates_category_idx on project_templates (tenant, category) where category is not null;

    create table project_template_phases (
      tenant uuid not null,
      template_phase_id uuid not null,
      template_id uuid not null,
      phase_name text not null,
      description text,
      start_offset_days integer not null default 0 check (start_offset_days between 0 and 3650),
      duration_days integer check (duration_days between 1 and 3650),
      position integer not null check (position >= 0),
      primary key (tenant, template_phase_id),
      -- Lets tasks reference (template, phase) together, so a task's phase always belongs to its template.
      unique (tenant, template_id, template_phase_id),
      unique (tenant, template_id, position),
      foreign key (tenant, template_id) references project_templates (tenant, template_id) on delete cascade
    );

    create table project_template_tasks (
      tenant uuid not null,
      template_task_id uuid not null,
      template_id uuid not null,
      template_phase_id uuid not null,
      task_name text not null,
      description text,
      estimated_hours numeric(10, 2) check (estimated_hours >= 0),
      due_offset_days integer check (due_offset_days between 0 and 3650),
      assigned_to uuid,
      assigned_team_id uuid,
      task_status_id uuid,
      position integer not null check (position >= 0),
      primary key (tenant, template_task_id),
      unique (tenant, template_phase_id, position),
      foreign key (tenant, template_id, template_phase_id) references project_template_phases (tenant, template_id, template_phase_id) on delete cascade,
      foreign key (tenant, assigned_to) references users (tenant, user_id) on delete set null (assigned_to),
      foreign key (tenant, assigned_team_id) references teams (tenant, team_id) on delete set null (assigned_team_id),
      foreign key (tenant, task_status_id) references task_statuses (tenant, task_status_id) on delete set null (task_status_id)
    );
    create index project_template_tasks_template_idx on project_template_tasks (tenant, template_id);

    create table project_template_checklist_items (
      tenant uuid not null,
      template_item_id uuid not null,
      template_id uuid not null,
      template_task_id uuid not null,
      item_name text not null,
      completed boolean not null default false,
      position integer not null check (position >= 0),
      primary key (tenant, template_item_id),
      unique (tenant, template_task_id, position),
      foreign key (tenant, template_task_id) references project_template_tasks (tenant, template_task_id) on delete cascade
    );
    create index project_template_checklist_template_idx on project_template_checklist_items (tenant, template_id);

    create table project_template_status_mappings (
      tenant uuid not null,
      template_id uuid not null,
      task_status_id uuid not null,
      position integer not null check (position >= 0),
      primary key (tenant, template_id, task_status_id),
      unique (tenant, template_id, position),
      foreign key (tenant, template_id) references project_templates (tenant, template_id) on delete cascade,
      foreign key (tenant, task_status_id) references task_statuses (tenant, task_status_id) on delete cascade
    );
    create index project_template_status_mappings_status_idx on project_template_status_mappings (tenant, task_status_id);

    -- A ticket linked to the project itself (no phase, no task), to one of its phases or to one of its
    -- tasks; the same ticket once per target. Deleting the project, phase, task or ticket drops the link.
    create table project_ticket_links (
      tenant uuid not null,
      link_id uuid not null,
      project_id uuid not null,
      phase_id uuid,
      task_id uuid,
      ticket_id uuid not null,
      created_by uuid,
      created_at timestamptz(3) not null default now(),
      primary key (tenant, link_id),
      foreign key (tenant, project_id) references projects (tenant, project_id) on delete cascade,
      foreign key (tenant, project_id, phase_id) references project_phases (tenant, project_id, phase_id) on delete cascade,
      foreign key (tenant, task_id) references project_tasks (tenant, task_id) on delete cascade,
      foreign key (tenant, ticket_id) references tickets (tenant, ticket_id) on delete cascade,
      foreign key (tenant, created_by) references users (tenant, user_id) on delete set null (created_by)
    );
    create unique index project_ticket_links_target_uq on project_ticket_links (
      tenant, project_id,
      coalesce(phase_id, '00000000-0000-0000-0000-000000000000'::uuid),
      coalesce(task_id, '00000000-0000-0000-0000-000000000000'::uuid),
      ticket_id
    );
    create index project_ticket_links_ticket_idx on project_ticket_links (tenant, ticket_id);
    create index project_ticket_links_phase_idx on project_ticket_links (tenant, phase_id) where phase_id is not null;
    create index project_ticket_links_task_idx on project_ticket_links (tenant, task_id) where task_id is not null;
  `);
}
