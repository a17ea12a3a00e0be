import type { ColumnType, Generated } from 'kysely';

/** Kysely table types of migration 0011_projects; kept apart from schema.ts so each area edits only its own file. */

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type CreatedAt = ColumnType<Date, Date | string | undefined, never>;
/** numeric(10,2) hour columns come back as strings from both drivers; the mappers turn them into numbers. */
type Hours = ColumnType<string | null, number | string | null | undefined, number | string | null>;
/** `date` columns come back as 'YYYY-MM-DD' strings (DATE_OID parser). */
type DateOnly = string;

export interface ProjectStatusesTable {
  tenant: string;
  status_id: string;
  name: string;
  is_closed: Generated<boolean>;
  is_default: Generated<boolean>;
  order_number: Generated<number>;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

export interface TaskStatusesTable {
  tenant: string;
  task_status_id: string;
  name: string;
  is_closed: Generated<boolean>;
  is_default: Generated<boolean>;
  order_number: Generated<number>;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

export interface ProjectNumberCountersTable {
  tenant: string;
  last_number: number;
}

export interface ProjectsTable {
  tenant: string;
  project_id: string;
  project_seq: number;
  project_number: string;
  project_name: string;
  description: string | null;
  client_id: string | null;
  /** The API's contact_name_id. */
  contact_id: string | null;
  assigned_to: string | null;
  assigned_team_id: string | null;
  status_id: string;
  is_closed: Generated<boolean>;
  start_date: DateOnly | null;
  end_date: DateOnly | null;
  budgeted_hours: Hours;
  created_by: string | null;
  created_at: CreatedAt;
  updated_by: string | null;
  updated_at: Timestamp;
  closed_at: Date | null;
}

export interface ProjectTaskStatusMappingsTable {
  tenant: string;
  status_mapping_id: string;
  project_id: string;
  task_status_id: string;
  display_order: Generated<number>;
  is_visible: Generated<boolean>;
  created_at: CreatedAt;
}

export interface ProjectPhasesTable {
  tenant: string;
  phase_id: string;
  project_id: string;
  phase_name: string;
  description: string | null;
  start_date: DateOnly | null;
  end_date: DateOnly | null;
  position: number;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

export interface ProjectTasksTable {
  tenant: string;
  task_id: string;
  project_id: string;
  phase_id: string;
  task_name: string;
  description: string | null;
  status_mapping_id: string;
  assigned_to: string | null;
  assigned_team_id: string | null;
  estimated_hours: Hours;
  actual_hours: ColumnType<string, number | string | undefined, number | string>;
  due_date: DateOnly | null;
  priority_id: string | null;
  position: number;
  completed_at: Date | null;
  created_by: string | null;
  created_at: CreatedAt;
  updated_by: string | null;
  updated_at: Timestamp;
}

export interface ProjectTaskChecklistItemsTable {
  tenant: string;
  checklist_item_id: string;
  task_id: string;
  item_name: string;
  completed: Generated<boolean>;
  position: number;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

export interface ProjectTaskCommentsTable {
  tenant: string;
  comment_id: string;
  task_id: string;
  author_user_id: string | null;
  comment_text: string;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

export interface ProjectTaskCommentReactionsTable {
  tenant: string;
  comment_id: string;
  user_id: string;
  emoji: string;
  created_at: CreatedAt;
}

export interface ProjectTables {
  project_statuses: ProjectStatusesTable;
  task_statuses: TaskStatusesTable;
  project_number_counters: ProjectNumberCountersTable;
  projects: ProjectsTable;
  project_task_status_mappings: ProjectTaskStatusMappingsTable;
  project_phases: ProjectPhasesTable;
  project_tasks: ProjectTasksTable;
  project_task_checklist_items: ProjectTaskChecklistItemsTable;
  project_task_comments: ProjectTaskCommentsTable;
  project_task_comment_reactions: ProjectTaskCommentReactionsTable;
}
