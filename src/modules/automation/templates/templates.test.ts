import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/harness.ts';
import { makeTenant, makeUser, unique, type Api, type Res, type TenantFixture } from '../../../../test/factories.ts';
import { anonymous, expectError, expectStatus, randomId } from '../../../../test/client-factories.ts';
import { validateRuleShape } from '../automation.catalog.ts';
import { BUILTIN_TEMPLATES } from './templates.builtin.ts';
import { fillTemplate } from './templates.service.ts';

let t: TestApp;
let a: TenantFixture;
let b: TenantFixture;
let tech: Api;
beforeAll(async () => {
  t = await buildTestApp();
  a = await makeTenant(t);
  b = await makeTenant(t);
  tech = (await makeUser(t, a.tenant, { role: 'Technician' })).api;
});
afterAll(async () => t.close());

const RULES = '/api/v1/automation/rules';
const TEMPLATES = '/api/v1/automation/templates';
const BUILTIN_IDS = BUILTIN_TEMPLATES.map((x) => x.template_id);
const ESCALATE = BUILTIN_TEMPLATES[0]!.template_id;

interface TemplateJson {
  template_id: string;
  name: string;
  description: string | null;
  category: string | null;
  is_builtin: boolean;
  template_config: Record<string, unknown>;
  template_variables: Record<string, unknown>[];
  usage_count: number;
  last_used_at: string | null;
  created_by: string | null;
}

function expectInvalid(res: Res, path: string): void {
  expectError(res, 400, 'VALIDATION_ERROR');
  const paths = (res.json().error.details as { path: string }[]).map((d) => d.path);
  expect(paths, res.body).toContain(path);
}

/** An event rule with a filter, conditions and two actions: the fields templates turn into variables. */
const sourceRule = () => ({
  name: unique('Source rule'),
  description: 'Comment on new tickets of one board',
  priority: 'high',
  status: 'active',
  trigger_type: 'event',
  trigger_config: { event_type: 'ticket.created', filters: [{ field: 'data.board_id', operator: 'equals', value: '01890000-0000-7000-8000-0000000000b1' }] },
  conditions: [{ field: 'data.priority_name', operator: 'in', value: ['High'] }, { field: 'data.title', operator: 'regex_match', value: '(?i)outage' }],
  actions: [
    { type: 'add_ticket_comment', config: { ticket_id: '{{data.ticket_id}}', comment_text: 'Looking into it', is_internal: false } },
    { type: 'update_ticket', config: { ticket_id: '{{data.ticket_id}}', assigned_team_id: '01890000-0000-7000-8000-0000000000c1' }, retry_attempts: 2 },
  ],
  tags: ['outage'],
});

const VARIABLES = [
  { rule_field_path: 'trigger_config.filters.0.value', variable_name: 'board_id', display_name: 'Board', type: 'string', required: true },
  { rule_field_path: 'actions.0.config.comment_text', variable_name: 'reply', display_name: 'Reply', type: 'string', default_value: 'We are on it' },
  { rule_field_path: 'actions.0.config.is_internal', variable_name: 'internal', display_name: 'Internal note?', type: 'boolean', required: false },
  { rule_field_path: 'actions.1.retry_attempts', variable_name: 'retries', display_name: 'Retries', type: 'select', options: [{ label: 'None', value: 0 }, { label: 'Three', value: 3 }], default_value: 0 },
];

async function makeSource(api: Api = a.admin) {
  const res = await api.post(RULES, sourceRule());
  expectStatus(res, 201);
  return res.json().data as { rule_id: string; name: string };
}

async function makeTemplate(api: Api, ruleId: string, body: Record<string, unknown> = {}): Promise<TemplateJson> {
  const res = await api.post(TEMPLATES, { automation_rule_id: ruleId, template_name: unique('Template'), template_variables: VARIABLES, ...body });
  expectStatus(res, 201);
  return res.json().data as TemplateJson;
}

describe('automation templates: built-in', () => {
  it('every tenant lists and reads the built-in templates; each makes a valid rule from sample values', async () => {
    const list = await b.admin.get(`${TEMPLATES}?is_builtin=true&limit=100`);
    expectStatus(list, 200);
    const listed = list.json().data as TemplateJson[];
    expect(listed.map((x) => x.template_id).sort()).toEqual([...BUILTIN_IDS].sort());
    expect(listed.every((x) => x.is_builtin && x.created_by === null && x.usage_count === 0)).toBe(true);
    expect(listed.map((x) => x.name)).toContain('Escalate unassigned high-priority tickets after an hour');

    const got = await a.admin.get(`${TEMPLATES}/${ESCALATE}`);
    expectStatus(got, 200);
    expect(got.json().data).toMatchObject({ template_id: ESCALATE, is_builtin: true, template_config: { trigger_type: 'event', trigger_config: { event_type: 'ticket.created' } } });
    expect(JSON.stringify(got.json().data.template_config)).toContain('{{var:escalation_team_id}}');

    const samples: Record<string, unknown> = { escalation_team_id: randomId(), client_id: randomId(), manager_email: 'manager@example.com' };
    for (const tpl of BUILTIN_TEMPLATES) {
      const values = Object.fromEntries(tpl.template_variables.filter((v) => v.required && v.default_value === null).map((v) => [v.variable_name, samples[v.variable_name]]));
      const filled = fillTemplate(tpl.template_config, tpl.template_variables, values);
      expect(() => validateRuleShape(filled), tpl.name).not.toThrow();
      expect(JSON.stringify(filled)).not.toContain('{{var:');
    }
  });

  it('use makes a draft rule owned by the caller; usage is counted per tenant; the built-in never changes', async () => {
    const before = structuredClone((await a.admin.get(`${TEMPLATES}/${ESCALATE}`)).json().data);
    const team = randomId();
    const res = await a.admin.post(`${TEMPLATES}/${ESCALATE}/use`, { name: 'Escalate to tier 2', variables: { escalation_team_id: team, priority_name: 'Critical' } });
    expectStatus(res, 201);
    const rule = res.json().data;
    expect(res.headers.location).toBe(`${RULES}/${rule.rule_id}`);
    expect(rule).toMatchObject({
      name: 'Escalate to tier 2',
      status: 'draft',
      priority: 'high',
      trigger_type: 'event',
      event_type: 'ticket.created',
      created_by: a.adminUserId,
      trigger_config: { event_type: 'ticket.created', delay_minutes: 60 },
      conditions: [
        { field: 'data.priority_name', operator: 'equals', value: 'Critical' }, { field: 'current.assigned_to', operator: 'not_exists' },
        { field: 'current.assigned_team_id', operator: 'not_exists' }, { field: 'current.is_closed', operator: 'equals', value: false },
      ],
    });
    expect(rule.actions[0]).toMatchObject({ type: 'update_ticket', config: { ticket_id: '{{data.ticket_id}}', assigned_team_id: team } });
    expect(rule.signing_secret).toMatch(/^asec_/);
    const stored = await t.database.db.selectFrom('automation_rules').select('signing_secret_enc').where('tenant', '=', a.tenant).where('rule_id', '=', rule.rule_id).executeTakeFirstOrThrow();
    expect(t.app.secretBox.decrypt(stored.signing_secret_enc)).toBe(rule.signing_secret);
    expect((await a.admin.get(`${RULES}/${rule.rule_id}`)).json().data.signing_secret).toBeUndefined();

    // The defaults fill what is not given.
    const defaults = await a.admin.post(`${TEMPLATES}/${ESCALATE}/use`, { variables: { escalation_team_id: team } });
    expectStatus(defaults, 201);
    expect(defaults.json().data).toMatchObject({ name: 'Escalate unassigned high-priority tickets after an hour', conditions: [{ value: 'High' }, {}, {}, {}] });

    const after = (await a.admin.get(`${TEMPLATES}/${ESCALATE}`)).json().data;
    expect(after).toMatchObject({ usage_count: 2, template_config: before.template_config, template_variables: before.template_variables });
    expect(after.last_used_at).not.toBeNull();
    expect((await b.admin.get(`${TEMPLATES}/${ESCALATE}`)).json().data).toMatchObject({ usage_count: 0, last_used_at: null });

    // Built-ins cannot be changed or deleted: there is no such route.
    expect([404, 405]).toContain((await a.admin.put(`${TEMPLATES}/${ESCALATE}`, { name: 'Mine now' })).statusCode);
    expect([404, 405]).toContain((await a.admin.delete(`${TEMPLATES}/${ESCALATE}`)).statusCode);
    expect((await a.admin.get(`${TEMPLATES}/${ESCALATE}`)).json().data.name).toBe(before.name);
  });

  it('use: a required variable must be given; values are type-checked and must make a valid rule', async () => {
    const missing = await a.admin.post(`${TEMPLATES}/${ESCALATE}/use`, {});
    expectInvalid(missing, 'body.variables.escalation_team_id');
    expectInvalid(await a.admin.post(`${TEMPLATES}/${ESCALATE}/use`), 'body.variables.escalation_team_id');
    expectInvalid(await a.admin.post(`${TEMPLATES}/${ESCALATE}/use`, { variables: { escalation_team_id: 42 } }), 'body.variables.escalation_team_id');
    expectInvalid(await a.admin.post(`${TEMPLATES}/${ESCALATE}/use`, { variables: { escalation_team_id: 'not-a-uuid' } }), 'body.variables.escalation_team_id');
    expectInvalid(await a.admin.post(`${TEMPLATES}/${ESCALATE}/use`, { variables: { escalation_team_id: randomId(), colour: 'red' } }), 'body.variables.colour');
    expectInvalid(await a.admin.post(`${TEMPLATES}/${ESCALATE}/use`, { variables: { 'Bad-Name': 'x' } }), 'body.variables.Bad-Name');
    expectInvalid(await a.admin.post(`${TEMPLATES}/${ESCALATE}/use`, { name: '', variables: { escalation_team_id: randomId() } }), 'body.name');
    const notify = BUILTIN_TEMPLATES[2]!.template_id;
    expectInvalid(await a.admin.post(`${TEMPLATES}/${notify}/use`, { variables: { manager_email: 'not an address' } }), 'body.variables.manager_email');
    expect((await a.admin.get(`${TEMPLATES}/${ESCALATE}`)).json().data.usage_count).toBe(2);
  });
});

describe('automation templates: from a rule', () => {
  it('marks each variable\'s place, lists and reads the template; use fills and validates it', async () => {
    const ten = await makeTenant(t);
    const source = await makeSource(ten.admin);
    const tpl = await makeTemplate(ten.admin, source.rule_id, { template_name: 'Outage replies', template_description: 'For outage tickets', category: 'support' });
    expect(tpl).toMatchObject({ name: 'Outage replies', description: 'For outage tickets', category: 'support', is_builtin: false, usage_count: 0, last_used_at: null, created_by: ten.adminUserId });
    expect(tpl.template_config).toMatchObject({
      name: source.name,
      priority: 'high',
      trigger_type: 'event',
      trigger_config: { event_type: 'ticket.created', filters: [{ field: 'data.board_id', operator: 'equals', value: '{{var:board_id}}' }] },
      conditions: [{ value: ['High'] }, { value: '(?i)outage' }],
      actions: [
        { type: 'add_ticket_comment', config: { ticket_id: '{{data.ticket_id}}', comment_text: '{{var:reply}}', is_internal: '{{var:internal}}' } },
        { type: 'update_ticket', retry_attempts: '{{var:retries}}' },
      ],
    });
    expect(tpl.template_config).not.toHaveProperty('status');
    expect(tpl.template_config).not.toHaveProperty('created_by');
    expect(tpl.template_config).not.toHaveProperty('signing_secret_enc');
    expect(tpl.template_variables[1]).toEqual({ rule_field_path: 'actions.0.config.comment_text', variable_name: 'reply', display_name: 'Reply', description: null, type: 'string', required: false, default_value: 'We are on it', options: null });

    const listed = await ten.admin.get(`${TEMPLATES}?is_builtin=false`);
    expect((listed.json().data as TemplateJson[]).map((x) => x.template_id)).toEqual([tpl.template_id]);
    expect((await ten.admin.get(`${TEMPLATES}?category=support`)).json().data).toHaveLength(1);
    expect((await ten.admin.get(`${TEMPLATES}?search=OUTAGE`)).json().data.map((x: TemplateJson) => x.template_id)).toEqual([tpl.template_id]);
    const all = await ten.admin.get(`${TEMPLATES}?sort=name&order=asc&limit=2`);
    expect(all.json().pagination).toMatchObject({ total: BUILTIN_IDS.length + 1, limit: 2 });
    const got = await ten.admin.get(`${TEMPLATES}/${tpl.template_id}`);
    expectStatus(got, 200);
    expect(got.json().data).toEqual(tpl);
    expect((await a.admin.get(`${TEMPLATES}?is_builtin=false`)).json().data.map((x: TemplateJson) => x.template_id)).not.toContain(tpl.template_id);

    const board = randomId();
    const used = await ten.admin.post(`${TEMPLATES}/${tpl.template_id}/use`, { variables: { board_id: board, internal: true, retries: 3 } });
    expectStatus(used, 201);
    expect(used.json().data).toMatchObject({
      name: source.name,
      status: 'draft',
      trigger_config: { filters: [{ value: board }] },
      actions: [{ config: { comment_text: 'We are on it', is_internal: true } }, { retry_attempts: 3 }],
    });
    // An optional variable without value or default is left out of the rule.
    const lean = await ten.admin.post(`${TEMPLATES}/${tpl.template_id}/use`, { name: 'Lean', variables: { board_id: board } });
    expectStatus(lean, 201);
    expect(lean.json().data.actions[0].config).toEqual({ ticket_id: '{{data.ticket_id}}', comment_text: 'We are on it' });
    expect(lean.json().data.actions[1].retry_attempts).toBe(0);
    expect((await ten.admin.get(`${TEMPLATES}/${tpl.template_id}`)).json().data.usage_count).toBe(2);

    expectInvalid(await ten.admin.post(`${TEMPLATES}/${tpl.template_id}/use`, { variables: {} }), 'body.variables.board_id');
    expectInvalid(await ten.admin.post(`${TEMPLATES}/${tpl.template_id}/use`, { variables: { board_id: board, retries: 2 } }), 'body.variables.retries');
    expectInvalid(await ten.admin.post(`${TEMPLATES}/${tpl.template_id}/use`, { variables: { board_id: board, internal: 'yes' } }), 'body.variables.internal');
    expectInvalid(await ten.admin.post(`${TEMPLATES}/${tpl.template_id}/use`, { variables: { board_id: board, reply: '' } }), 'body.variables.reply');
    expect((await ten.admin.get(`${TEMPLATES}/${tpl.template_id}`)).json().data.usage_count).toBe(2);
  });

  it('400 for an unknown rule and for variables that do not fit the rule', async () => {
    const source = await makeSource();
    const create = (body: Record<string, unknown>) => a.admin.post(TEMPLATES, { automation_rule_id: source.rule_id, template_name: 'T', ...body });
    expectInvalid(await a.admin.post(TEMPLATES, { automation_rule_id: randomId(), template_name: 'T' }), 'body.automation_rule_id');
    const foreign = (await b.admin.post(RULES, sourceRule())).json().data.rule_id as string;
    expectInvalid(await a.admin.post(TEMPLATES, { automation_rule_id: foreign, template_name: 'T' }), 'body.automation_rule_id');
    const v = (over: Record<string, unknown>) => ({ rule_field_path: 'conditions.0.value', variable_name: 'v', display_name: 'V', type: 'string', ...over });
    expectInvalid(await create({ template_variables: [v({ rule_field_path: 'conditions.5.value' })] }), 'body.template_variables.0.rule_field_path');
    expectInvalid(await create({ template_variables: [v({ rule_field_path: 'actions.0.config.nothing' })] }), 'body.template_variables.0.rule_field_path');
    expectInvalid(await create({ template_variables: [v({ rule_field_path: 'signing_secret_enc' })] }), 'body.template_variables.0.rule_field_path');
    expectInvalid(await create({ template_variables: [v({ rule_field_path: '__proto__' })] }), 'body.template_variables.0.rule_field_path');
    expectInvalid(await create({ template_variables: [v({}), v({ rule_field_path: 'conditions.1.value' })] }), 'body.template_variables.1.variable_name');
    expectInvalid(await create({ template_variables: [v({ rule_field_path: 'conditions.0' }), v({ variable_name: 'w' })] }), 'body.template_variables.1.rule_field_path');
    expectInvalid(await create({ template_variables: [v({ type: 'select' })] }), 'body.template_variables.0.options');
    expectInvalid(await create({ template_variables: [v({ options: [{ label: 'A', value: 'a' }] })] }), 'body.template_variables.0.options');
    expectInvalid(await create({ template_variables: [v({ type: 'number', default_value: 'five' })] }), 'body.template_variables.0.default_value');
    expectInvalid(await create({ template_variables: [v({ variable_name: 'Not_Valid' })] }), 'body.template_variables.0.variable_name');
    expectInvalid(await create({ template_variables: [v({ type: 'date' })] }), 'body.template_variables.0.type');
    expectInvalid(await create({ template_name: '' }), 'body.template_name');
    expectInvalid(await create({ template_name: 'T', extra: true }), 'body.extra');
    expect(await t.database.db.selectFrom('automation_templates').select('template_id').where('tenant', '=', a.tenant).where('name', '=', 'T').execute()).toEqual([]);
  });

  it('use checks the caller\'s permissions for the actions (422) like any rule save', async () => {
    const roleName = unique('Role');
    expectStatus(await a.admin.post('/api/v1/roles', { role_name: roleName, permissions: ['automation:read', 'automation:create'] }), 201);
    const author = await makeUser(t, a.tenant, { role: roleName });
    const res = await author.api.post(`${TEMPLATES}/${ESCALATE}/use`, { variables: { escalation_team_id: randomId() } });
    expectError(res, 422, 'UNPROCESSABLE');
    expect(res.json().error.details.missing_permissions).toEqual(['ticket:update']);
  });
});

describe('automation templates: access', () => {
  it('401, 403, and 404 for unknown ids and other tenants\' templates', async () => {
    const tpl = await makeTemplate(a.admin, (await makeSource()).rule_id);
    const url = `${TEMPLATES}/${tpl.template_id}`;
    const anon = anonymous(t);
    for (const res of [await anon.get(TEMPLATES), await anon.post(TEMPLATES, {}), await anon.get(url), await anon.post(`${url}/use`, {})]) expectError(res, 401, 'UNAUTHORIZED');
    for (const res of [await tech.get(TEMPLATES), await tech.post(TEMPLATES, { automation_rule_id: randomId(), template_name: 'x' }), await tech.get(url), await tech.post(`${url}/use`, { variables: { board_id: randomId() } })]) {
      expectError(res, 403, 'FORBIDDEN');
    }
    expectError(await b.admin.get(url), 404, 'NOT_FOUND');
    expectError(await b.admin.post(`${url}/use`, { variables: { board_id: randomId() } }), 404, 'NOT_FOUND');
    expectError(await a.admin.get(`${TEMPLATES}/${randomId()}`), 404, 'NOT_FOUND');
    expectError(await a.admin.post(`${TEMPLATES}/${randomId()}/use`, {}), 404, 'NOT_FOUND');
    expectInvalid(await a.admin.get(`${TEMPLATES}/nope`), 'params.templateId');
    expectInvalid(await a.admin.get(`${TEMPLATES}?sort=secret`), 'querystring.sort');
    expect((await a.admin.get(url)).json().data.usage_count).toBe(0);
  });
});
