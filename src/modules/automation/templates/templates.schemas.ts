import { Type, type Static } from 'typebox';
import { Id, Name, Nullable, Timestamp, dataOf, listOf, listQuery } from '../../../platform/http/schemas.ts';

export const VARIABLE_NAME = '^[a-z][a-z0-9_]*$';
export const VARIABLE_TYPES = ['string', 'number', 'boolean', 'select'] as const;
export const TEMPLATE_VARIABLES_MAX = 50;

const Scalar = Type.Union([Type.String({ maxLength: 10_000 }), Type.Number(), Type.Boolean()]);

const VariableOption = Type.Object(
  { label: Type.String({ minLength: 1, maxLength: 255 }), value: Scalar },
  { additionalProperties: false },
);

/** A template variable as a template declares it. */
export const TemplateVariableInput = Type.Object(
  {
    rule_field_path: Type.String({ minLength: 1, maxLength: 300, description: 'Where in the rule the value goes: a dotted path such as trigger_config.filters.0.value, actions.1.config.board_id or conditions.0.value' }),
    variable_name: Type.String({ minLength: 1, maxLength: 64, pattern: VARIABLE_NAME }),
    display_name: Name,
    description: Type.Optional(Nullable(Type.String({ maxLength: 1000 }))),
    type: Type.Enum([...VARIABLE_TYPES]),
    required: Type.Optional(Type.Boolean({ description: 'Default false; a variable that is not required and has no value and no default is left out of the rule' })),
    default_value: Type.Optional(Nullable(Scalar)),
    options: Type.Optional(Type.Array(VariableOption, { minItems: 1, maxItems: 100, description: 'The choices of a select variable (required for select, not allowed otherwise)' })),
  },
  { additionalProperties: false },
);
export type TemplateVariableInput = Static<typeof TemplateVariableInput>;

export const TemplateVariable = Type.Object({
  rule_field_path: Type.String(),
  variable_name: Type.String(),
  display_name: Type.String(),
  description: Nullable(Type.String()),
  type: Type.Enum([...VARIABLE_TYPES]),
  required: Type.Boolean(),
  default_value: Nullable(Type.Union([Type.String(), Type.Number(), Type.Boolean()])),
  options: Nullable(Type.Array(Type.Object({ label: Type.String(), value: Type.Union([Type.String(), Type.Number(), Type.Boolean()]) }))),
});
export type TemplateVariable = Static<typeof TemplateVariable>;

/** An automation template: a rule's definition with `{{var:<name>}}` where its variables go. */
export const Template = Type.Object({
  template_id: Id,
  name: Type.String(),
  description: Nullable(Type.String()),
  category: Nullable(Type.String()),
  is_builtin: Type.Boolean({ description: 'Built-in templates come with the product (the same for every tenant) and cannot be changed' }),
  template_config: Type.Unknown({ description: 'The rule it creates (no status, owner or secret); each variable\'s place holds {{var:<variable_name>}}' }),
  template_variables: Type.Array(TemplateVariable),
  usage_count: Type.Integer({ description: 'Rules created from it in this tenant' }),
  last_used_at: Nullable(Type.String({ format: 'date-time' })),
  created_by: Nullable(Type.String({ format: 'uuid' })),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type Template = Static<typeof Template>;

export const CreateTemplateBody = Type.Object(
  {
    automation_rule_id: Type.String({ format: 'uuid', description: 'The rule to make a template of' }),
    template_name: Name,
    template_description: Type.Optional(Nullable(Type.String({ maxLength: 2000 }))),
    category: Type.Optional(Nullable(Type.String({ maxLength: 100 }))),
    template_variables: Type.Optional(Type.Array(TemplateVariableInput, { maxItems: TEMPLATE_VARIABLES_MAX })),
  },
  { additionalProperties: false },
);
export type CreateTemplateBody = Static<typeof CreateTemplateBody>;

export const UseTemplateBody = Type.Object(
  {
    name: Type.Optional(Name),
    variables: Type.Optional(
      Type.Record(Type.String({ pattern: VARIABLE_NAME }), Nullable(Scalar), {
        additionalProperties: false,
        maxProperties: TEMPLATE_VARIABLES_MAX,
        description: 'variable_name → value (checked against the variable\'s type; required variables must be given or have a default)',
      }),
    ),
  },
  { additionalProperties: false },
);
export type UseTemplateBody = Static<typeof UseTemplateBody>;

export const TEMPLATE_SORT_FIELDS = ['name', 'created_at', 'usage_count'] as const;
export const ListTemplatesQuery = listQuery(TEMPLATE_SORT_FIELDS, {
  category: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  is_builtin: Type.Optional(Type.Boolean()),
  search: Type.Optional(Type.String({ maxLength: 255, description: 'Part of the name or description, any case' })),
});
export type ListTemplatesQuery = Static<typeof ListTemplatesQuery>;

export const TemplateParams = Type.Object({ templateId: Id }, { additionalProperties: false });

export const TemplateResponse = dataOf(Template);
export const TemplateListResponse = listOf(Template);
