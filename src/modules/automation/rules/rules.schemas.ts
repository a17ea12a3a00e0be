import { Type, type Static } from 'typebox';
import { Id, Nullable, Timestamp, dataOf, listOf, listQuery } from '../../../platform/http/schemas.ts';
import { CONDITION_LOGICS, RULE_PRIORITIES, RULE_STATUSES, WRITABLE_RULE_STATUSES, ruleDefinitionFields } from '../automation.catalog.ts';
import { CONDITION_OPERATORS, TRIGGER_TYPES } from '../automation.types.ts';

export const NoQuery = Type.Object({}, { additionalProperties: false });

const StoredCondition = Type.Object({
  field: Type.String(),
  operator: Type.Enum([...CONDITION_OPERATORS]),
  value: Type.Optional(Type.Unknown()),
});

const StoredAction = Type.Object({
  type: Type.String(),
  config: Type.Unknown({ description: 'The action\'s config as saved (placeholders unfilled)' }),
  order: Type.Integer({ description: '1…n: the run order' }),
  continue_on_error: Type.Boolean(),
  retry_attempts: Type.Integer(),
  timeout_seconds: Type.Integer(),
});

const ruleProperties = {
  rule_id: Id,
  name: Type.String(),
  description: Nullable(Type.String()),
  status: Type.Enum([...RULE_STATUSES]),
  priority: Type.Enum([...RULE_PRIORITIES]),
  trigger_type: Type.Enum([...TRIGGER_TYPES]),
  trigger_config: Type.Unknown({ description: 'The trigger\'s settings, defaults filled in' }),
  event_type: Nullable(Type.String({ description: 'trigger_config.event_type of an event rule' })),
  conditions: Type.Array(StoredCondition),
  condition_logic: Type.Enum([...CONDITION_LOGICS]),
  actions: Type.Array(StoredAction),
  max_concurrent_executions: Type.Integer(),
  execution_timeout_minutes: Type.Integer(),
  retry_failed_executions: Type.Boolean(),
  tags: Type.Array(Type.String()),
  next_run_at: Nullable(Type.String({ format: 'date-time', description: 'An active schedule rule\'s next due time; null otherwise' })),
  last_run_at: Nullable(Type.String({ format: 'date-time' })),
  last_error: Nullable(Type.String({ description: 'Why the engine set status error' })),
  created_by: Nullable(Type.String({ format: 'uuid', description: "The rule's owner: its actions run as this user, with their permissions" })),
  updated_by: Nullable(Type.String({ format: 'uuid' })),
  created_at: Timestamp,
  updated_at: Timestamp,
};

/** An automation rule. */
export const Rule = Type.Object(ruleProperties);
export type Rule = Static<typeof Rule>;

export const RuleWithSecret = Type.Object({
  ...ruleProperties,
  signing_secret: Type.String({ description: 'The rule\'s signing secret (asec_ + 32 random bytes, base64url): call_url actions sign their requests with it. Shown only in this response' }),
});
export type RuleWithSecret = Static<typeof RuleWithSecret>;

export const CreateRuleBody = Type.Object(ruleDefinitionFields, { additionalProperties: false });
export type CreateRuleBody = Static<typeof CreateRuleBody>;

const { name, trigger_type, actions, ...optional } = ruleDefinitionFields;
export const UpdateRuleBody = Type.Object(
  {
    name: Type.Optional(name),
    trigger_type: Type.Optional(trigger_type),
    actions: Type.Optional(actions),
    ...optional,
  },
  { additionalProperties: false, minProperties: 1, description: 'Partial: the fields sent replace the rule\'s (arrays and trigger_config whole); the result is validated as a whole rule' },
);
export type UpdateRuleBody = Static<typeof UpdateRuleBody>;

export const RULE_SORT_FIELDS = ['name', 'created_at', 'updated_at', 'priority'] as const;
export const ListRulesQuery = listQuery(RULE_SORT_FIELDS, {
  status: Type.Optional(Type.Enum([...RULE_STATUSES])),
  trigger_type: Type.Optional(Type.Enum([...TRIGGER_TYPES])),
  event_type: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Event rules listening to this event type' })),
  tag: Type.Optional(Type.String({ minLength: 1, maxLength: 50, description: 'Rules carrying this tag' })),
  search: Type.Optional(Type.String({ maxLength: 255, description: 'Part of the name or description, any case' })),
});
export type ListRulesQuery = Static<typeof ListRulesQuery>;

export const RuleParams = Type.Object({ ruleId: Id }, { additionalProperties: false });

export const BulkStatusBody = Type.Object(
  {
    ids: Type.Array(Id, { minItems: 1, maxItems: 100, uniqueItems: true, description: '1–100 distinct rule ids' }),
    status: Type.Enum([...WRITABLE_RULE_STATUSES]),
  },
  { additionalProperties: false, description: 'All or nothing: an unknown id is a 404, a rule that cannot be activated a 422' },
);
export type BulkStatusBody = Static<typeof BulkStatusBody>;

export const RuleResponse = dataOf(Rule);
export const RuleWithSecretResponse = dataOf(RuleWithSecret);
export const RuleListResponse = listOf(Rule);
export const BulkStatusResponse = Type.Object({
  data: Type.Array(Rule, { description: 'The rules after the change, in request order' }),
  meta: Type.Object({ updated: Type.Integer({ description: 'How many rules actually changed status' }) }),
});
