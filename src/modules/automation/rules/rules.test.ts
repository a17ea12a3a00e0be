import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/harness.ts';
import { makeTenant, makeUser, unique, type Api, type Res, type TenantFixture } from '../../../../test/factories.ts';
import { anonymous, expectError, expectStatus, randomId } from '../../../../test/client-factories.ts';
import { makeInbound } from '../../../../test/inbound-factories.ts';
import { nextRunAt } from '../automation.catalog.ts';

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

interface RuleJson {
  rule_id: string;
  name: string;
  description: string | null;
  status: string;
  priority: string;
  trigger_type: string;
  trigger_config: Record<string, unknown>;
  event_type: string | null;
  conditions: { field: string; operator: string; value?: unknown }[];
  condition_logic: string;
  actions: { type: string; config: Record<string, unknown>; order: number; continue_on_error: boolean; retry_attempts: number; timeout_seconds: number }[];
  max_concurrent_executions: number;
  execution_timeout_minutes: number;
  retry_failed_executions: boolean;
  tags: string[];
  next_run_at: string | null;
  created_by: string | null;
  updated_by: string | null;
  signing_secret?: string;
}

const COMMENT = { type: 'add_ticket_comment', config: { ticket_id: '{{data.ticket_id}}', comment_text: 'Seen: {{data.title}}' } };

const manual = (over: Record<string, unknown> = {}) => ({ name: unique('Rule'), trigger_type: 'manual', actions: [COMMENT], ...over });

async function makeRule(api: Api, body: Record<string, unknown> = manual()): Promise<RuleJson> {
  const res = await api.post(RULES, body);
  expectStatus(res, 201);
  return res.json().data as RuleJson;
}

/** A 400 whose details name `path`. */
function expectInvalid(res: Res, path: string): void {
  expectError(res, 400, 'VALIDATION_ERROR');
  const paths = (res.json().error.details as { path: string }[]).map((d) => d.path);
  expect(paths, res.body).toContain(path);
}

const row = (tenant: string, id: string) =>
  t.database.db.selectFrom('automation_rules').selectAll().where('tenant', '=', tenant).where('rule_id', '=', id).executeTakeFirstOrThrow();

/** A user holding a custom role with exactly these permissions. */
async function userWith(tenant: TenantFixture, permissions: string[]) {
  const roleName = unique('Role');
  expectStatus(await tenant.admin.post('/api/v1/roles', { role_name: roleName, permissions }), 201);
  return { ...(await makeUser(t, tenant.tenant, { role: roleName })), roleName };
}

describe('automation rules: CRUD', () => {
  it('creates with defaults, shows the signing secret once and stores it sealed; reads, updates, deletes; ETags', async () => {
    const res = await a.admin.post(RULES, {
      name: '  Ack tickets  ',
      description: 'Acknowledge',
      trigger_type: 'event',
      trigger_config: { event_type: 'ticket.created' },
      conditions: [{ field: 'data.priority_name', operator: 'in', value: ['High', 'Critical'] }],
      actions: [COMMENT],
      tags: ['tickets', ' tickets ', 'ack'],
    });
    expectStatus(res, 201);
    const rule = res.json().data as RuleJson;
    expect(res.headers.location).toBe(`${RULES}/${rule.rule_id}`);
    expect(res.headers.etag).toBeTruthy();
    expect(rule).toMatchObject({
      name: 'Ack tickets',
      description: 'Acknowledge',
      status: 'draft',
      priority: 'normal',
      trigger_type: 'event',
      trigger_config: { event_type: 'ticket.created', filters: [] },
      event_type: 'ticket.created',
      condition_logic: 'and',
      actions: [{ ...COMMENT, order: 1, continue_on_error: false, retry_attempts: 0, timeout_seconds: 30 }],
      max_concurrent_executions: 1,
      execution_timeout_minutes: 60,
      retry_failed_executions: false,
      tags: ['tickets', 'ack'],
      next_run_at: null,
      created_by: a.adminUserId,
      updated_by: a.adminUserId,
    });
    expect(rule.signing_secret).toMatch(/^asec_[A-Za-z0-9_-]{43}$/);

    const stored = await row(a.tenant, rule.rule_id);
    expect(stored.signing_secret_enc).not.toContain(rule.signing_secret!.slice(5));
    expect(stored.signing_secret_enc.startsWith('v1.')).toBe(true);
    expect(t.app.secretBox.decrypt(stored.signing_secret_enc)).toBe(rule.signing_secret);

    const got = await a.admin.get(`${RULES}/${rule.rule_id}`);
    expectStatus(got, 200);
    expect(got.json().data.signing_secret).toBeUndefined();
    expect(got.body).not.toContain(rule.signing_secret);
    const { signing_secret: _s, ...withoutSecret } = rule;
    expect(got.json().data).toEqual(withoutSecret);
    expect(got.headers.etag).toBe(res.headers.etag);
    expect((await a.admin.get(`${RULES}/${rule.rule_id}`, { 'if-none-match': got.headers.etag as string })).statusCode).toBe(304);

    const upd = await a.admin.put(`${RULES}/${rule.rule_id}`, { priority: 'high', description: null, condition_logic: 'or' }, { 'if-match': got.headers.etag as string });
    expectStatus(upd, 200);
    expect(upd.json().data).toMatchObject({ priority: 'high', description: null, condition_logic: 'or', name: 'Ack tickets', conditions: rule.conditions, actions: rule.actions });
    expectError(await a.admin.put(`${RULES}/${rule.rule_id}`, { priority: 'low' }, { 'if-match': got.headers.etag as string }), 412, 'PRECONDITION_FAILED');
    expectError(await a.admin.delete(`${RULES}/${rule.rule_id}`, { 'if-match': got.headers.etag as string }), 412, 'PRECONDITION_FAILED');

    expect((await a.admin.delete(`${RULES}/${rule.rule_id}`, { 'if-match': upd.headers.etag as string })).statusCode).toBe(204);
    expectError(await a.admin.get(`${RULES}/${rule.rule_id}`), 404, 'NOT_FOUND');
    expectError(await a.admin.delete(`${RULES}/${rule.rule_id}`), 404, 'NOT_FOUND');
  });

  it('keeps actions in run order (order, then array position) and renumbers them 1…n', async () => {
    const rule = await makeRule(a.admin, manual({
      actions: [
        { ...COMMENT, config: { ...COMMENT.config, comment_text: 'third' }, order: 30 },
        { ...COMMENT, config: { ...COMMENT.config, comment_text: 'first' }, order: 10, continue_on_error: true, retry_attempts: 5, timeout_seconds: 300 },
        { ...COMMENT, config: { ...COMMENT.config, comment_text: 'second' }, order: 10 },
      ],
    }));
    expect(rule.actions.map((x) => [x.config.comment_text, x.order])).toEqual([['first', 1], ['second', 2], ['third', 3]]);
    expect(rule.actions[0]).toMatchObject({ continue_on_error: true, retry_attempts: 5, timeout_seconds: 300 });
  });

  it('a partial update is validated as a whole rule; a new trigger type needs its own config', async () => {
    const rule = await makeRule(a.admin);
    expectInvalid(await a.admin.put(`${RULES}/${rule.rule_id}`, { trigger_type: 'event' }), 'body.trigger_config.event_type');
    const moved = await a.admin.put(`${RULES}/${rule.rule_id}`, { trigger_type: 'event', trigger_config: { event_type: 'ticket.updated', filters: [{ field: 'changes.status_id', operator: 'exists' }] } });
    expectStatus(moved, 200);
    expect(moved.json().data).toMatchObject({ trigger_type: 'event', event_type: 'ticket.updated', trigger_config: { event_type: 'ticket.updated', filters: [{ field: 'changes.status_id', operator: 'exists' }] } });
    expectInvalid(await a.admin.put(`${RULES}/${rule.rule_id}`, { actions: [{ type: 'update_ticket', config: { ticket_id: 'nope' } }] }), 'body.actions.0.config.ticket_id');
    expectInvalid(await a.admin.put(`${RULES}/${rule.rule_id}`, {}), 'body');
    expectInvalid(await a.admin.put(`${RULES}/${rule.rule_id}`, { status: 'error' }), 'body.status');
    expectInvalid(await a.admin.put(`${RULES}/${rule.rule_id}`, { name: '   ' }), 'body.name');
    expect((await a.admin.get(`${RULES}/${rule.rule_id}`)).json().data.event_type).toBe('ticket.updated');
  });
});

describe('automation rules: triggers', () => {
  it('event: a type of the vocabulary, filters like conditions', async () => {
    const ok = await makeRule(a.admin, manual({ trigger_type: 'event', trigger_config: { event_type: 'ticket.comment.added', filters: [{ field: 'data.comment.is_internal', operator: 'equals', value: false }] } }));
    expect(ok.event_type).toBe('ticket.comment.added');
    expectInvalid(await a.admin.post(RULES, manual({ trigger_type: 'event', trigger_config: { event_type: 'ticket.exploded' } })), 'body.trigger_config.event_type');
    expectInvalid(await a.admin.post(RULES, manual({ trigger_type: 'event', trigger_config: {} })), 'body.trigger_config.event_type');
    expectInvalid(await a.admin.post(RULES, manual({ trigger_type: 'event' })), 'body.trigger_config.event_type');
    expectInvalid(await a.admin.post(RULES, manual({ trigger_type: 'event', trigger_config: { event_type: 'ticket.created', cron: '* * * * *' } })), 'body.trigger_config.cron');
    expectInvalid(await a.admin.post(RULES, manual({ trigger_type: 'event', trigger_config: { event_type: 'ticket.created', filters: [{ field: 'data.title', operator: 'regex_match', value: '(unclosed' }] } })), 'body.trigger_config.filters.0.value');
    expectInvalid(await a.admin.post(RULES, manual({ trigger_type: 'event', trigger_config: { event_type: 'ticket.created', filters: [{ field: 'payload.title', operator: 'exists' }] } })), 'body.trigger_config.filters.0.field');
    expectInvalid(await a.admin.post(RULES, manual({ trigger_type: 'event', trigger_config: 'ticket.created' })), 'body.trigger_config');
  });

  it('schedule: 5 or 6 cron fields in an IANA time zone (UTC by default); next_run_at while active', async () => {
    const draft = await makeRule(a.admin, manual({ trigger_type: 'schedule', trigger_config: { cron: '*/15 * * * *' } }));
    expect(draft).toMatchObject({ trigger_config: { cron: '*/15 * * * *', timezone: 'UTC' }, next_run_at: null });

    const before = new Date();
    const active = await makeRule(a.admin, manual({ status: 'active', trigger_type: 'schedule', trigger_config: { cron: '0 9 * * 1-5', timezone: 'Europe/Berlin' } }));
    const expected = nextRunAt({ cron: '0 9 * * 1-5', timezone: 'Europe/Berlin' }, before).toISOString();
    expect(active.next_run_at).toBe(expected);
    expect([7, 8]).toContain(new Date(active.next_run_at!).getUTCHours()); // 09:00 in Berlin
    const sixFields = await makeRule(a.admin, manual({ status: 'active', trigger_type: 'schedule', trigger_config: { cron: '30 */5 * * * *' } }));
    expect(new Date(sixFields.next_run_at!).getUTCSeconds()).toBe(30);

    // An update that keeps the schedule keeps the due time; changing it or deactivating recomputes it.
    const renamed = await a.admin.put(`${RULES}/${active.rule_id}`, { name: 'Weekday mornings' });
    expect(renamed.json().data.next_run_at).toBe(active.next_run_at);
    const hourly = await a.admin.put(`${RULES}/${active.rule_id}`, { trigger_config: { cron: '0 * * * *' } });
    expect(hourly.json().data).toMatchObject({ trigger_config: { cron: '0 * * * *', timezone: 'UTC' } });
    expect(new Date(hourly.json().data.next_run_at).getUTCMinutes()).toBe(0);
    const off = await a.admin.put(`${RULES}/${active.rule_id}`, { status: 'inactive' });
    expect(off.json().data.next_run_at).toBeNull();

    for (const [config, path] of [
      [{ cron: '61 * * * *' }, 'body.trigger_config.cron'],
      [{ cron: '* * * *  ' }, 'body.trigger_config.cron'],
      [{ cron: '@hourly ' }, 'body.trigger_config.cron'],
      [{ cron: '0 0 31 2 *' }, 'body.trigger_config.cron'],
      [{ cron: '* * * * * * *' }, 'body.trigger_config.cron'],
      [{ cron: '*/5 * * * *', timezone: 'Mars/Olympus_Mons' }, 'body.trigger_config.timezone'],
      [{ timezone: 'UTC' }, 'body.trigger_config.cron'],
    ] as const) {
      expectInvalid(await a.admin.post(RULES, manual({ trigger_type: 'schedule', trigger_config: config })), path);
    }
  });

  it('manual: no settings', async () => {
    const rule = await makeRule(a.admin, manual({ trigger_config: {} }));
    expect(rule.trigger_config).toEqual({});
    expectInvalid(await a.admin.post(RULES, manual({ trigger_config: { event_type: 'ticket.created' } })), 'body.trigger_config.event_type');
  });

  it('inbound_webhook: an inbound webhook of the tenant with the workflow handler', async () => {
    const hook = await makeInbound(a.admin);
    const rule = await makeRule(a.admin, manual({ trigger_type: 'inbound_webhook', trigger_config: { inbound_webhook_id: hook.inbound_webhook_id } }));
    expect(rule.trigger_config).toEqual({ inbound_webhook_id: hook.inbound_webhook_id });

    expectInvalid(await a.admin.post(RULES, manual({ trigger_type: 'inbound_webhook', trigger_config: { inbound_webhook_id: randomId() } })), 'body.trigger_config.inbound_webhook_id');
    expectInvalid(await a.admin.post(RULES, manual({ trigger_type: 'inbound_webhook', trigger_config: { inbound_webhook_id: 'nope' } })), 'body.trigger_config.inbound_webhook_id');
    const other = await makeInbound(b.admin);
    expectInvalid(await a.admin.post(RULES, manual({ trigger_type: 'inbound_webhook', trigger_config: { inbound_webhook_id: other.inbound_webhook_id } })), 'body.trigger_config.inbound_webhook_id');

    const direct = await makeInbound(a.admin, { handler_type: 'direct_action', handler_config: { action: 'create_ticket', field_mapping: { title: 'subject' } } });
    const res = await a.admin.post(RULES, manual({ trigger_type: 'inbound_webhook', trigger_config: { inbound_webhook_id: direct.inbound_webhook_id } }));
    expectError(res, 422, 'UNPROCESSABLE');
    expect(res.json().error.details).toMatchObject({ rule: 'inbound_webhook_not_workflow', inbound_webhook_id: direct.inbound_webhook_id });
  });
});

describe('automation rules: conditions and actions', () => {
  it('checks every condition: path, operator, and a value that fits the operator', async () => {
    const rule = await makeRule(a.admin, manual({
      conditions: [
        { field: 'data.priority_name', operator: 'equals', value: 'High' },
        { field: 'data.tags', operator: 'contains', value: 'vip' },
        { field: 'data.estimate', operator: 'greater_than_or_equal', value: 5 },
        { field: 'data.title', operator: 'regex_match', value: '(?i)^urgent' },
        { field: 'headers.x-github-event', operator: 'exists' },
        { field: 'event_type', operator: 'not_in', value: ['ticket.deleted'] },
      ],
      condition_logic: 'or',
    }));
    expect(rule.conditions).toHaveLength(6);
    expect(rule.conditions[4]).toEqual({ field: 'headers.x-github-event', operator: 'exists' });

    const bad: [Record<string, unknown>, string][] = [
      [{ field: 'data.title', operator: 'regex_match', value: '(a' }, 'body.conditions.0.value'],
      [{ field: 'data.title', operator: 'regex_match', value: '(a)\\1' }, 'body.conditions.0.value'],
      [{ field: 'data.title', operator: 'regex_match', value: 'x'.repeat(501) }, 'body.conditions.0.value'],
      [{ field: 'data.title', operator: 'regex_match', value: 5 }, 'body.conditions.0.value'],
      [{ field: 'data.title', operator: 'in', value: 'High' }, 'body.conditions.0.value'],
      [{ field: 'data.title', operator: 'in', value: [{ nested: true }] }, 'body.conditions.0.value'],
      [{ field: 'data.title', operator: 'exists', value: true }, 'body.conditions.0.value'],
      [{ field: 'data.title', operator: 'equals' }, 'body.conditions.0.value'],
      [{ field: 'data.title', operator: 'starts_with', value: 5 }, 'body.conditions.0.value'],
      [{ field: 'data.count', operator: 'greater_than', value: 'many' }, 'body.conditions.0.value'],
      [{ field: 'ticket.title', operator: 'exists' }, 'body.conditions.0.field'],
      [{ field: 'data..title', operator: 'exists' }, 'body.conditions.0.field'],
      [{ field: 'data.title', operator: 'matches', value: 'x' }, 'body.conditions.0.operator'],
      [{ field: 'data.title', operator: 'exists', extra: 1 }, 'body.conditions.0.extra'],
    ];
    for (const [condition, path] of bad) expectInvalid(await a.admin.post(RULES, manual({ conditions: [condition] })), path);
    const many = Array.from({ length: 51 }, () => ({ field: 'data.x', operator: 'exists' }));
    expectInvalid(await a.admin.post(RULES, manual({ conditions: many })), 'body.conditions');
    expectInvalid(await a.admin.post(RULES, manual({ condition_logic: 'not' })), 'body.condition_logic');
  });

  it('checks every action against its type\'s config schema, naming the path; whole placeholders stand for any type', async () => {
    const ok = await makeRule(a.admin, manual({
      actions: [
        { type: 'update_ticket', config: { ticket_id: '{{ data.ticket_id }}', assigned_team_id: '{{data.team}}' } },
        { type: 'add_ticket_comment', config: { ticket_id: '{{data.ticket_id}}', comment_text: 'Priority {{data.priority_name}}', is_internal: '{{data.internal}}' } },
        { type: 'send_email', config: { to: ['{{data.manager_email}}', 'ops@example.com'], subject: 'Ticket {{data.ticket_number}}', body: 'See {{data.url}}' } },
      ],
    }));
    expect(ok.actions.map((x) => x.type)).toEqual(['update_ticket', 'add_ticket_comment', 'send_email']);

    const three = (third: Record<string, unknown>) => manual({ actions: [COMMENT, COMMENT, third] });
    expectInvalid(await a.admin.post(RULES, three({ type: 'update_ticket', config: { ticket_id: 'not-a-uuid', priority_id: randomId() } })), 'body.actions.2.config.ticket_id');
    expectInvalid(await a.admin.post(RULES, three({ type: 'update_ticket', config: { ticket_id: 'x-{{data.ticket_id}}', priority_id: randomId() } })), 'body.actions.2.config.ticket_id');
    expectInvalid(await a.admin.post(RULES, three({ type: 'add_ticket_comment', config: { ticket_id: randomId() } })), 'body.actions.2.config.comment_text');
    expectInvalid(await a.admin.post(RULES, three({ type: 'add_ticket_comment', config: { ticket_id: randomId(), comment_text: 'x', bogus: 1 } })), 'body.actions.2.config.bogus');
    expectInvalid(await a.admin.post(RULES, three({ type: 'add_ticket_comment', config: { ticket_id: randomId(), comment_text: 'Hi {{ticket.title}}' } })), 'body.actions.2.config.comment_text');
    expectInvalid(await a.admin.post(RULES, three({ type: 'add_ticket_comment', config: { ticket_id: randomId(), comment_text: 'Hi {{ }}' } })), 'body.actions.2.config.comment_text');
    expectInvalid(await a.admin.post(RULES, three({ type: 'send_email', config: { to: ['not an address'], subject: 's', body: 'b' } })), 'body.actions.2.config.to.0');
    expectInvalid(await a.admin.post(RULES, three({ type: 'add_ticket_comment', config: 'text' })), 'body.actions.2.config');
    expectInvalid(await a.admin.post(RULES, three({ type: 'run_script', config: { script: 'rm -rf /' } })), 'body.actions.2.type');
    expectInvalid(await a.admin.post(RULES, three({ ...COMMENT, retry_attempts: 6 })), 'body.actions.2.retry_attempts');
    expectInvalid(await a.admin.post(RULES, three({ ...COMMENT, timeout_seconds: 0 })), 'body.actions.2.timeout_seconds');
    expectInvalid(await a.admin.post(RULES, manual({ actions: [] })), 'body.actions');
    expectInvalid(await a.admin.post(RULES, manual({ actions: Array.from({ length: 21 }, () => COMMENT) })), 'body.actions');
    expectInvalid(await a.admin.post(RULES, { trigger_type: 'manual', actions: [COMMENT] }), 'body.name');
    expectInvalid(await a.admin.post(RULES, manual({ status: 'error' })), 'body.status');
    expectInvalid(await a.admin.post(RULES, manual({ max_concurrent_executions: 101 })), 'body.max_concurrent_executions');
    expectInvalid(await a.admin.post(RULES, manual({ execution_timeout_minutes: 1441 })), 'body.execution_timeout_minutes');
    expectInvalid(await a.admin.post(RULES, manual({ tags: Array.from({ length: 21 }, (_, i) => `t${i}`) })), 'body.tags');
    expectInvalid(await a.admin.post(RULES, manual({ tags: ['x'.repeat(51)] })), 'body.tags.0');
    expect(await t.database.db.selectFrom('automation_rules').select('rule_id').where('tenant', '=', a.tenant).where('name', '=', 'never').execute()).toEqual([]);
  });
});

describe('automation rules: the owner\'s permissions', () => {
  it('422 naming the permission the caller (the owner) lacks; a scoped key cannot exceed its scopes', async () => {
    const author = await userWith(a, ['automation:read', 'automation:create', 'automation:update']);
    const res = await author.api.post(RULES, manual());
    expectError(res, 422, 'UNPROCESSABLE');
    expect(res.json().error.message).toContain('ticket:update');
    expect(res.json().error.details).toMatchObject({ rule: 'actions_need_permissions', missing_permissions: ['ticket:update'] });
    // Actions needing nothing the author lacks are fine.
    const mail = await makeRule(author.api, manual({ actions: [{ type: 'send_email', config: { to: ['a@example.com'], subject: 's', body: 'b' } }] }));
    expect(mail.created_by).toBe(author.userId);

    const scoped = await makeUser(t, a.tenant, { role: 'Admin', scopes: ['automation:read', 'automation:create'] });
    const scopedRes = await scoped.api.post(RULES, manual({ actions: [{ type: 'create_ticket', config: { title: '{{data.title}}' } }, COMMENT] }));
    expectError(scopedRes, 422, 'UNPROCESSABLE');
    expect(scopedRes.json().error.details.missing_permissions).toEqual(['ticket:create', 'ticket:update']);

    // Someone editing another's rule must hold the permissions too.
    const adminRule = await makeRule(a.admin);
    expectError(await author.api.put(`${RULES}/${adminRule.rule_id}`, { name: 'Renamed' }), 422, 'UNPROCESSABLE');
    expect((await row(a.tenant, adminRule.rule_id)).name).toBe(adminRule.name);
  });

  it('422 when the owner lost a permission the actions need; a deactivated owner\'s rule passes to its editor', async () => {
    const owner = await userWith(a, ['automation:read', 'automation:create', 'automation:update', 'ticket:read', 'ticket:update']);
    const rule = await makeRule(owner.api);
    expect(rule.created_by).toBe(owner.userId);
    const roleId = (await t.database.db.selectFrom('roles').select('role_id').where('tenant', '=', a.tenant).where('role_name', '=', owner.roleName).executeTakeFirstOrThrow()).role_id;
    expectStatus(await a.admin.put(`/api/v1/roles/${roleId}`, { permissions: ['automation:read', 'automation:create', 'automation:update', 'ticket:read'] }), 200);

    const res = await a.admin.put(`${RULES}/${rule.rule_id}`, { name: 'Renamed by admin' });
    expectError(res, 422, 'UNPROCESSABLE');
    expect(res.json().error.details).toMatchObject({ rule: 'owner_lacks_permissions', owner_id: owner.userId, missing_permissions: ['ticket:update'] });
    const bulk = await a.admin.post(`${RULES}/bulk-status`, { ids: [rule.rule_id], status: 'active' });
    expectError(bulk, 422, 'UNPROCESSABLE');
    expect(bulk.json().error.details).toMatchObject({ rule: 'owner_lacks_permissions', rule_id: rule.rule_id });

    await t.database.db.updateTable('users').set({ is_inactive: true }).where('tenant', '=', a.tenant).where('user_id', '=', owner.userId).execute();
    const taken = await a.admin.put(`${RULES}/${rule.rule_id}`, { name: 'Taken over' });
    expectStatus(taken, 200);
    expect(taken.json().data).toMatchObject({ name: 'Taken over', created_by: a.adminUserId, updated_by: a.adminUserId });
  });
});

describe('automation rules: list', () => {
  it('filters by status, trigger_type, event_type, tag, search and updated_since; sorts; pages', async () => {
    const ten = await makeTenant(t);
    const r1 = await makeRule(ten.admin, manual({ name: 'Alpha escalation', priority: 'critical', tags: ['vip'] }));
    const r2 = await makeRule(ten.admin, manual({ name: 'beta notify', description: 'Escalation e-mail', priority: 'low', status: 'active', trigger_type: 'event', trigger_config: { event_type: 'ticket.created' } }));
    const r3 = await makeRule(ten.admin, manual({ name: 'Gamma nightly', priority: 'high', status: 'inactive', trigger_type: 'schedule', trigger_config: { cron: '0 2 * * *' }, tags: ['vip', 'night'] }));
    await makeRule(b.admin, manual({ name: 'Other tenant escalation' }));
    const names = async (q: string) => {
      const res = await ten.admin.get(`${RULES}${q}`);
      expectStatus(res, 200);
      return (res.json().data as RuleJson[]).map((r) => r.name);
    };
    expect(await names('?sort=name&order=asc')).toEqual(['Alpha escalation', 'beta notify', 'Gamma nightly']);
    expect(await names('?sort=priority&order=desc')).toEqual(['Alpha escalation', 'Gamma nightly', 'beta notify']);
    expect(await names('?status=active')).toEqual(['beta notify']);
    expect(await names('?trigger_type=schedule')).toEqual(['Gamma nightly']);
    expect(await names('?event_type=ticket.created')).toEqual(['beta notify']);
    expect(await names('?tag=vip&sort=name&order=asc')).toEqual(['Alpha escalation', 'Gamma nightly']);
    expect(await names('?search=ESCALATION&sort=name&order=asc')).toEqual(['Alpha escalation', 'beta notify']);
    expect(await names('?search=%25')).toEqual([]);
    const page = await ten.admin.get(`${RULES}?sort=created_at&order=asc&limit=2&page=2`);
    expect(page.json()).toMatchObject({ data: [{ rule_id: r3.rule_id }], pagination: { page: 2, limit: 2, total: 3, totalPages: 2, hasNext: false, hasPrev: true } });

    await t.database.db.updateTable('automation_rules').set({ updated_at: new Date('2020-01-01T00:00:00Z') }).where('tenant', '=', ten.tenant).where('rule_id', 'in', [r1.rule_id, r2.rule_id]).execute();
    expect(await names('?updated_since=2021-01-01T00:00:00Z')).toEqual(['Gamma nightly']);
    const listed = (await ten.admin.get(RULES)).json().data as RuleJson[];
    expect(listed.every((r) => r.signing_secret === undefined)).toBe(true);

    expectInvalid(await ten.admin.get(`${RULES}?status=broken`), 'querystring.status');
    expectInvalid(await ten.admin.get(`${RULES}?sort=signing_secret_enc`), 'querystring.sort');
    expectInvalid(await ten.admin.get(`${RULES}?owner=me`), 'querystring.owner');
  });
});

describe('automation rules: bulk status and secret rotation', () => {
  it('sets the status of many rules at once, all or nothing; schedules the activated schedule rules', async () => {
    const m = await makeRule(a.admin);
    const s = await makeRule(a.admin, manual({ trigger_type: 'schedule', trigger_config: { cron: '*/10 * * * *' } }));
    const already = await makeRule(a.admin, manual({ status: 'active' }));
    const res = await a.admin.post(`${RULES}/bulk-status`, { ids: [s.rule_id, m.rule_id, already.rule_id], status: 'active' });
    expectStatus(res, 200);
    expect(res.json().meta).toEqual({ updated: 2 });
    const data = res.json().data as RuleJson[];
    expect(data.map((r) => [r.rule_id, r.status])).toEqual([[s.rule_id, 'active'], [m.rule_id, 'active'], [already.rule_id, 'active']]);
    expect(new Date(data[0]!.next_run_at!).getUTCMinutes() % 10).toBe(0);
    expect(data[0]!.next_run_at! > new Date().toISOString()).toBe(true);
    expect(data[1]!.next_run_at).toBeNull();

    const otherTenant = await makeRule(b.admin);
    const missing = await a.admin.post(`${RULES}/bulk-status`, { ids: [s.rule_id, otherTenant.rule_id], status: 'inactive' });
    expectError(missing, 404, 'NOT_FOUND');
    expect(missing.json().error.message).toContain(otherTenant.rule_id);
    expect((await row(a.tenant, s.rule_id)).status).toBe('active');
    expect((await row(b.tenant, otherTenant.rule_id)).status).toBe('draft');

    const off = await a.admin.post(`${RULES}/bulk-status`, { ids: [s.rule_id], status: 'inactive' });
    expect(off.json().data[0]).toMatchObject({ status: 'inactive', next_run_at: null });

    expectInvalid(await a.admin.post(`${RULES}/bulk-status`, { ids: [], status: 'active' }), 'body.ids');
    expectInvalid(await a.admin.post(`${RULES}/bulk-status`, { ids: Array.from({ length: 101 }, randomId), status: 'active' }), 'body.ids');
    expectInvalid(await a.admin.post(`${RULES}/bulk-status`, { ids: [m.rule_id, m.rule_id], status: 'active' }), 'body.ids');
    expectInvalid(await a.admin.post(`${RULES}/bulk-status`, { ids: [m.rule_id], status: 'error' }), 'body.status');
    expectError(await tech.post(`${RULES}/bulk-status`, { ids: [m.rule_id], status: 'inactive' }), 403, 'FORBIDDEN');
    expectError(await anonymous(t).post(`${RULES}/bulk-status`, { ids: [m.rule_id], status: 'inactive' }), 401, 'UNAUTHORIZED');
  });

  it('activation in bulk re-checks an inbound webhook trigger', async () => {
    const hook = await makeInbound(a.admin);
    const rule = await makeRule(a.admin, manual({ trigger_type: 'inbound_webhook', trigger_config: { inbound_webhook_id: hook.inbound_webhook_id } }));
    expectStatus(await a.admin.delete(`/api/v1/inbound-webhooks/${hook.inbound_webhook_id}`), 204);
    const res = await a.admin.post(`${RULES}/bulk-status`, { ids: [rule.rule_id], status: 'active' });
    expectError(res, 422, 'UNPROCESSABLE');
    expect(res.json().error.details).toMatchObject({ rule: 'inbound_webhook_missing', rule_id: rule.rule_id });
  });

  it('rotates the signing secret: the new one is shown once, stored sealed, and replaces the old', async () => {
    const rule = await makeRule(a.admin);
    const res = await a.admin.post(`${RULES}/${rule.rule_id}/signing-secret/rotate`);
    expectStatus(res, 200);
    const secret = res.json().data.signing_secret as string;
    expect(secret).toMatch(/^asec_[A-Za-z0-9_-]{43}$/);
    expect(secret).not.toBe(rule.signing_secret);
    expect(res.json().data.rule_id).toBe(rule.rule_id);
    const stored = await row(a.tenant, rule.rule_id);
    expect(stored.signing_secret_enc).not.toContain(secret.slice(5));
    expect(t.app.secretBox.decrypt(stored.signing_secret_enc)).toBe(secret);
    expect((await a.admin.get(`${RULES}/${rule.rule_id}`)).headers.etag).toBe(res.headers.etag);

    expectError(await a.admin.post(`${RULES}/${randomId()}/signing-secret/rotate`), 404, 'NOT_FOUND');
    expectError(await b.admin.post(`${RULES}/${rule.rule_id}/signing-secret/rotate`), 404, 'NOT_FOUND');
    expectError(await tech.post(`${RULES}/${rule.rule_id}/signing-secret/rotate`), 403, 'FORBIDDEN');
    expectError(await anonymous(t).post(`${RULES}/${rule.rule_id}/signing-secret/rotate`), 401, 'UNAUTHORIZED');
    expect(t.app.secretBox.decrypt((await row(a.tenant, rule.rule_id)).signing_secret_enc)).toBe(secret);
  });
});

describe('automation rules: access', () => {
  it('401 without a key, 403 without the automation permission, 404 for unknown ids and other tenants\' rules', async () => {
    const rule = await makeRule(a.admin);
    const url = `${RULES}/${rule.rule_id}`;
    const anon = anonymous(t);
    for (const res of [await anon.get(RULES), await anon.post(RULES, manual()), await anon.get(url), await anon.put(url, { name: 'x' }), await anon.delete(url)]) {
      expectError(res, 401, 'UNAUTHORIZED');
    }
    for (const [res, permission] of [
      [await tech.get(RULES), 'automation:read'],
      [await tech.post(RULES, manual()), 'automation:create'],
      [await tech.get(url), 'automation:read'],
      [await tech.put(url, { name: 'x' }), 'automation:update'],
      [await tech.delete(url), 'automation:delete'],
    ] as const) {
      expectError(res, 403, 'FORBIDDEN');
      expect(res.json().error.details.required).toEqual([permission]);
    }
    // A Manager holds automation:*.
    const manager = await makeUser(t, a.tenant, { role: 'Manager' });
    expectStatus(await manager.api.get(url), 200);

    for (const res of [await b.admin.get(url), await b.admin.put(url, { name: 'Hijacked' }), await b.admin.delete(url)]) expectError(res, 404, 'NOT_FOUND');
    for (const res of [await a.admin.get(`${RULES}/${randomId()}`), await a.admin.put(`${RULES}/${randomId()}`, { name: 'x' }), await a.admin.delete(`${RULES}/${randomId()}`)]) {
      expectError(res, 404, 'NOT_FOUND');
    }
    expectInvalid(await a.admin.get(`${RULES}/not-a-uuid`), 'params.ruleId');
    expect((await row(a.tenant, rule.rule_id)).name).toBe(rule.name);
  });
});
