import type { ColumnType, Generated } from 'kysely';

/** Kysely table types of migration 0012_project_templates; kept apart from schema.ts so each area edits only its own file. */
type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type CreatedAt = ColumnType<Date, Date | string | undefined, never>;
/** numeric comes back as a string from pg and PGlite; written as a number. */
type Numeric = ColumnType<string, number | string, number | string>;

export interface ProjectTemplatesTable {
  tenant: string;
  template_id: string;
  template_name: string;
  description: string | null;
  category: string | null;
  use_count: Generated<number>;
  created_by: string | null;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

export interface ProjectTemplatePhasesTable {
  tenant: string;
  template_phase_id: string;
  template_id: string;
  phase_name: string;
  description: string | null;
  start_offset_days: number;
  duration_days: number | null;
  position: number;
}

export interface ProjectTemplateTasksTable {
  tenant: string;
  template_task_id: string;
  template_id: string;
  template_phase_id: string;
  task_name: string;
  description: string | null;
  estimated_hours: Numeric | null;
  due_offset_days: number | null;
  assigned_to: string | null;
  assigned_team_id: string | null;
  task_status_id: string | null;
  position: number;
}

export interface ProjectTemplateChecklistItemsTable {
  tenant: string;
  template_item_id: string;
  template_id: string;
  template_task_id: string;
  item_name: string;
  completed: boolean;
  position: number;
}

export interface ProjectTemplateStatusMappingsTable {
  tenant: string;
  template_id: string;
  task_status_id: string;
  position: number;
}

export interface ProjectTicketLinksTable {
  tenant: string;
  link_id: string;
  project_id: string;
  phase_id: string | null;
  task_id: string | null;
  ticket_id: string;
  created_by: string | null;
  created_at: CreatedAt;
}

export interface ProjectTemplateTables {
  project_templates: ProjectTemplatesTable;
  project_template_phases: ProjectTemplatePhasesTable;
  project_template_tasks: ProjectTemplateTasksTable;
  project_template_checklist_items: ProjectTemplateChecklistItemsTable;
  project_template_status_mappings: ProjectTemplateStatusMappingsTable;
  project_ticket_links: ProjectTicketLinksTable;
}
