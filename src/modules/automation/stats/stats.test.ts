import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/harness.ts';
import { makeTenant, makeUser, unique, type Api, type Res, type TenantFixture } from '../../../../test/factories.ts';
import { anonymous, expectError, expectStatus } from '../../../../test/client-factories.ts';
import type { ExecutionStatus, TriggerType } from '../../../platform/db/schema.automation.ts';
import { newId } from '../../../platform/ids.ts';
import { ACTION_DEFINITIONS } from '../actions/actions.catalog.ts';
import { CONDITION_OPERATORS } from '../automation.types.ts';

let t: TestApp;
let tech: Api;
beforeAll(async () => {
  t = await buildTestApp();
  const other = await makeTenant(t);
  tech = (await makeUser(t, other.tenant, { role: 'Technician' })).api;
});
afterAll(async () => t.close());

const STATS = '/api/v1/automation/statistics';
const PERF = '/api/v1/automation/performance';
const COMMENT = { type: 'add_ticket_comment', config: { ticket_id: '{{data.ticket_id}}', comment_text: 'x' } };

function expectInvalid(res: Res, path: string): void {
  expectError(res, 400, 'VALIDATION_ERROR');
  expect((res.json().error.details as { path: string }[]).map((d) => d.path), res.body).toContain(path);
}

async function rule(ten: TenantFixture, status = 'draft', trigger: Record<string, unknown> = { trigger_type: 'manual' }): Promise<string> {
  const res = await ten.admin.post('/api/v1/automation/rules', { name: unique('R'), status, actions: [COMMENT], ...trigger });
  expectStatus(res, 201);
  return res.json().data.rule_id as string;
}

interface Exec {
  rule: string;
  status: ExecutionStatus;
  at: Date;
  trigger?: TriggerType;
  duration?: number | null;
  steps?: [string, 'completed' | 'failed' | 'skipped' | 'pending'][];
}

async function insertExecutions(tenant: string, list: Exec[]): Promise<void> {
  for (const e of list) {
    const id = newId();
    await t.database.db.insertInto('automation_executions').values({
      tenant,
      execution_id: id,
      rule_id: e.rule,
      trigger_type: e.trigger ?? 'manual',
      trigger_key: id,
      status: e.status,
      duration_ms: e.duration ?? null,
      created_at: e.at,
      started_at: e.at,
      completed_at: e.duration == null ? null : new Date(e.at.getTime() + e.duration),
    }).execute();
    for (const [i, [type, status]] of (e.steps ?? []).entries()) {
      await t.database.db.insertInto('automation_execution_steps').values({ tenant, execution_id: id, action_index: i, action_type: type, status }).execute();
    }
  }
}

const DAY = 86_400_000;
const startOfDay = (d: Date) => new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()));

describe('automation statistics', () => {
  it('counts rules by status and aggregates the executions', async () => {
    const ten = await makeTenant(t);
    const empty = await ten.admin.get(STATS);
    expectStatus(empty, 200);
    expect(empty.json().data).toEqual({
      total_rules: 0, active_rules: 0, inactive_rules: 0, draft_rules: 0, error_rules: 0,
      total_executions: 0, successful_executions: 0, failed_executions: 0,
      executions_today: 0, executions_this_week: 0, executions_this_month: 0,
      avg_execution_time_ms: null, success_rate_percent: null, most_used_trigger_types: [], most_used_action_types: [],
    });

    const r1 = await rule(ten, 'active');
    const r2 = await rule(ten, 'active', { trigger_type: 'event', trigger_config: { event_type: 'ticket.created' } });
    await rule(ten, 'inactive');
    await rule(ten, 'draft');
    const r5 = await rule(ten, 'draft');
    await t.database.db.updateTable('automation_rules').set({ status: 'error', last_error: 'owner lacks ticket:update' }).where('tenant', '=', ten.tenant).where('rule_id', '=', r5).execute();

    const now = new Date();
    const today = startOfDay(now);
    const monday = new Date(today.getTime() - ((today.getUTCDay() + 6) % 7) * DAY);
    const monthStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
    const times = [new Date(now.getTime() - 1000), new Date(today.getTime() - 1), new Date(monday.getTime() - 1), new Date(monthStart.getTime() - 1), new Date(now.getTime() - 400 * DAY)];
    await insertExecutions(ten.tenant, [
      { rule: r1, status: 'completed', at: times[0]!, duration: 100, steps: [['add_ticket_comment', 'completed'], ['send_email', 'completed']] },
      { rule: r1, status: 'completed', at: times[1]!, duration: 300, steps: [['add_ticket_comment', 'completed']] },
      { rule: r2, status: 'failed', at: times[2]!, trigger: 'event', duration: 500, steps: [['add_ticket_comment', 'failed'], ['send_email', 'skipped']] },
      { rule: r2, status: 'timeout', at: times[3]!, trigger: 'event', duration: 1100, steps: [['update_ticket', 'failed']] },
      { rule: r2, status: 'completed', at: times[4]!, trigger: 'event', duration: 200, steps: [['add_ticket_comment', 'completed'], ['update_ticket', 'pending']] },
      { rule: r2, status: 'running', at: times[0]!, trigger: 'event', duration: null },
      { rule: r1, status: 'skipped', at: times[0]!, duration: 5 },
    ]);
    const other = await makeTenant(t);
    await insertExecutions(other.tenant, [{ rule: await rule(other), status: 'failed', at: now, duration: 9_000 }]);

    const count = (from: Date) => times.filter((x) => x >= from).length + [times[0], times[0]].filter((x) => x! >= from).length;
    const res = await ten.admin.get(STATS);
    expectStatus(res, 200);
    expect(res.json().data).toEqual({
      total_rules: 5,
      active_rules: 2,
      inactive_rules: 1,
      draft_rules: 1,
      error_rules: 1,
      total_executions: 7,
      successful_executions: 3,
      failed_executions: 2,
      executions_today: count(today),
      executions_this_week: count(monday),
      executions_this_month: count(monthStart),
      avg_execution_time_ms: 440, // (100 + 300 + 500 + 1100 + 200) / 5 finished
      success_rate_percent: 60,
      most_used_trigger_types: [{ trigger_type: 'event', count: 4 }, { trigger_type: 'manual', count: 3 }],
      most_used_action_types: [{ action_type: 'add_ticket_comment', count: 4 }, { action_type: 'send_email', count: 1 }, { action_type: 'update_ticket', count: 1 }],
    });
    expect(res.json().data.executions_today).toBe(3);

    expectError(await anonymous(t).get(STATS), 401, 'UNAUTHORIZED');
    expectError(await tech.get(STATS), 403, 'FORBIDDEN');
    expectInvalid(await ten.admin.get(`${STATS}?tenant=${other.tenant}`), 'querystring.tenant');
  });
});

describe('automation performance', () => {
  it('groups executions by hour, day, week and month in UTC, every period included', async () => {
    const ten = await makeTenant(t);
    const r1 = await rule(ten);
    const r2 = await rule(ten);
    const at = (s: string) => new Date(s);
    await insertExecutions(ten.tenant, [
      { rule: r1, status: 'completed', at: at('2026-01-05T10:15:00Z'), duration: 100 },
      { rule: r1, status: 'failed', at: at('2026-01-05T10:45:00Z'), duration: 300 },
      { rule: r2, status: 'completed', at: at('2026-01-05T12:00:00Z'), duration: 50 },
      { rule: r2, status: 'pending', at: at('2026-01-05T12:30:00Z') },
      { rule: r1, status: 'timeout', at: at('2026-01-06T23:59:59.999Z'), duration: 1000 },
      { rule: r1, status: 'completed', at: at('2026-01-12T00:00:00Z'), duration: 10 },
      { rule: r2, status: 'completed', at: at('2026-02-01T08:00:00Z'), duration: 20 },
      { rule: r2, status: 'completed', at: at('2025-12-31T23:59:59Z'), duration: 20 },
    ]);
    const other = await makeTenant(t);
    await insertExecutions(other.tenant, [{ rule: await rule(other), status: 'failed', at: at('2026-01-05T10:30:00Z'), duration: 1 }]);

    const hourly = await ten.admin.get(`${PERF}?date_from=2026-01-05&date_to=2026-01-05&group_by=hour`);
    expectStatus(hourly, 200);
    const hours = hourly.json().data as Record<string, unknown>[];
    expect(hourly.json().meta).toEqual({ group_by: 'hour', date_from: '2026-01-05T00:00:00.000Z', date_to: '2026-01-06T00:00:00.000Z' });
    expect(hours).toHaveLength(24);
    expect(hours[10]).toEqual({ period_start: '2026-01-05T10:00:00.000Z', execution_count: 2, successful: 1, failed: 1, success_rate: 50, error_rate: 50, avg_duration_ms: 200, throughput_per_hour: 2 });
    expect(hours[12]).toEqual({ period_start: '2026-01-05T12:00:00.000Z', execution_count: 2, successful: 1, failed: 0, success_rate: 100, error_rate: 0, avg_duration_ms: 50, throughput_per_hour: 2 });
    expect(hours[11]).toEqual({ period_start: '2026-01-05T11:00:00.000Z', execution_count: 0, successful: 0, failed: 0, success_rate: null, error_rate: null, avg_duration_ms: null, throughput_per_hour: 0 });

    const daily = await ten.admin.get(`${PERF}?date_from=2026-01-05T00:00:00Z&date_to=2026-01-07T00:00:00Z`);
    expect((daily.json().data as Record<string, unknown>[]).map((d) => [d.period_start, d.execution_count, d.failed, d.throughput_per_hour])).toEqual([
      ['2026-01-05T00:00:00.000Z', 4, 1, 0.17],
      ['2026-01-06T00:00:00.000Z', 1, 1, 0.04],
    ]);
    expect(daily.json().meta.group_by).toBe('day');

    const weekly = await ten.admin.get(`${PERF}?date_from=2026-01-01&date_to=2026-01-18&group_by=week`);
    expect((weekly.json().data as Record<string, unknown>[]).map((d) => [d.period_start, d.execution_count, d.successful, d.failed, d.avg_duration_ms])).toEqual([
      ['2025-12-29T00:00:00.000Z', 0, 0, 0, null], // the week of the range's start; the execution of Dec 31 is before the range
      ['2026-01-05T00:00:00.000Z', 5, 2, 2, 362.5],
      ['2026-01-12T00:00:00.000Z', 1, 1, 0, 10],
    ]);

    const monthly = await ten.admin.get(`${PERF}?date_from=2025-12-01&date_to=2026-02-28&group_by=month`);
    const months = monthly.json().data as Record<string, unknown>[];
    expect(months.map((d) => [d.period_start, d.execution_count, d.success_rate])).toEqual([
      ['2025-12-01T00:00:00.000Z', 1, 100],
      ['2026-01-01T00:00:00.000Z', 6, 60],
      ['2026-02-01T00:00:00.000Z', 1, 100],
    ]);
    expect(months[1]!.throughput_per_hour).toBe(Math.round((6 / (31 * 24)) * 100) / 100);

    const onlyR2 = await ten.admin.get(`${PERF}?date_from=2026-01-05&date_to=2026-01-05&group_by=day&rule_ids=${r2}`);
    expect(onlyR2.json().data).toEqual([{ period_start: '2026-01-05T00:00:00.000Z', execution_count: 2, successful: 1, failed: 0, success_rate: 100, error_rate: 0, avg_duration_ms: 50, throughput_per_hour: 0.08 }]);
    const both = await ten.admin.get(`${PERF}?date_from=2026-01-05&date_to=2026-01-05&rule_ids=${r1}&rule_ids=${r2}`);
    expect(both.json().data[0].execution_count).toBe(4);

    const recent = await ten.admin.get(PERF);
    expectStatus(recent, 200);
    expect(recent.json().data.length).toBeGreaterThanOrEqual(30);
    expect(recent.json().data.every((d: { execution_count: number }) => d.execution_count === 0)).toBe(true);
  });

  it('400 for ranges too long for the grouping, reversed ranges and bad parameters; 401, 403', async () => {
    const ten = await makeTenant(t);
    expectInvalid(await ten.admin.get(`${PERF}?date_from=2026-01-01&date_to=2026-02-01&group_by=hour`), 'querystring.date_from');
    expectStatus(await ten.admin.get(`${PERF}?date_from=2026-01-01&date_to=2026-01-31&group_by=hour`), 200);
    expectInvalid(await ten.admin.get(`${PERF}?date_from=2025-01-01&date_to=2026-01-02&group_by=day`), 'querystring.date_from');
    expectStatus(await ten.admin.get(`${PERF}?date_from=2025-01-01&date_to=2025-12-31&group_by=day`), 200);
    expectInvalid(await ten.admin.get(`${PERF}?date_from=2026-01-02&date_to=2026-01-01`), 'querystring.date_from');
    expectInvalid(await ten.admin.get(`${PERF}?date_from=2026-01-02T00:00:00Z&date_to=2026-01-02T00:00:00Z`), 'querystring.date_from');
    expectInvalid(await ten.admin.get(`${PERF}?group_by=year`), 'querystring.group_by');
    expectInvalid(await ten.admin.get(`${PERF}?date_from=yesterday`), 'querystring.date_from');
    expectInvalid(await ten.admin.get(`${PERF}?rule_ids=nope`), 'querystring.rule_ids.0');
    expectInvalid(await ten.admin.get(`${PERF}?metrics=all`), 'querystring.metrics');
    expectError(await anonymous(t).get(PERF), 401, 'UNAUTHORIZED');
    expectError(await tech.get(PERF), 403, 'FORBIDDEN');
  });
});

describe('automation meta', () => {
  it('publishes the trigger, operator and action catalogs with the schemas validation uses', async () => {
    const ten = await makeTenant(t);
    const res = await ten.admin.get('/api/v1/automation/meta');
    expectStatus(res, 200);
    const meta = res.json().data;
    expect(meta.trigger_types.map((x: { type: string }) => x.type)).toEqual(['event', 'schedule', 'manual', 'inbound_webhook']);
    const schedule = meta.trigger_types.find((x: { type: string }) => x.type === 'schedule');
    expect(schedule.config_schema).toMatchObject({ type: 'object', required: ['cron'], additionalProperties: false, properties: { cron: { type: 'string' }, timezone: { default: 'UTC' } } });
    expect(meta.condition_operators.map((x: { operator: string }) => x.operator)).toEqual([...CONDITION_OPERATORS]);
    expect(meta.condition_operators.find((x: { operator: string }) => x.operator === 'in').value).toBe('array');
    expect(meta.condition_operators.find((x: { operator: string }) => x.operator === 'exists').value).toBe('none');
    expect(meta.condition_operators.find((x: { operator: string }) => x.operator === 'regex_match').value).toBe('regex');
    expect(meta.condition_operators.find((x: { operator: string }) => x.operator === 'equals').value).toBe('any');
    expect(meta.action_types.map((x: { type: string }) => x.type)).toEqual(ACTION_DEFINITIONS.map((d) => d.type));
    const update = meta.action_types.find((x: { type: string }) => x.type === 'update_ticket');
    expect(update).toMatchObject({ permissions: ['ticket:update'], transactional: true, config_schema: { type: 'object', properties: { ticket_id: { format: 'uuid' } } } });
    expect(JSON.parse(JSON.stringify(ACTION_DEFINITIONS[0]!.config))).toEqual(meta.action_types[0].config_schema);
    expect(meta).toMatchObject({
      rule_statuses: ['draft', 'active', 'inactive', 'error'],
      execution_statuses: ['pending', 'running', 'completed', 'failed', 'cancelled', 'timeout', 'skipped'],
      priority_levels: ['low', 'normal', 'high', 'critical'],
      placeholders: { syntax: '{{data.ticket_id}}', roots: ['event_type', 'data', 'changes', 'headers', 'trigger'] },
      current: { record_types: ['ticket', 'project'] },
    });
    const event = meta.trigger_types.find((x: { type: string }) => x.type === 'event');
    expect(event.config_schema.properties.delay_minutes).toMatchObject({ type: 'integer', minimum: 1, maximum: 10080 });
    expect((await ten.admin.get('/api/v1/automation/meta', { 'if-none-match': res.headers.etag as string })).statusCode).toBe(304);
    expectError(await anonymous(t).get('/api/v1/automation/meta'), 401, 'UNAUTHORIZED');
    expectError(await tech.get('/api/v1/automation/meta'), 403, 'FORBIDDEN');
    expectInvalid(await ten.admin.get('/api/v1/automation/meta?x=1'), 'querystring.x');
  });
});
