import { Type, type Static } from 'typebox';
import { Id, dataOf } from '../../../platform/http/schemas.ts';
import { Execution } from '../executions/executions.schemas.ts';

export const RuleParams = Type.Object({ ruleId: Id }, { additionalProperties: false });

/** Any JSON object (checked by the service: free-form, like a rule's envelope `data`). */
const ExecutionData = Type.Unknown({
  description: 'A JSON object: the run\'s `data` (conditions and {{data.…}} placeholders read it); at most 64 KiB as JSON. Default {}',
});

export const ExecuteRuleBody = Type.Object(
  {
    execution_data: Type.Optional(ExecutionData),
    override_conditions: Type.Optional(Type.Boolean({ default: false, description: 'Run the actions even if the conditions do not match' })),
    dry_run: Type.Optional(Type.Boolean({ default: false, description: 'Evaluate the conditions and show the planned actions (placeholders filled in) without running or recording anything' })),
  },
  { additionalProperties: false },
);
export type ExecuteRuleBody = Static<typeof ExecuteRuleBody>;

export const BulkExecuteBody = Type.Object(
  {
    automation_rule_ids: Type.Array(Id, { minItems: 1, maxItems: 20, uniqueItems: true, description: '1–20 distinct rule ids' }),
    execution_data: Type.Optional(ExecutionData),
    override_conditions: Type.Optional(Type.Boolean({ default: false })),
  },
  { additionalProperties: false, description: 'Each rule is started on its own: one that cannot run is listed in errors, the others still start' },
);
export type BulkExecuteBody = Static<typeof BulkExecuteBody>;

const ConditionResult = Type.Object({
  field: Type.String(),
  operator: Type.String(),
  value: Type.Optional(Type.Unknown()),
  actual: Type.Optional(Type.Unknown({ description: 'The field\'s value in the run\'s envelope (absent when the path leads nowhere)' })),
  passed: Type.Boolean(),
  error: Type.Optional(Type.String({ description: 'Why the condition could not be evaluated (it counts as failed)' })),
});

export const DryRun = Type.Object({
  dry_run: Type.Literal(true),
  matched: Type.Boolean({ description: 'Whether the conditions match the run\'s data' }),
  would_run: Type.Boolean({ description: 'Whether a real run would run the actions (matched, or override_conditions)' }),
  condition_logic: Type.String(),
  conditions: Type.Array(ConditionResult),
  planned_actions: Type.Array(Type.Object({
    index: Type.Integer({ description: 'The step (0-based, run order)' }),
    type: Type.String(),
    config: Type.Unsafe<Record<string, unknown>>({ type: 'object', additionalProperties: true, description: 'The config with placeholders filled in (as saved when one has no value)' }),
    error: Type.Optional(Type.String({ description: 'Why the step would fail before running (a placeholder without a value)' })),
  })),
});
export type DryRun = Static<typeof DryRun>;

export const DryRunResponse = dataOf(DryRun);
export const ExecutionStartedResponse = dataOf(Execution);

export const BulkExecuteResponse = dataOf(Type.Object({
  executions: Type.Array(Execution, { description: 'The executions started (or recorded as skipped), in request order' }),
  errors: Type.Array(Type.Object({
    rule_id: Id,
    code: Type.String(),
    message: Type.String(),
  }), { description: 'The rules that could not be started' }),
}));
