import type { TemplateVariable } from './templates.schemas.ts';

/**
 * Templates that come with the product: the same for every tenant, listed beside the tenant's own, never
 * changed through the API. Their ids are fixed. Each config is a rule definition (as GET /automation/meta
 * describes it) with `{{var:<name>}}` where a variable goes; `use` fills them in and validates the rule.
 */
export interface BuiltinTemplate {
  template_id: string;
  name: string;
  description: string;
  category: string;
  template_config: Record<string, unknown>;
  template_variables: TemplateVariable[];
  created_at: string;
}

const RELEASED = '2026-11-25T00:00:00.000Z';

const variable = (v: Partial<TemplateVariable> & Pick<TemplateVariable, 'rule_field_path' | 'variable_name' | 'display_name' | 'type'>): TemplateVariable => ({
  description: null,
  required: true,
  default_value: null,
  options: null,
  ...v,
});

const rule = (r: Record<string, unknown>): Record<string, unknown> => ({
  description: null,
  priority: 'normal',
  conditions: [],
  condition_logic: 'and',
  max_concurrent_executions: 1,
  execution_timeout_minutes: 60,
  retry_failed_executions: false,
  tags: [],
  ...r,
});

const action = (type: string, config: Record<string, unknown>, order: number) => ({ type, config, order, continue_on_error: false, retry_attempts: 0, timeout_seconds: 30 });

function deepFreeze<T>(v: T): T {
  if (v !== null && typeof v === 'object') {
    for (const x of Object.values(v)) deepFreeze(x);
    Object.freeze(v);
  }
  return v;
}

export const BUILTIN_TEMPLATES: readonly BuiltinTemplate[] = deepFreeze([
  {
    template_id: '01937a00-0000-7000-8000-00000000a001',
    name: 'Escalate unassigned high-priority tickets after an hour',
    description:
      'An hour after a ticket of the chosen priority is created, if it is still open and nobody (no user, no team) has taken it, hand it to an escalation team and leave an internal note saying so.',
    category: 'tickets',
    template_config: rule({
      name: 'Escalate unassigned high-priority tickets after an hour',
      description: 'Assigns tickets of the chosen priority still unassigned and open an hour after they were created to the escalation team',
      priority: 'high',
      trigger_type: 'event',
      trigger_config: { event_type: 'ticket.created', filters: [], delay_minutes: 60 },
      conditions: [
        { field: 'data.priority_name', operator: 'equals', value: '{{var:priority_name}}' },
        { field: 'current.assigned_to', operator: 'not_exists' },
        { field: 'current.assigned_team_id', operator: 'not_exists' },
        { field: 'current.is_closed', operator: 'equals', value: false },
      ],
      actions: [
        action('update_ticket', { ticket_id: '{{data.ticket_id}}', assigned_team_id: '{{var:escalation_team_id}}' }, 1),
        action('add_ticket_comment', { ticket_id: '{{data.ticket_id}}', comment_text: 'Escalated automatically: a {{data.priority_name}} ticket nobody took within an hour.', is_internal: true }, 2),
      ],
      tags: ['escalation'],
    }),
    template_variables: [
      variable({ rule_field_path: 'conditions.0.value', variable_name: 'priority_name', display_name: 'Priority', description: 'The priority name to escalate (as tickets show it)', type: 'string', default_value: 'High' }),
      variable({ rule_field_path: 'actions.0.config.assigned_team_id', variable_name: 'escalation_team_id', display_name: 'Escalation team', description: 'The id of the team that takes the ticket', type: 'string' }),
    ],
    created_at: RELEASED,
  },
  {
    template_id: '01937a00-0000-7000-8000-00000000a002',
    name: 'Acknowledge new tickets from a client',
    description: 'Adds a public reply to every new ticket of one client, so the client knows the ticket arrived.',
    category: 'tickets',
    template_config: rule({
      name: 'Acknowledge new tickets from a client',
      trigger_type: 'event',
      trigger_config: { event_type: 'ticket.created', filters: [] },
      conditions: [{ field: 'data.client_id', operator: 'equals', value: '{{var:client_id}}' }],
      actions: [action('add_ticket_comment', { ticket_id: '{{data.ticket_id}}', comment_text: '{{var:message}}', is_internal: false }, 1)],
      tags: ['acknowledgement'],
    }),
    template_variables: [
      variable({ rule_field_path: 'conditions.0.value', variable_name: 'client_id', display_name: 'Client', description: 'The id of the client whose tickets are acknowledged', type: 'string' }),
      variable({
        rule_field_path: 'actions.0.config.comment_text',
        variable_name: 'message',
        display_name: 'Message',
        description: 'The reply (placeholders such as {{data.ticket_number}} are filled in when it runs)',
        type: 'string',
        required: false,
        default_value: 'Thank you: we have received ticket {{data.ticket_number}} ("{{data.title}}") and will get back to you shortly.',
      }),
    ],
    created_at: RELEASED,
  },
  {
    template_id: '01937a00-0000-7000-8000-00000000a003',
    name: 'Notify a manager by e-mail when a high-priority ticket is created',
    description: 'E-mails a manager the number, title, client and link of each new ticket of the chosen priority.',
    category: 'notifications',
    template_config: rule({
      name: 'E-mail the manager about high-priority tickets',
      trigger_type: 'event',
      trigger_config: { event_type: 'ticket.created', filters: [] },
      conditions: [{ field: 'data.priority_name', operator: 'equals', value: '{{var:priority_name}}' }],
      actions: [
        action('send_email', {
          to: ['{{var:manager_email}}'],
          subject: '{{data.priority_name}} ticket {{data.ticket_number}}: {{data.title}}',
          body: 'A {{data.priority_name}} ticket was created.\n\nTicket: {{data.ticket_number}}\nTitle: {{data.title}}\nClient: {{data.client_name}}\nBoard: {{data.board_name}}\n\n{{data.url}}',
        }, 1),
      ],
      tags: ['notification'],
    }),
    template_variables: [
      variable({ rule_field_path: 'conditions.0.value', variable_name: 'priority_name', display_name: 'Priority', description: 'The priority name that triggers the e-mail', type: 'string', default_value: 'High' }),
      variable({ rule_field_path: 'actions.0.config.to.0', variable_name: 'manager_email', display_name: 'Manager\'s e-mail address', type: 'string' }),
    ],
    created_at: RELEASED,
  },
]);

const byId = new Map(BUILTIN_TEMPLATES.map((t) => [t.template_id, t]));

export const builtinTemplate = (id: string): BuiltinTemplate | undefined => byId.get(id);
