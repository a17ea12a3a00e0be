import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type, type Static } from 'typebox';
import { withEtag } from '../../../platform/http/etag.ts';
import { dataOf } from '../../../platform/http/schemas.ts';
import { ACTION_DEFINITIONS } from '../actions/actions.catalog.ts';
import {
  CONDITION_LOGICS,
  CONDITION_OPERATOR_INFO,
  EXECUTION_STATUSES,
  FIELD_ROOTS,
  RULE_PRIORITIES,
  RULE_STATUSES,
  TRIGGER_DEFINITIONS,
} from '../automation.catalog.ts';
import { CONDITION_OPERATORS } from '../automation.types.ts';
import { CURRENT_RECORD_TYPES } from '../engine/current.ts';

const NoQuery = Type.Object({}, { additionalProperties: false });

export const AutomationMeta = Type.Object({
  trigger_types: Type.Array(Type.Object({
    type: Type.String(),
    description: Type.String(),
    config_schema: Type.Unknown({ description: 'The JSON schema trigger_config is validated against' }),
  })),
  condition_operators: Type.Array(Type.Object({
    operator: Type.String(),
    description: Type.String(),
    value: Type.Enum(['any', 'array', 'none', 'regex'], { description: 'What value the operator takes: any JSON, an array, none, or an RE2 pattern' }),
  })),
  condition_logics: Type.Array(Type.String()),
  action_types: Type.Array(Type.Object({
    type: Type.String(),
    description: Type.String(),
    config_schema: Type.Unknown({ description: 'The JSON schema the action\'s config is validated against (a string that is exactly one placeholder may stand for any type)' }),
    permissions: Type.Array(Type.String(), { description: 'What the rule\'s owner must hold (checked when the rule is saved and at every run)' }),
    transactional: Type.Boolean({ description: 'true: runs in the step\'s transaction (exactly once); false: an external effect, run at least once with an idempotency key' }),
  })),
  rule_statuses: Type.Array(Type.String()),
  execution_statuses: Type.Array(Type.String()),
  priority_levels: Type.Array(Type.String()),
  placeholders: Type.Object({
    syntax: Type.String(),
    roots: Type.Array(Type.String()),
    description: Type.String(),
  }),
  current: Type.Object({
    record_types: Type.Array(Type.String(), { description: 'The records current.* can read: the events of these types (ticket.*, …) have one' }),
    description: Type.String(),
  }),
});
export type AutomationMeta = Static<typeof AutomationMeta>;

/** The catalog as the API publishes it: the same schemas rule validation uses. */
export function automationMeta(): AutomationMeta {
  return {
    trigger_types: TRIGGER_DEFINITIONS.map((d) => ({ type: d.type, description: d.description, config_schema: d.config })),
    condition_operators: CONDITION_OPERATORS.map((operator) => ({ operator, ...CONDITION_OPERATOR_INFO[operator] })),
    condition_logics: [...CONDITION_LOGICS],
    action_types: ACTION_DEFINITIONS.map((d) => ({
      type: d.type,
      description: d.description,
      config_schema: d.config,
      permissions: [...d.permissions],
      transactional: d.transactional,
    })),
    rule_statuses: [...RULE_STATUSES],
    execution_statuses: [...EXECUTION_STATUSES],
    priority_levels: [...RULE_PRIORITIES],
    placeholders: {
      syntax: '{{data.ticket_id}}',
      roots: [...FIELD_ROOTS],
      description:
        "Any string of an action's config may hold placeholders: dotted paths into the trigger's envelope. A string that is exactly one placeholder takes the " +
        "value's own type; inside a longer string the value is written as text. A placeholder whose path has no value fails the step. Conditions use the same paths in field.",
    },
    current: {
      record_types: [...CURRENT_RECORD_TYPES],
      description:
        "The conditions of event rules may also start at current: the record the event is about, read again (as GET shows it to the rule's owner) when the " +
        'execution first runs — with trigger_config.delay_minutes, that is after the delay. When those conditions no longer hold, the execution is skipped. ' +
        'A record deleted or no longer visible reads as absent.',
    },
  };
}

export const metaRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/automation/meta', {
    schema: {
      operationId: 'getAutomationMeta',
      tags: ['Automation'],
      summary: 'Trigger types, condition operators and action types with their JSON schemas, and the enums rules use',
      querystring: NoQuery,
      response: { 200: dataOf(AutomationMeta) },
    },
    config: { permission: 'automation:read' },
  }, (req, reply) => withEtag(req, reply, automationMeta()));
};
