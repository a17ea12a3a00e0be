import { randomUUID } from 'node:crypto';
import type { Transaction } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../config.ts';
import { bodyChecker } from '../../../platform/actions/support.ts';
import type { Actor } from '../../../platform/auth/context.ts';
import { withTransaction } from '../../../platform/db/executor.ts';
import type { DB } from '../../../platform/db/schema.ts';
import { withEventCause } from '../../../platform/events/cause.ts';
import type { Mailer } from '../../../platform/mail/mailer.ts';
import { buildTestApp, engine, TEST_SECRET_KEY, type TestApp } from '../../../../test/harness.ts';
import { makeTenant, makeUser, unique, type TenantFixture } from '../../../../test/factories.ts';
import { eventsOf, expectStatus, makeClient, randomId } from '../../../../test/client-factories.ts';
import { defaultBoard, makeTicket, prioritiesOf } from '../../../../test/ticket-factories.ts';
import { makeProjectTree } from '../../../../test/project-factories.ts';
import { makeAsset } from '../../../../test/asset-factories.ts';
import { LOOPBACK, Receiver } from '../../../../test/webhooks-kit.ts';
import { loadOwnerActor } from '../../../platform/auth/owner-actor.ts';
import type { ActionRunContext, ActionRunner } from '../automation.types.ts';
import { ACTION_DEFINITIONS, actionDefinition, CallUrlConfig, UpdateTicketConfig } from './actions.catalog.ts';
import { createActionRunners } from './actions.runners.ts';

let t: TestApp;
let fx: TenantFixture;
let owner: Actor;
let runners: Record<string, ActionRunner>;
const mailer: Mailer = { send: async () => undefined, close: async () => undefined };
const config = loadConfig({ PSA_SECRET_KEY: TEST_SECRET_KEY });

beforeAll(async () => {
  t = await buildTestApp();
  fx = await makeTenant(t);
  owner = (await actorOf(fx.tenant, fx.adminUserId))!;
  runners = createActionRunners({ db: t.database.db, mailer, secretBox: t.app.secretBox, config });
});
afterAll(async () => {
  await t.close();
});

const actorOf = (tenant: string, userId: string) => loadOwnerActor(t.database.db, tenant, userId, randomUUID());

function ctxOf(actor: Actor): ActionRunContext {
  const executionId = randomUUID();
  return { actor, executionId, ruleId: randomUUID(), actionIndex: 0, idempotencyKey: `${executionId}:0`, signal: new AbortController().signal, signingSecret: 'secret' };
}

/** Runs an action in its own transaction, as the engine's step does. */
const run = (type: string, cfg: Record<string, unknown>, actor: Actor = owner) =>
  withTransaction(t.database.db, (trx) => runners[type]!(ctxOf(actor), cfg, trx));

/** Event types and the keys of each event's data and changes: what a consumer relies on. */
async function shapes(tenant: string, aggregateId: string) {
  return (await eventsOf(t, tenant, aggregateId)).map((e) => ({
    type: e.event_type,
    data: Object.keys((e.payload.data ?? {}) as object).sort(),
    changes: Object.keys((e.payload.changes ?? {}) as object).sort(),
  }));
}

async function technician(): Promise<Actor> {
  const { userId } = await makeUser(t, fx.tenant, { role: 'Technician' });
  return (await actorOf(fx.tenant, userId))!;
}

describe(`automation action catalog (${engine})`, () => {
  it('has a runner for every action type, and closed config schemas', () => {
    expect(Object.keys(runners).sort()).toEqual(ACTION_DEFINITIONS.map((d) => d.type).sort());
    expect(ACTION_DEFINITIONS.map((d) => d.type).sort()).toEqual([
      'add_ticket_comment', 'call_url', 'create_project_task', 'create_ticket', 'send_email', 'set_storage_record', 'update_asset', 'update_ticket',
    ]);
    for (const def of ACTION_DEFINITIONS) {
      expect((def.config as { additionalProperties?: unknown }).additionalProperties, def.type).toBe(false);
      expect(def.permissions.length, def.type).toBeGreaterThan(0);
      expect(() => bodyChecker(def.config)({ ...(def.type === 'create_ticket' ? { title: 'x', client_id: randomId() } : {}), not_a_field: 1 })).toThrow();
    }
    expect(actionDefinition('update_ticket')?.transactional).toBe(true);
    expect(actionDefinition('call_url')?.transactional).toBe(false);
    expect(actionDefinition('run_sql')).toBeUndefined();
  });

  it('config schemas carry the REST bodies\' field names and bounds', () => {
    const check = bodyChecker(UpdateTicketConfig);
    expect(() => check({ ticket_id: randomId() })).toThrow(); // nothing to change
    expect(() => check({ ticket_id: 'nope', status_id: randomId() })).toThrow();
    expect(() => check({ ticket_id: randomId(), title: 'x'.repeat(256) })).toThrow();
    expect(check({ ticket_id: randomId(), status_id: randomId(), priority_id: randomId(), assigned_to: null, assigned_team_id: null, board_id: randomId() })).toBeTruthy();
    const call = bodyChecker(CallUrlConfig);
    for (const name of ['Host', 'HOST', 'content-length', 'X-Psa-Thing', 'x-service-signature', 'Idempotency-Key', 'bad name', 'Content-Type']) {
      expect(() => call({ url: 'https://example.com/', headers: { [name]: 'v' } }), name).toThrow();
    }
    expect(() => call({ url: 'https://example.com/', headers: { 'X-Custom': 'a\r\nb' } })).toThrow();
    expect(() => call({ url: 'https://example.com/', headers: Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`X-H${i}`, 'v'])) })).toThrow();
    expect(() => call({ url: 'https://example.com/', method: 'DELETE' })).toThrow();
    expect(call({ url: 'https://example.com/', method: 'PATCH', headers: { 'X-Custom': 'v', Authorization: 'Bearer x' }, body: { a: [1] } })).toBeTruthy();
  });
});

describe(`transactional actions (${engine})`, () => {
  it('create_ticket creates the ticket the REST call would, with the same events', async () => {
    const client = await makeClient(fx.admin);
    const title = unique('Auto ticket');
    const result = await run('create_ticket', { title, client_id: client.client_id, tags: ['auto'], description: 'from a rule' });
    expect(result).toEqual({ ticket_id: expect.any(String), ticket_number: expect.stringMatching(/^T-\d{6}$/) });
    const res = await fx.admin.get(`/api/v1/tickets/${result.ticket_id as string}`);
    expectStatus(res, 200);
    expect(res.json().data).toMatchObject({ title, client_id: client.client_id, tags: ['auto'], description: 'from a rule', ticket_number: result.ticket_number });
    const rest = await makeTicket(fx.admin, client.client_id, { tags: ['auto'], description: 'by hand' });
    expect(await shapes(fx.tenant, result.ticket_id as string)).toEqual(await shapes(fx.tenant, rest.ticket_id));
    const [created] = await shapes(fx.tenant, rest.ticket_id);
    expect(created).toMatchObject({ type: 'ticket.created', data: expect.arrayContaining(['ticket_id', 'title', 'client_id', 'status_id']) });
    expect(await shapes(fx.tenant, rest.ticket_id)).toHaveLength(1);
  });

  it('create_ticket refuses what POST /tickets refuses (unknown client, no client, bad field)', async () => {
    await expect(run('create_ticket', { title: 'x', client_id: randomId() })).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    await expect(run('create_ticket', { title: 'x' })).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    await expect(run('create_ticket', { title: '   ', client_id: randomId() })).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    await expect(run('create_ticket', { title: 'x', client_id: randomId(), sql: 'drop table' })).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
  });

  it('a rolled-back step leaves no trace: no ticket, no event', async () => {
    const client = await makeClient(fx.admin);
    let ticketId = '';
    await expect(
      withTransaction(t.database.db, async (trx: Transaction<DB>) => {
        const out = await runners.create_ticket!(ctxOf(owner), { title: unique('Crash'), client_id: client.client_id }, trx);
        ticketId = out.ticket_id as string;
        throw new Error('worker killed before the step was recorded');
      }),
    ).rejects.toThrow('worker killed');
    expect(ticketId).not.toBe('');
    expectStatus(await fx.admin.get(`/api/v1/tickets/${ticketId}`), 404);
    expect(await eventsOf(t, fx.tenant, ticketId)).toEqual([]);
  });

  it('events of an action record the execution that caused them', async () => {
    const client = await makeClient(fx.admin);
    const cause = { execution_id: randomUUID(), rule_ids: [randomUUID()], depth: 1 };
    const out = await withEventCause(cause, () => run('create_ticket', { title: unique('Caused'), client_id: client.client_id }));
    const row = await t.database.db.selectFrom('events').select('cause').where('tenant', '=', fx.tenant).where('aggregate_id', '=', out.ticket_id as string).executeTakeFirstOrThrow();
    const stored = typeof row.cause === 'string' ? JSON.parse(row.cause) as unknown : row.cause;
    expect(stored).toEqual(cause);
  });

  it('update_ticket changes status, priority, assignee and board with the events of PUT /tickets/{id}', async () => {
    const client = await makeClient(fx.admin);
    const { statuses } = await defaultBoard(fx.admin);
    const priorities = await prioritiesOf(fx.admin);
    const change = { status_id: statuses['In Progress']!.status_id, priority_id: priorities.High!.priority_id, assigned_to: fx.adminUserId };
    const viaAction = await makeTicket(fx.admin, client.client_id);
    const viaRest = await makeTicket(fx.admin, client.client_id);

    const result = await run('update_ticket', { ticket_id: viaAction.ticket_id, ...change });
    expect(result).toMatchObject({ ticket_id: viaAction.ticket_id, ticket_number: viaAction.ticket_number });
    expectStatus(await fx.admin.put(`/api/v1/tickets/${viaRest.ticket_id}`, change), 200);

    const after = (await fx.admin.get(`/api/v1/tickets/${viaAction.ticket_id}`)).json().data as Record<string, unknown>;
    expect(after).toMatchObject(change);
    const shapesOfAction = await shapes(fx.tenant, viaAction.ticket_id);
    expect(shapesOfAction).toEqual(await shapes(fx.tenant, viaRest.ticket_id));
    expect(shapesOfAction.map((e) => e.type)).toEqual(expect.arrayContaining(['ticket.updated', 'ticket.status_changed', 'ticket.assigned']));

    // The same values again change nothing and emit nothing (like the REST call).
    const before = (await eventsOf(t, fx.tenant, viaAction.ticket_id)).length;
    await run('update_ticket', { ticket_id: viaAction.ticket_id, ...change });
    expect(await eventsOf(t, fx.tenant, viaAction.ticket_id)).toHaveLength(before);

    // A board change moves the ticket like PUT does (with a status of that board).
    const board = (await fx.admin.post('/api/v1/boards', { board_name: unique('Board') })).json().data as { board_id: string };
    const boardStatuses = (await fx.admin.get(`/api/v1/boards/${board.board_id}/statuses?limit=100`)).json().data as { status_id: string }[];
    await run('update_ticket', { ticket_id: viaAction.ticket_id, board_id: board.board_id, status_id: boardStatuses[0]!.status_id });
    expect((await fx.admin.get(`/api/v1/tickets/${viaAction.ticket_id}`)).json().data).toMatchObject({ board_id: board.board_id });
  });

  it('update_ticket: unknown ticket, another tenant\'s ticket, bad references and an empty change are refused', async () => {
    await expect(run('update_ticket', { ticket_id: randomId(), status_id: randomId() })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    const other = await makeTenant(t);
    const foreign = await makeTicket(other.admin, (await makeClient(other.admin)).client_id);
    await expect(run('update_ticket', { ticket_id: foreign.ticket_id, title: 'mine now' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect((await other.admin.get(`/api/v1/tickets/${foreign.ticket_id}`)).json().data.title).toBe(foreign.title);
    const mine = await makeTicket(fx.admin, (await makeClient(fx.admin)).client_id);
    await expect(run('update_ticket', { ticket_id: mine.ticket_id, priority_id: randomId() })).rejects.toMatchObject({ statusCode: 400 });
    await expect(run('update_ticket', { ticket_id: mine.ticket_id })).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
  });

  it('add_ticket_comment adds the comment and emits ticket.comment.added', async () => {
    const ticket = await makeTicket(fx.admin, (await makeClient(fx.admin)).client_id);
    const result = await run('add_ticket_comment', { ticket_id: ticket.ticket_id, comment_text: 'Escalated by a rule', is_internal: true });
    expect(result).toEqual({ ticket_id: ticket.ticket_id, comment_id: expect.any(String) });
    const res = await fx.admin.get(`/api/v1/tickets/${ticket.ticket_id}/comments/${result.comment_id as string}`);
    expectStatus(res, 200);
    expect(res.json().data).toMatchObject({ comment_text: 'Escalated by a rule', is_internal: true, author_type: 'internal', author_user_id: fx.adminUserId });
    const rest = await makeTicket(fx.admin, (await makeClient(fx.admin)).client_id);
    expectStatus(await fx.admin.post(`/api/v1/tickets/${rest.ticket_id}/comments`, { comment_text: 'by hand', is_internal: true }), 201);
    expect(await shapes(fx.tenant, ticket.ticket_id)).toEqual(await shapes(fx.tenant, rest.ticket_id));
    expect((await shapes(fx.tenant, ticket.ticket_id)).map((e) => e.type)).toContain('ticket.comment.added');
    await expect(run('add_ticket_comment', { ticket_id: ticket.ticket_id, comment_text: '  ' })).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    await expect(run('add_ticket_comment', { ticket_id: randomId(), comment_text: 'x' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('create_project_task creates the task in the phase with project.task.created', async () => {
    const { project, phase } = await makeProjectTree(fx.admin);
    const result = await run('create_project_task', { project_id: project.project_id, phase_id: phase.phase_id, task_name: 'Follow up', estimated_hours: 1.5 });
    expect(result).toEqual({ project_id: project.project_id, phase_id: phase.phase_id, task_id: expect.any(String) });
    const res = await fx.admin.get(`/api/v1/projects/tasks/${result.task_id as string}`);
    expectStatus(res, 200);
    expect(res.json().data).toMatchObject({ task_name: 'Follow up', estimated_hours: 1.5, phase_id: phase.phase_id, position: 2 });
    const rest = (await fx.admin.post(`/api/v1/projects/${project.project_id}/phases/${phase.phase_id}/tasks`, { task_name: 'By hand', estimated_hours: 1.5 })).json().data as { task_id: string };
    expect(await shapes(fx.tenant, result.task_id as string)).toEqual(await shapes(fx.tenant, rest.task_id));
    expect((await shapes(fx.tenant, result.task_id as string)).map((e) => e.type)).toEqual(['project.task.created']);
    const otherTree = await makeProjectTree(fx.admin);
    await expect(run('create_project_task', { project_id: project.project_id, phase_id: otherTree.phase.phase_id, task_name: 'x' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(run('create_project_task', { project_id: randomId(), phase_id: phase.phase_id, task_name: 'x' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('update_asset changes the asset with asset.updated', async () => {
    const asset = await makeAsset(fx.admin);
    const result = await run('update_asset', { asset_id: asset.asset_id, status: 'in_repair', location: 'Bench 2' });
    expect(result).toMatchObject({ asset_id: asset.asset_id });
    const res = await fx.admin.get(`/api/v1/assets/${asset.asset_id}`);
    expect(res.json().data).toMatchObject({ status: 'in_repair', location: 'Bench 2' });
    const rest = await makeAsset(fx.admin);
    expectStatus(await fx.admin.put(`/api/v1/assets/${rest.asset_id}`, { status: 'in_repair', location: 'Bench 2' }), 200);
    expect(await shapes(fx.tenant, asset.asset_id)).toEqual(await shapes(fx.tenant, rest.asset_id));
    expect((await shapes(fx.tenant, asset.asset_id)).map((e) => e.type)).toEqual(['asset.created', 'asset.updated']);
    await expect(run('update_asset', { asset_id: asset.asset_id, status: 'melted' })).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    await expect(run('update_asset', { asset_id: randomId(), status: 'active' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('set_storage_record creates then replaces a record, honouring ifRevision and the key rules', async () => {
    const key = unique('k');
    const first = await run('set_storage_record', { namespace: 'automation', key, value: { count: 1 }, ttlSeconds: 3600 });
    expect(first).toEqual({ namespace: 'automation', key, revision: 1, created: true });
    const second = await run('set_storage_record', { namespace: 'automation', key, value: { count: 2 }, ifRevision: 1 });
    expect(second).toEqual({ namespace: 'automation', key, revision: 2, created: false });
    const res = await fx.admin.get(`/api/v1/storage/namespaces/automation/records/${key}`);
    expectStatus(res, 200);
    expect(res.json().data).toMatchObject({ value: { count: 2 }, revision: 2, ttlExpiresAt: null });
    await expect(run('set_storage_record', { namespace: 'automation', key, value: 3, ifRevision: 1 })).rejects.toMatchObject({ code: 'REVISION_MISMATCH' });
    await expect(run('set_storage_record', { namespace: 'Bad NS', key, value: 3 })).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    await expect(run('set_storage_record', { namespace: 'automation', key: 'a/b', value: 3 })).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    await expect(run('set_storage_record', { namespace: 'automation', key })).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
  });

  it('runs only with the owner\'s current permissions', async () => {
    const tech = await technician(); // ticket:create/update, asset:update; no storage:write, no automation:*
    await expect(run('set_storage_record', { namespace: 'automation', key: unique('k'), value: 1 }, tech)).rejects.toMatchObject({ code: 'FORBIDDEN', details: { required: ['storage:write'] } });
    await expect(runners.send_email!(ctxOf(tech), { to: ['a@example.com'], subject: 's', body: 'b' }, null)).rejects.toMatchObject({ code: 'FORBIDDEN' });
    const client = await makeClient(fx.admin);
    expect(await run('create_ticket', { title: unique('Tech'), client_id: client.client_id }, tech)).toMatchObject({ ticket_id: expect.any(String) });
    const finance = (await actorOf(fx.tenant, (await makeUser(t, fx.tenant, { role: 'Finance' })).userId))!;
    await expect(run('create_ticket', { title: 'x', client_id: client.client_id }, finance)).rejects.toMatchObject({ code: 'FORBIDDEN' });
  });

  it('a transactional action refuses to run without the step\'s transaction', async () => {
    await expect(runners.create_ticket!(ctxOf(owner), { title: 'x', client_id: randomId() }, null)).rejects.toThrow(/transactional/);
  });
});

describe(`external actions wired by createActionRunners (${engine})`, () => {
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await new Receiver().listen();
  });
  afterAll(async () => {
    await receiver.close();
  });

  it('without a client of its own, call_url uses one configured from PSA_WEBHOOK_ALLOW_PRIVATE', async () => {
    const guarded = createActionRunners({ db: t.database.db, mailer, config: loadConfig({ PSA_SECRET_KEY: TEST_SECRET_KEY }) });
    await expect(guarded.call_url!(ctxOf(owner), { url: receiver.url, body: { a: 1 } }, null)).rejects.toMatchObject({ code: 'UNPROCESSABLE', details: { reason: 'unsafe_target' } });
    expect(receiver.receipts).toHaveLength(0);
    const allowed = createActionRunners({ db: t.database.db, mailer, config: loadConfig({ PSA_SECRET_KEY: TEST_SECRET_KEY, PSA_WEBHOOK_ALLOW_PRIVATE: LOOPBACK.join(',') }) });
    expect(await allowed.call_url!(ctxOf(owner), { url: receiver.url, body: { a: 1 } }, null)).toMatchObject({ status: 200 });
    expect(receiver.receipts).toHaveLength(1);
  });
});
