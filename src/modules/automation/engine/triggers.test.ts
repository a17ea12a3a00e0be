import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/harness.ts';
import { makeTenant, makeUser, type TenantFixture } from '../../../../test/factories.ts';
import { expectStatus, makeClient } from '../../../../test/client-factories.ts';
import { deliveryRows, makeInbound, receive, signed } from '../../../../test/inbound-factories.ts';
import { makeTicket, prioritiesOf } from '../../../../test/ticket-factories.ts';
import { effectsOf, engineParts, executionsOf, FakeActions, FakeMailer, ManualWorker, seedRule } from '../../../../test/automation-engine-kit.ts';

let t: TestApp;
let ten: TenantFixture;
beforeAll(async () => {
  t = await buildTestApp();
  ten = await makeTenant(t);
});
afterAll(async () => t.close());

describe('inbound_webhook trigger', () => {
  it('a delivery to a workflow webhook starts the rules naming it (and the one its workflow_id names) whose conditions match', async () => {
    const fakes = new FakeActions();
    const worker = new ManualWorker(t, engineParts(t, fakes.options()));
    const hook = await makeInbound(ten.admin);
    const byHook = await seedRule(t, ten.tenant, {
      created_by: ten.adminUserId, trigger_type: 'inbound_webhook', trigger_config: { inbound_webhook_id: hook.inbound_webhook_id },
      conditions: [{ field: 'data.severity', operator: 'in', value: ['high', 'critical'] }, { field: 'headers.x-source', operator: 'equals', value: 'monitor' }],
      actions: [{ type: 'record', config: { incident: '{{data.incident.id}}', source: '{{headers.x-source}}' } }],
    });
    const notMatching = await seedRule(t, ten.tenant, {
      created_by: ten.adminUserId, trigger_type: 'inbound_webhook', trigger_config: { inbound_webhook_id: hook.inbound_webhook_id },
      conditions: [{ field: 'data.severity', operator: 'equals', value: 'low' }],
    });
    const otherHook = await seedRule(t, ten.tenant, { created_by: ten.adminUserId, trigger_type: 'inbound_webhook', trigger_config: { inbound_webhook_id: (await makeInbound(ten.admin)).inbound_webhook_id } });
    const named = await seedRule(t, ten.tenant, { created_by: ten.adminUserId, trigger_type: 'manual', actions: [{ type: 'record', config: { named: true } }] });
    await t.database.db.updateTable('inbound_webhooks').set({ handler_config: JSON.stringify({ workflow_id: named }) }).where('inbound_webhook_id', '=', hook.inbound_webhook_id).execute();

    const s = signed(hook.secret!, { severity: 'high', incident: { id: 'INC-7' } });
    const res = await receive(t, ten.slug, hook.slug, { ...s, headers: { ...s.headers, 'x-source': 'monitor' } });
    expectStatus(res, 202);
    const deliveryId = res.json().delivery_id;
    await worker.drain();

    const [execution] = await executionsOf(t, ten.tenant, byHook);
    expect(execution).toMatchObject({ trigger_type: 'inbound_webhook', trigger_key: `inbound:${deliveryId}`, status: 'completed' });
    expect(execution!.trigger_data).toMatchObject({ event_type: 'inbound_webhook.received', data: { severity: 'high' }, headers: { 'x-source': 'monitor' }, trigger: { delivery_id: deliveryId, inbound_webhook_id: hook.inbound_webhook_id } });
    expect((await effectsOf(t, ten.tenant, execution!.execution_id)).map((e) => e.data)).toEqual([{ incident: 'INC-7', source: 'monitor', action_index: 0 }]);
    const [namedExecution] = await executionsOf(t, ten.tenant, named);
    expect(namedExecution).toMatchObject({ trigger_key: `inbound:${deliveryId}`, status: 'completed' });
    expect(await executionsOf(t, ten.tenant, notMatching)).toEqual([]);
    expect(await executionsOf(t, ten.tenant, otherHook)).toEqual([]);

    const [row] = await deliveryRows(t, ten.tenant, hook.inbound_webhook_id);
    expect(row).toMatchObject({ dispatch_status: 'queued', response_status: 202 });
    const outcome = JSON.parse(row!.handler_outcome!);
    expect(outcome).toMatchObject({ handler: 'workflow', workflow_id: named, queued: true });
    expect(outcome.executions).toHaveLength(2);
    expect(outcome.executions).toEqual(expect.arrayContaining([
      { rule_id: byHook, execution_id: execution!.execution_id },
      { rule_id: named, execution_id: namedExecution!.execution_id },
    ]));
  });

  it('the test endpoint\'s dry run starts nothing and reports the rules that would run', async () => {
    const hook = await makeInbound(ten.admin);
    const ruleId = await seedRule(t, ten.tenant, { created_by: ten.adminUserId, trigger_type: 'inbound_webhook', trigger_config: { inbound_webhook_id: hook.inbound_webhook_id } });
    const res = await ten.admin.post(`/api/v1/inbound-webhooks/${hook.inbound_webhook_id}/test`, { body: { a: 1 }, dry_run: true });
    expect(res.statusCode, res.body).toBeLessThan(300);
    expect(await executionsOf(t, ten.tenant, ruleId)).toEqual([]);
    const [row] = await deliveryRows(t, ten.tenant, hook.inbound_webhook_id);
    expect(JSON.parse(row!.handler_outcome!)).toMatchObject({ dry_run: true, rule_ids: [ruleId], executions: [] });
  });
});

describe('with the real actions', () => {
  it('"a high-priority ticket for client X: assign it to the on-call team and e-mail the manager" runs once per ticket', async () => {
    const mailer = new FakeMailer();
    const worker = new ManualWorker(t, engineParts(t, {}, mailer));
    const onCall = await makeUser(t, ten.tenant, { role: 'Technician' });
    const team = await ten.admin.post('/api/v1/teams', { team_name: 'On call', member_ids: [onCall.userId] });
    expect(team.statusCode, team.body).toBe(201);
    const onCallTeam = team.json().data.team_id as string;
    const client = await makeClient(ten.admin);
    const otherClient = await makeClient(ten.admin);
    const priorities = await prioritiesOf(ten.admin);
    const created = await ten.admin.post('/api/v1/automation/rules', {
      name: 'Escalate high priority for the key client',
      status: 'active',
      trigger_type: 'event',
      trigger_config: { event_type: 'ticket.created' },
      conditions: [
        { field: 'data.priority_name', operator: 'equals', value: 'High' },
        { field: 'data.client_id', operator: 'equals', value: client.client_id },
      ],
      actions: [
        { type: 'update_ticket', config: { ticket_id: '{{data.ticket_id}}', assigned_team_id: onCallTeam, assigned_to: onCall.userId } },
        { type: 'add_ticket_comment', config: { ticket_id: '{{data.ticket_id}}', comment_text: 'Escalated automatically ({{data.priority_name}})', is_internal: true } },
        { type: 'send_email', config: { to: ['manager@example.test'], subject: 'High-priority ticket {{data.ticket_number}}', body: '{{data.title}} for {{data.client_name}}' } },
      ],
    });
    expect(created.statusCode, created.body).toBe(201);
    const ruleId = created.json().data.rule_id;

    const hot = await makeTicket(ten.admin, client.client_id, { title: 'Server down', priority_id: priorities.High!.priority_id });
    await makeTicket(ten.admin, client.client_id, { title: 'Typo', priority_id: priorities.Low!.priority_id });
    await makeTicket(ten.admin, otherClient.client_id, { title: 'Other client', priority_id: priorities.High!.priority_id });
    await worker.drain();
    await worker.drain();

    const executions = await executionsOf(t, ten.tenant, ruleId);
    expect(executions.map((e) => [e.status, e.actions_successful, e.error_message])).toEqual([['completed', 3, null]]);
    const ticket = (await ten.admin.get(`/api/v1/tickets/${hot.ticket_id}`)).json().data;
    expect([ticket.assigned_team_id, ticket.assigned_to]).toEqual([onCallTeam, onCall.userId]);
    const comments = (await ten.admin.get(`/api/v1/tickets/${hot.ticket_id}/comments`)).json().data;
    expect(comments.map((c: { comment_text: string; is_internal: boolean }) => [c.comment_text, c.is_internal])).toEqual([['Escalated automatically (High)', true]]);
    expect(mailer.sent).toHaveLength(1);
    expect(mailer.sent[0]).toMatchObject({ to: ['manager@example.test'], subject: `High-priority ticket ${hot.ticket_number}` });

    // The ticket.updated / comment events the actions caused carry the cause and do not re-trigger the rule.
    const caused = await t.database.db.selectFrom('events').select(['event_type', 'cause']).where('tenant', '=', ten.tenant).where('aggregate_id', '=', hot.ticket_id).where('event_type', '<>', 'ticket.created').execute();
    expect(caused.length).toBeGreaterThan(0);
    for (const e of caused) expect(e.cause).toMatchObject({ execution_id: executions[0]!.execution_id, rule_ids: [ruleId], depth: 1 });

    const detail = (await ten.admin.get(`/api/v1/automation/executions/${executions[0]!.execution_id}`)).json().data;
    expect(detail.steps.map((s: { action_type: string; status: string }) => [s.action_type, s.status])).toEqual([['update_ticket', 'completed'], ['add_ticket_comment', 'completed'], ['send_email', 'completed']]);
    expect(detail.logs.filter((l: { message: string }) => / completed in \d+ ms$/.test(l.message))).toHaveLength(3);
  });
});
