import type { ColumnType, Generated } from 'kysely';

/** Kysely table types of migration 0021_automation (src/modules/automation); kept apart from schema.ts. */

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type CreatedAt = ColumnType<Date, Date | string | undefined, never>;
type Json<T> = ColumnType<T, string | T | undefined, string | T>;

export type RuleStatus = 'draft' | 'active' | 'inactive' | 'error';
export type RulePriority = 'low' | 'normal' | 'high' | 'critical';
export type TriggerType = 'event' | 'schedule' | 'manual' | 'inbound_webhook';
export type ConditionLogic = 'and' | 'or';
export type ExecutionStatus = 'pending' | 'running' | 'completed' | 'failed' | 'cancelled' | 'timeout' | 'skipped';
export type StepStatus = 'pending' | 'running' | 'completed' | 'failed' | 'skipped';
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export interface RuleCondition {
  field: string;
  operator: string;
  value?: unknown;
}

export interface RuleAction {
  type: string;
  config: Record<string, unknown>;
  order: number;
  continue_on_error: boolean;
  retry_attempts: number;
  timeout_seconds: number;
}

export interface AutomationRulesTable {
  tenant: string;
  rule_id: string;
  name: string;
  description: string | null;
  status: Generated<RuleStatus>;
  priority: Generated<RulePriority>;
  trigger_type: TriggerType;
  trigger_config: Json<Record<string, unknown>>;
  conditions: Json<RuleCondition[]>;
  condition_logic: Generated<ConditionLogic>;
  actions: Json<RuleAction[]>;
  max_concurrent_executions: Generated<number>;
  execution_timeout_minutes: Generated<number>;
  retry_failed_executions: Generated<boolean>;
  tags: ColumnType<string[], string[] | undefined, string[]>;
  /** Generated: trigger_config.event_type of event rules. */
  event_type: ColumnType<string | null, never, never>;
  next_run_at: Date | null;
  last_run_at: Date | null;
  last_error: string | null;
  /** Encrypted (SecretBox); shown once when the rule is created or the secret rotated. */
  signing_secret_enc: string;
  created_by: string | null;
  updated_by: string | null;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

export interface AutomationExecutionsTable {
  tenant: string;
  execution_id: string;
  rule_id: string;
  trigger_type: TriggerType;
  trigger_key: string;
  trigger_data: Json<Record<string, unknown>>;
  /** The rule's actions when the execution was created (what it runs, resumed or retried). */
  actions: Json<RuleAction[]>;
  status: Generated<ExecutionStatus>;
  depth: Generated<number>;
  cause_rule_ids: ColumnType<string[], string[] | undefined, string[]>;
  attempts: Generated<number>;
  actions_total: Generated<number>;
  actions_successful: Generated<number>;
  actions_failed: Generated<number>;
  failed_action_index: number | null;
  error_message: string | null;
  started_at: Date | null;
  completed_at: Date | null;
  duration_ms: number | null;
  created_by: string | null;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

export interface AutomationExecutionStepsTable {
  tenant: string;
  execution_id: string;
  action_index: number;
  action_type: string;
  status: Generated<StepStatus>;
  attempts: Generated<number>;
  started_at: Date | null;
  completed_at: Date | null;
  duration_ms: number | null;
  result: Json<Record<string, unknown> | null>;
  error_message: string | null;
}

export interface AutomationExecutionLogsTable {
  tenant: string;
  log_id: string;
  execution_id: string;
  logged_at: CreatedAt;
  level: LogLevel;
  message: string;
  action_index: number | null;
  metadata: Json<Record<string, unknown> | null>;
}

export interface AutomationTemplatesTable {
  tenant: string;
  template_id: string;
  name: string;
  description: string | null;
  category: string | null;
  template_config: Json<Record<string, unknown>>;
  template_variables: Json<Record<string, unknown>[]>;
  usage_count: Generated<number>;
  last_used_at: Date | null;
  created_by: string | null;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

/** A tenant's use of a built-in template (built-ins live in code). */
export interface AutomationBuiltinTemplateUsageTable {
  tenant: string;
  template_id: string;
  usage_count: Generated<number>;
  last_used_at: Date | null;
}

export interface AutomationTables {
  automation_rules: AutomationRulesTable;
  automation_executions: AutomationExecutionsTable;
  automation_execution_steps: AutomationExecutionStepsTable;
  automation_execution_logs: AutomationExecutionLogsTable;
  automation_templates: AutomationTemplatesTable;
  automation_builtin_template_usage: AutomationBuiltinTemplateUsageTable;
}
