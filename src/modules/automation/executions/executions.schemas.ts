import { Type, type Static } from 'typebox';
import { Id, Nullable, Timestamp, dataOf, listOf, listQuery } from '../../../platform/http/schemas.ts';
import { TRIGGER_TYPES } from '../automation.types.ts';

export const EXECUTION_STATUSES = ['pending', 'running', 'completed', 'failed', 'cancelled', 'timeout', 'skipped'] as const;
export const STEP_STATUSES = ['pending', 'running', 'completed', 'failed', 'skipped'] as const;
export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;
/** The statuses a retry accepts. */
export const RETRYABLE_STATUSES = ['failed', 'timeout', 'cancelled'] as const;

const JsonObject = Type.Unsafe<Record<string, unknown>>({ type: 'object', additionalProperties: true });

const executionProperties = {
  execution_id: Id,
  rule_id: Id,
  rule_name: Type.String({ description: 'The rule\'s current name' }),
  trigger_type: Type.Enum([...TRIGGER_TYPES]),
  trigger_key: Type.String({ description: 'What triggered it, unique per rule: an event id, schedule:<due time>, inbound:<delivery id>, manual:<id>' }),
  trigger_data: Type.Unsafe<Record<string, unknown>>({ type: 'object', additionalProperties: true, description: 'The envelope the conditions and placeholders read: event_type, data, changes?, headers?, trigger' }),
  status: Type.Enum([...EXECUTION_STATUSES]),
  depth: Type.Integer({ description: 'How deep in a chain of rules (0: triggered by a user\'s change, a schedule, a webhook or by hand)' }),
  cause_rule_ids: Type.Array(Id, { description: 'The rules whose actions led to the triggering event, oldest first' }),
  attempts: Type.Integer({ description: 'How many times a worker started or resumed it' }),
  actions_total: Type.Integer(),
  actions_successful: Type.Integer(),
  actions_failed: Type.Integer(),
  failed_action_index: Nullable(Type.Integer({ description: 'The step (0-based, run order) that stopped the execution' })),
  error_message: Nullable(Type.String()),
  started_at: Nullable(Timestamp),
  completed_at: Nullable(Timestamp),
  duration_ms: Nullable(Type.Integer()),
  created_by: Nullable(Type.String({ format: 'uuid', description: 'Who started it by hand (null for triggers)' })),
  created_at: Timestamp,
  updated_at: Timestamp,
};

export const Execution = Type.Object(executionProperties);
export type Execution = Static<typeof Execution>;

export const ExecutionStep = Type.Object({
  action_index: Type.Integer({ description: '0-based, in run order' }),
  action_type: Type.String(),
  status: Type.Enum([...STEP_STATUSES]),
  attempts: Type.Integer(),
  started_at: Nullable(Timestamp),
  completed_at: Nullable(Timestamp),
  duration_ms: Nullable(Type.Integer()),
  result: Nullable(JsonObject),
  error_message: Nullable(Type.String()),
});
export type ExecutionStep = Static<typeof ExecutionStep>;

export const ExecutionLog = Type.Object({
  log_id: Id,
  timestamp: Timestamp,
  level: Type.Enum([...LOG_LEVELS]),
  message: Type.String(),
  action_index: Nullable(Type.Integer()),
  metadata: Nullable(JsonObject),
});
export type ExecutionLog = Static<typeof ExecutionLog>;

export const ExecutionDetail = Type.Object({
  ...executionProperties,
  steps: Type.Array(ExecutionStep, { description: 'One per action, in run order' }),
  logs: Type.Array(ExecutionLog, { description: 'Oldest first' }),
});
export type ExecutionDetail = Static<typeof ExecutionDetail>;

export const EXECUTION_SORT_FIELDS = ['created_at', 'started_at', 'duration_ms'] as const;
export const ListExecutionsQuery = listQuery(EXECUTION_SORT_FIELDS, {
  rule_id: Type.Optional(Id),
  status: Type.Optional(Type.Enum([...EXECUTION_STATUSES])),
  trigger_type: Type.Optional(Type.Enum([...TRIGGER_TYPES])),
  from: Type.Optional(Type.String({ format: 'date-time', description: 'Created at or after' })),
  to: Type.Optional(Type.String({ format: 'date-time', description: 'Created before' })),
});
export type ListExecutionsQuery = Static<typeof ListExecutionsQuery>;

export const ExecutionParams = Type.Object({ executionId: Id }, { additionalProperties: false });

export const ExecutionResponse = dataOf(Execution);
export const ExecutionDetailResponse = dataOf(ExecutionDetail);
export const ExecutionListResponse = listOf(Execution);
