import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import * as addFormatsModule from 'ajv-formats';
import { CronExpressionParser } from 'cron-parser';
import { Type, type Static, type TSchema } from 'typebox';
import type { RuleAction, RuleCondition, RulePriority, TriggerType } from '../../platform/db/schema.automation.ts';
import { eventTypeInfo } from '../../platform/events/vocabulary.ts';
import { AppError } from '../../platform/http/errors.ts';
import { Name, Nullable } from '../../platform/http/schemas.ts';
import { actionDefinition, ACTION_DEFINITIONS } from './actions/actions.catalog.ts';
import { validateCondition } from './engine/conditions.ts';
import { CURRENT_RECORD_TYPES, hasCurrentRecord } from './engine/current.ts';
import { ENVELOPE_ROOTS, EVENT_CONDITION_ROOTS, MAX_PATH_LENGTH, pathProblem, readsCurrent } from './engine/paths.ts';
import { CONDITION_OPERATORS, TRIGGER_TYPES, type ActionDefinition, type ConditionOperator } from './automation.types.ts';

/**
 * What a rule may say, in one place: the trigger types and their config schemas, the condition operators
 * and the values they take, the rule's own shape, and `validateRuleShape`, which every write of a rule
 * (the rules API, a template's `use`) runs. GET /automation/meta publishes these same schemas.
 */

// ajv-formats ships CommonJS; under NodeNext its default export arrives wrapped.
const addFormats = addFormatsModule.default as unknown as (ajv: Ajv) => Ajv;
const ajv = new Ajv({ strict: false, allErrors: true, coerceTypes: false, useDefaults: false, removeAdditional: false });
addFormats(ajv);

export const RULE_STATUSES = ['draft', 'active', 'inactive', 'error'] as const;
/** The statuses the API sets; `error` is the engine's. */
export const WRITABLE_RULE_STATUSES = ['draft', 'active', 'inactive'] as const;
export const RULE_PRIORITIES = ['low', 'normal', 'high', 'critical'] as const;
export const CONDITION_LOGICS = ['and', 'or'] as const;
export const EXECUTION_STATUSES = ['pending', 'running', 'completed', 'failed', 'cancelled', 'timeout', 'skipped'] as const;

// ---------------------------------------------------------------------------------------------------------
// Field paths and placeholders

/** The envelope members a condition's `field` or a `{{placeholder}}` starts at (automation.types.ts TriggerEnvelope). */
export const FIELD_ROOTS = ENVELOPE_ROOTS;

/** `{{ data.ticket_id }}` anywhere in a string (spaces inside the braces are allowed); the path is checked apart. */
export const PLACEHOLDER_RE = /\{\{\s*([^{}]*?)\s*\}\}/g;
/** A string that is exactly one placeholder takes the type of the value it names. */
export const WHOLE_PLACEHOLDER_RE = /^\{\{\s*([^{}]*?)\s*\}\}$/;

// ---------------------------------------------------------------------------------------------------------
// Conditions

export type OperatorValueKind = 'any' | 'array' | 'none' | 'regex';

/** What each operator does (engine/conditions.ts is the reference) and the value it takes. */
export const CONDITION_OPERATOR_INFO: Record<ConditionOperator, { value: OperatorValueKind; description: string }> = {
  equals: { value: 'any', description: 'The field equals the value (JSON values, arrays and objects deeply); a number and a numeric string compare as numbers, nothing else is coerced' },
  not_equals: { value: 'any', description: 'The negation of equals' },
  greater_than: { value: 'any', description: 'Numbers (or numeric strings), or two ISO 8601 dates; anything else is false' },
  less_than: { value: 'any', description: 'Numbers (or numeric strings), or two ISO 8601 dates; anything else is false' },
  greater_than_or_equal: { value: 'any', description: 'Numbers (or numeric strings), or two ISO 8601 dates; anything else is false' },
  less_than_or_equal: { value: 'any', description: 'Numbers (or numeric strings), or two ISO 8601 dates; anything else is false' },
  contains: { value: 'any', description: 'A substring of the field (case-sensitive), or a member of the field when it is an array' },
  not_contains: { value: 'any', description: 'The negation of contains' },
  starts_with: { value: 'any', description: 'The field (a string) starts with the value (a string), case-sensitive' },
  ends_with: { value: 'any', description: 'The field (a string) ends with the value (a string), case-sensitive' },
  in: { value: 'array', description: 'The field equals one of the values (an array of strings, numbers, booleans or null)' },
  not_in: { value: 'array', description: 'The negation of in' },
  exists: { value: 'none', description: 'The field is present and not null; takes no value' },
  not_exists: { value: 'none', description: 'The field is absent or null; takes no value' },
  regex_match: { value: 'regex', description: 'The field matches the RE2 pattern (≤ 500 characters; linear time, unanchored: ^…$ to anchor, (?i) to ignore case)' },
};

const VALUE_JSON_MAX = 10_000;
/** The longest an event rule may wait before it runs (trigger_config.delay_minutes): a week. */
export const MAX_DELAY_MINUTES = 7 * 24 * 60;

export const ConditionSchema = Type.Object(
  {
    field: Type.String({ minLength: 1, maxLength: MAX_PATH_LENGTH, description: `A dotted path into the trigger's envelope, rooted at ${ENVELOPE_ROOTS.join(', ')} (and, for event rules, current: the event's record as it is when the execution runs)` }),
    operator: Type.Enum([...CONDITION_OPERATORS]),
    value: Type.Optional(Type.Unknown({ description: 'What the field is compared with: any JSON for comparisons, an array for in/not_in, an RE2 pattern for regex_match, absent for exists/not_exists' })),
  },
  { additionalProperties: false },
);
export type ConditionInput = Static<typeof ConditionSchema>;

/**
 * The problems of one condition (or event filter), by path: the engine's own check (engine/conditions.ts
 * validateCondition: path, operator, a value that fits it, an RE2 pattern that compiles), and no value
 * where the operator takes none.
 */
export function conditionProblems(c: ConditionInput, path: string, roots: readonly string[] = ENVELOPE_ROOTS): Problem[] {
  const fieldProblem = pathProblem(c.field, roots);
  if (fieldProblem) return [{ path: `${path}.field`, message: fieldProblem }];
  const info = CONDITION_OPERATOR_INFO[c.operator as ConditionOperator];
  if (!info) return [{ path: `${path}.operator`, message: `must be one of ${CONDITION_OPERATORS.join(', ')}` }];
  const at = `${path}.value`;
  if (info.value === 'none') return c.value === undefined ? [] : [{ path: at, message: `must be left out: ${c.operator} takes no value` }];
  if (c.value === undefined) return [{ path: at, message: `is required for ${c.operator}` }];
  if (JSON.stringify(c.value).length > VALUE_JSON_MAX) return [{ path: at, message: `must be at most ${VALUE_JSON_MAX} characters as JSON` }];
  const problem = validateCondition(c, roots);
  return problem ? [{ path: at, message: problem.slice(0, 500) }] : [];
}

// ---------------------------------------------------------------------------------------------------------
// Triggers

const EventTriggerConfig = Type.Object(
  {
    event_type: Type.String({ minLength: 1, maxLength: 100, description: 'An event type of the vocabulary (GET /api/v1/webhooks/events lists it)' }),
    filters: Type.Optional(Type.Array(ConditionSchema, { maxItems: 20, description: 'Conditions the event must meet (all of them), in the same form as the rule\'s conditions' })),
    delay_minutes: Type.Optional(Type.Integer({
      minimum: 1, maximum: MAX_DELAY_MINUTES,
      description: 'Run the execution this long after the event (at most a week); conditions on current.* are checked then, against the record as it is',
    })),
  },
  { additionalProperties: false },
);
const ScheduleTriggerConfig = Type.Object(
  {
    cron: Type.String({ minLength: 9, maxLength: 120, description: 'Five fields (minute hour day-of-month month day-of-week), or six with seconds first' }),
    timezone: Type.Optional(Type.String({ minLength: 1, maxLength: 64, default: 'UTC', description: 'The IANA time zone the expression is read in' })),
  },
  { additionalProperties: false },
);
const ManualTriggerConfig = Type.Object({}, { additionalProperties: false, description: 'No settings: runs only through POST /automation/rules/{id}/execute' });
const InboundWebhookTriggerConfig = Type.Object(
  { inbound_webhook_id: Type.String({ format: 'uuid', description: 'An inbound webhook of the tenant whose handler_type is workflow' }) },
  { additionalProperties: false },
);

export interface TriggerDefinition {
  type: TriggerType;
  description: string;
  config: TSchema;
}

export const TRIGGER_DEFINITIONS: readonly TriggerDefinition[] = [
  { type: 'event', description: 'Runs for each event of the given type the outbox records (after the filters match)', config: EventTriggerConfig },
  { type: 'schedule', description: 'Runs at each due time of a cron expression in a time zone (once per due time, whatever the number of workers)', config: ScheduleTriggerConfig },
  { type: 'manual', description: 'Runs only when started through the API (execute, bulk-execute)', config: ManualTriggerConfig },
  { type: 'inbound_webhook', description: 'Runs for each delivery an inbound webhook with the workflow handler accepts', config: InboundWebhookTriggerConfig },
];
const triggerDefinition = (type: string) => TRIGGER_DEFINITIONS.find((d) => d.type === type);

export interface ScheduleConfig {
  cron: string;
  timezone: string;
}

/** The first due time of a schedule strictly after `after`. Throws on an invalid expression or zone. */
export function nextRunAt(config: ScheduleConfig, after: Date): Date {
  return CronExpressionParser.parse(config.cron, { currentDate: after, tz: config.timezone, strict: false }).next().toDate();
}

function scheduleProblems(config: ScheduleConfig, path: string): Problem[] {
  const fields = config.cron.trim().split(/\s+/);
  if (fields.length !== 5 && fields.length !== 6) return [{ path: `${path}.cron`, message: `must have 5 fields (or 6 with seconds first); got ${fields.length}` }];
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: config.timezone });
  } catch {
    return [{ path: `${path}.timezone`, message: `'${config.timezone}' is not an IANA time zone` }];
  }
  try {
    nextRunAt(config, new Date());
  } catch (err) {
    return [{ path: `${path}.cron`, message: `is not a valid cron expression: ${err instanceof Error ? err.message : String(err)}`.slice(0, 300) }];
  }
  return [];
}

/** Validates and completes one trigger config (defaults filled in). */
function triggerConfigOf(type: TriggerType, raw: unknown, path: string, problems: Problem[]): Record<string, unknown> {
  const def = triggerDefinition(type)!;
  const config = raw ?? {};
  const schemaProblems = check(def.config, config, path);
  if (schemaProblems.length > 0) {
    problems.push(...schemaProblems);
    return {};
  }
  switch (type) {
    case 'event': {
      const c = config as Static<typeof EventTriggerConfig>;
      if (!eventTypeInfo(c.event_type)) problems.push({ path: `${path}.event_type`, message: `'${c.event_type}' is not an event type of the vocabulary (GET /api/v1/webhooks/events)` });
      const filters = c.filters ?? [];
      filters.forEach((f, i) => problems.push(...conditionProblems(f, `${path}.filters.${i}`)));
      return { event_type: c.event_type, filters, ...(c.delay_minutes === undefined ? {} : { delay_minutes: c.delay_minutes }) };
    }
    case 'schedule': {
      const c = config as Static<typeof ScheduleTriggerConfig>;
      const schedule = { cron: c.cron.trim(), timezone: c.timezone ?? 'UTC' };
      problems.push(...scheduleProblems(schedule, path));
      return schedule;
    }
    case 'inbound_webhook':
      return { inbound_webhook_id: (config as Static<typeof InboundWebhookTriggerConfig>).inbound_webhook_id };
    default:
      return {};
  }
}

// ---------------------------------------------------------------------------------------------------------
// Actions

const ACTION_CONFIG_JSON_MAX = 64 * 1024;
const validators = new Map<ActionDefinition, ValidateFunction>();

function validatorOf(def: ActionDefinition): ValidateFunction {
  let v = validators.get(def);
  if (!v) {
    v = ajv.compile(def.config);
    validators.set(def, v);
  }
  return v;
}

/** The value a JSON pointer (Ajv's instancePath) names inside `root`. */
function atPointer(root: unknown, pointer: string): unknown {
  if (pointer === '') return root;
  let cur: unknown = root;
  for (const raw of pointer.slice(1).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[key];
  }
  return cur;
}

const isWholePlaceholder = (v: unknown): boolean => typeof v === 'string' && WHOLE_PLACEHOLDER_RE.test(v);

/** Every string in a config, with its dotted path (for the placeholder check). */
function* stringsOf(value: unknown, path: string): Generator<[string, string]> {
  if (typeof value === 'string') yield [path, value];
  else if (Array.isArray(value)) for (let i = 0; i < value.length; i++) yield* stringsOf(value[i], `${path}.${i}`);
  else if (value !== null && typeof value === 'object') for (const [k, v] of Object.entries(value)) yield* stringsOf(v, `${path}.${k}`);
}

/**
 * An action's config against its definition's schema. A string that is exactly one `{{placeholder}}` is
 * accepted wherever the schema wants another type or format (it takes the type of the value it names;
 * the engine validates the filled-in config again before running it); other strings must fit as they are.
 * Every placeholder must name a path of the envelope.
 */
export function actionConfigProblems(def: ActionDefinition, config: unknown, path: string): Problem[] {
  if (config === null || typeof config !== 'object' || Array.isArray(config)) return [{ path, message: 'must be an object' }];
  if (JSON.stringify(config).length > ACTION_CONFIG_JSON_MAX) return [{ path, message: `must be at most ${ACTION_CONFIG_JSON_MAX} characters as JSON` }];
  const problems: Problem[] = [];
  for (const [at, s] of stringsOf(config, path)) {
    for (const m of s.matchAll(PLACEHOLDER_RE)) {
      const p = pathProblem(m[1]!);
      if (p) problems.push({ path: at, message: `placeholder ${m[0]} ${p}` });
    }
  }
  const validate = validatorOf(def);
  if (!validate(config)) {
    for (const e of validate.errors ?? []) {
      if (isWholePlaceholder(atPointer(config, e.instancePath))) continue;
      problems.push(problemOf(e, path));
    }
  }
  return dedupe(problems);
}

/** The permissions a rule's owner needs for its actions (sorted, distinct). */
export function requiredPermissions(actions: readonly { type: string }[]): string[] {
  return [...new Set(actions.flatMap((a) => actionDefinition(a.type)?.permissions ?? []))].sort();
}

// ---------------------------------------------------------------------------------------------------------
// The rule

export const RuleConditionSchema = ConditionSchema;

export const RuleActionSchema = Type.Object(
  {
    type: Type.String({ minLength: 1, maxLength: 64, description: 'An action type (GET /automation/meta lists them with their config schemas)' }),
    config: Type.Unknown({ description: "An object fitting the action type's config schema; strings may hold {{data.ticket_id}}-style placeholders" }),
    order: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: 'Run order (lowest first); default: the position in the array. Saved renumbered 1…n' })),
    continue_on_error: Type.Optional(Type.Boolean({ default: false, description: 'Run the next actions even if this one fails' })),
    retry_attempts: Type.Optional(Type.Integer({ minimum: 0, maximum: 5, default: 0 })),
    timeout_seconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 300, default: 30 })),
  },
  { additionalProperties: false },
);

/** The writable fields of a rule (create body; a template's config is the same without status). */
export const ruleDefinitionFields = {
  name: Name,
  description: Type.Optional(Nullable(Type.String({ maxLength: 2000 }))),
  status: Type.Optional(Type.Enum([...WRITABLE_RULE_STATUSES], { description: "draft (the default), active or inactive; 'error' is set by the engine only" })),
  priority: Type.Optional(Type.Enum([...RULE_PRIORITIES], { description: 'Default normal' })),
  trigger_type: Type.Enum([...TRIGGER_TYPES]),
  trigger_config: Type.Optional(Type.Unknown({ description: 'The trigger type\'s settings (GET /automation/meta publishes each type\'s schema); default {}' })),
  conditions: Type.Optional(Type.Array(ConditionSchema, { maxItems: 50, description: "Over the trigger's envelope, combined with condition_logic" })),
  condition_logic: Type.Optional(Type.Enum([...CONDITION_LOGICS], { description: 'How the conditions combine; default and' })),
  actions: Type.Array(RuleActionSchema, { minItems: 1, maxItems: 20 }),
  max_concurrent_executions: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'Executions of this rule running at once; default 1' })),
  execution_timeout_minutes: Type.Optional(Type.Integer({ minimum: 1, maximum: 1440, description: 'An execution running longer times out; default 60' })),
  retry_failed_executions: Type.Optional(Type.Boolean({ description: 'Whether the engine retries a failed execution; default false' })),
  tags: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 50 }), { maxItems: 20, description: 'Trimmed and deduplicated' })),
};
export const RuleDefinitionSchema = Type.Object(ruleDefinitionFields, { additionalProperties: false });
export type RuleDefinitionInput = Static<typeof RuleDefinitionSchema>;

/** A rule as validated and stored (defaults filled in, actions in run order). */
export interface RuleDefinition {
  name: string;
  description: string | null;
  status?: (typeof WRITABLE_RULE_STATUSES)[number];
  priority: RulePriority;
  trigger_type: TriggerType;
  trigger_config: Record<string, unknown>;
  conditions: RuleCondition[];
  condition_logic: 'and' | 'or';
  actions: RuleAction[];
  max_concurrent_executions: number;
  execution_timeout_minutes: number;
  retry_failed_executions: boolean;
  tags: string[];
}

/**
 * Validates a whole rule — its shape, the trigger's config (event type of the vocabulary, cron and time
 * zone), every condition (path, operator, a value that fits it, RE2 patterns) and every action (known
 * type, config against its schema, placeholders) — and returns it completed with defaults, actions in run
 * order. Throws a 400 listing every problem by path (`body.actions.2.config.ticket_id`). Checks needing
 * the database (the inbound webhook, the owner's permissions) are the service's.
 */
export function validateRuleShape(input: unknown, base = 'body'): RuleDefinition {
  const shape = check(RuleDefinitionSchema, input, base);
  if (shape.length > 0) throw problemsError(shape);
  const rule = input as RuleDefinitionInput;
  const problems: Problem[] = [];
  const name = rule.name.trim();
  if (name === '') problems.push({ path: `${base}.name`, message: 'must not be blank' });
  const description = rule.description === undefined || rule.description === null || rule.description.trim() === '' ? null : rule.description.trim();

  const trigger_config = triggerConfigOf(rule.trigger_type, rule.trigger_config, `${base}.trigger_config`, problems);
  // Event rules' conditions may read the event's record as it is when the execution runs (current.*).
  const event = rule.trigger_type === 'event' ? (trigger_config as { event_type?: string }).event_type : undefined;
  const roots = event === undefined ? ENVELOPE_ROOTS : EVENT_CONDITION_ROOTS;
  const conditions = (rule.conditions ?? []).map((c, i) => {
    problems.push(...conditionProblems(c, `${base}.conditions.${i}`, roots));
    if (event !== undefined && readsCurrent(c) && !hasCurrentRecord(event)) {
      problems.push({ path: `${base}.conditions.${i}.field`, message: `current.* reads the record an event is about; '${event}' events have none it can read (${CURRENT_RECORD_TYPES.map((t) => `${t}.*`).join(', ')} events do)` });
    }
    return c.value === undefined ? { field: c.field, operator: c.operator } : { field: c.field, operator: c.operator, value: c.value };
  });

  const actions = rule.actions.map((a, i) => {
    const def = actionDefinition(a.type);
    if (!def) problems.push({ path: `${base}.actions.${i}.type`, message: `'${a.type}' is not an action type; one of ${ACTION_DEFINITIONS.map((d) => d.type).join(', ')}` });
    else problems.push(...actionConfigProblems(def, a.config, `${base}.actions.${i}.config`));
    return {
      index: i,
      action: {
        type: a.type,
        config: a.config as Record<string, unknown>,
        order: a.order ?? i + 1,
        continue_on_error: a.continue_on_error ?? false,
        retry_attempts: a.retry_attempts ?? 0,
        timeout_seconds: a.timeout_seconds ?? 30,
      },
    };
  });
  if (problems.length > 0) throw problemsError(problems);
  const ordered = actions
    .sort((x, y) => x.action.order - y.action.order || x.index - y.index)
    .map((x, i) => ({ ...x.action, order: i + 1 }));

  return {
    name,
    description,
    ...(rule.status === undefined ? {} : { status: rule.status }),
    priority: rule.priority ?? 'normal',
    trigger_type: rule.trigger_type,
    trigger_config,
    conditions,
    condition_logic: rule.condition_logic ?? 'and',
    actions: ordered,
    max_concurrent_executions: rule.max_concurrent_executions ?? 1,
    execution_timeout_minutes: rule.execution_timeout_minutes ?? 60,
    retry_failed_executions: rule.retry_failed_executions ?? false,
    tags: [...new Set((rule.tags ?? []).map((t) => t.trim()).filter((t) => t !== ''))],
  };
}

// ---------------------------------------------------------------------------------------------------------
// Problems

export interface Problem {
  path: string;
  message: string;
}

const joinPath = (...parts: string[]) => parts.filter((p) => p !== '').join('.');

function problemOf(e: ErrorObject, base: string): Problem {
  const at = joinPath(base, e.instancePath.replace(/^\//, '').split('/').map((k) => k.replace(/~1/g, '/').replace(/~0/g, '~')).join('.'));
  const params = e.params as Record<string, unknown>;
  if (e.keyword === 'additionalProperties') return { path: joinPath(at, String(params.additionalProperty)), message: 'is not a known field' };
  if (e.keyword === 'required') return { path: joinPath(at, String(params.missingProperty)), message: 'is required' };
  if (e.keyword === 'enum') return { path: at, message: `must be one of: ${(params.allowedValues as unknown[]).join(', ')}` };
  return { path: at, message: e.message ?? 'is invalid' };
}

function dedupe(problems: Problem[]): Problem[] {
  const seen = new Set<string>();
  return problems.filter((p) => {
    const k = `${p.path}\u0000${p.message}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

const compiled = new Map<TSchema, ValidateFunction>();

/** The problems of a value against a schema, by path under `base`. */
function check(schema: TSchema, value: unknown, base: string): Problem[] {
  let v = compiled.get(schema);
  if (!v) {
    v = ajv.compile(schema);
    compiled.set(schema, v);
  }
  return v(value) ? [] : dedupe((v.errors ?? []).map((e) => problemOf(e, base)));
}

/** A 400 listing every problem; the message names the first ones. */
export function problemsError(problems: Problem[]): AppError {
  const head = problems.slice(0, 3).map((p) => `${p.path}: ${p.message}`).join('; ');
  return new AppError('VALIDATION_ERROR', problems.length > 3 ? `${head}; and ${problems.length - 3} more` : head, problems);
}
