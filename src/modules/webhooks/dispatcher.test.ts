import { afterEach, beforeAll, afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildTestApp, engine, TEST_SECRET_KEY, type TestApp } from '../../../test/harness.ts';
import { makeTenant } from '../../../test/factories.ts';
import { randomId } from '../../../test/client-factories.ts';
import {
  Dispatchers,
  Receiver,
  TestClock,
  createWebhook,
  deliveriesOf,
  drain,
  emitEvent,
  fanOut,
  ticketData,
  verifySignature,
  webhookRow,
} from '../../../test/webhooks-kit.ts';
import { loadConfig } from '../../config.ts';
import { buildWorkerParts } from '../../modules.ts';
import { TICKET_DATA_FIELDS } from '../tickets/index.ts';
import { OutboxRelay } from '../../platform/events/relay.ts';
import { startWorker } from '../../platform/events/worker.ts';
import { createMailer } from '../../platform/mail/mailer.ts';
import { webhookFanOut } from './fanout.ts';

let t: TestApp;
let receiver: Receiver;
let dispatchers: Dispatchers;

beforeAll(async () => {
  t = await buildTestApp({ env: { PSA_WEBHOOK_ALLOW_PRIVATE: '127.0.0.1/32' } });
});
afterAll(async () => t.close());

async function setup() {
  receiver = await new Receiver().listen();
  dispatchers = new Dispatchers(t);
  const fixture = await makeTenant(t);
  return { ...fixture, clock: new TestClock() };
}

afterEach(async () => {
  await dispatchers?.close();
  await receiver?.close();
  // Each test's attempts stay its own: no later test's clock may reach them.
  await t.database.db.deleteFrom('webhooks').execute();
});

const MIN = 60_000;
const HOUR = 60 * MIN;

describe('delivery', () => {
  it('posts the envelope once, signed (checked with the receiver’s own HMAC), with every header; records the attempt', async () => {
    const { admin, tenant, clock } = await setup();
    const hook = await createWebhook(admin, { url: receiver.url, custom_headers: { 'X-Api-Key': 'receiver-credential-42' } });
    const data = ticketData();
    const eventId = await emitEvent(t, tenant, 'ticket.updated', { data, changes: { title: { previous: 'Old', new: data.title } } });
    await fanOut(t, clock.now);
    const d = dispatchers.make({ now: clock.now });
    expect(await d.runOnce()).toBe(1);

    expect(receiver.receipts).toHaveLength(1);
    const [r] = receiver.receipts;
    expect(verifySignature(hook.secret, r!.headers['x-service-signature'], r!.body)).toBe(true);
    expect(verifySignature('wrong-secret', r!.headers['x-service-signature'], r!.body)).toBe(false);
    expect(verifySignature(hook.secret, r!.headers['x-service-signature'], `${r!.body} `)).toBe(false);
    expect(r!.headers['x-service-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    const [row] = await deliveriesOf(t, tenant, hook.webhook_id);
    expect(r!.headers).toMatchObject({
      'content-type': 'application/json',
      'user-agent': 'psa-webhooks/1',
      'x-service-event-id': eventId,
      'x-service-event-type': 'ticket.updated',
      'x-service-webhook-id': hook.webhook_id,
      'x-service-delivery-id': row!.delivery_id,
      'x-service-delivery-attempt': '1',
      'x-api-key': 'receiver-credential-42',
    });

    const envelope = JSON.parse(r!.body);
    expect(Object.keys(envelope)).toEqual(['event_id', 'event_type', 'occurred_at', 'tenant_id', 'data', 'changes']);
    const outbox = await t.database.db.selectFrom('events').select('occurred_at').where('tenant', '=', tenant).where('event_id', '=', eventId).executeTakeFirstOrThrow();
    expect(envelope).toMatchObject({ event_id: eventId, event_type: 'ticket.updated', occurred_at: outbox.occurred_at.toISOString(), tenant_id: tenant });
    expect(envelope.occurred_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(Object.keys(envelope.data)).toEqual([...TICKET_DATA_FIELDS]);
    expect(envelope.data).toEqual(data);
    expect(envelope.changes).toEqual({ title: { previous: 'Old', new: data.title } });

    expect(row).toMatchObject({ status: 'delivered', attempt: 1, response_status: 200, response_body: 'ok', error: null, is_test: false, next_attempt_at: null, claim_token: null });
    expect(row!.attempted_at).toEqual(clock.now());
    expect(row!.duration_ms).toBeGreaterThanOrEqual(0);
    expect(row!.request_body).toBe(r!.body);
    // Neither the signature nor a header value is stored.
    expect(JSON.stringify(row)).not.toContain('receiver-credential-42');
    expect(JSON.stringify(row)).not.toContain(String(r!.headers['x-service-signature']).slice(-20));
    const webhook = await webhookRow(t, tenant, hook.webhook_id);
    expect(webhook.last_success_at).toEqual(clock.now());
    expect(webhook.failing_since).toBeNull();
    expect(await d.runOnce()).toBe(0);
  });

  it('retries after 1 min, 5 min, 30 min, 2 h and 12 h (receiver fails five times, then answers 200)', async () => {
    const { admin, tenant, clock } = await setup();
    receiver.reply = (_r, n) => (n <= 5 ? { status: 500, body: 'down' } : { status: 200, body: 'finally' });
    const hook = await createWebhook(admin, { url: receiver.url });
    const eventId = await emitEvent(t, tenant, 'ticket.updated', { data: ticketData() });
    await fanOut(t, clock.now);
    const d = dispatchers.make({ now: clock.now });
    const delays = [1 * MIN, 5 * MIN, 30 * MIN, 2 * HOUR, 12 * HOUR];

    expect(await d.runOnce()).toBe(1);
    for (const [i, delay] of delays.entries()) {
      const rows = await deliveriesOf(t, tenant, hook.webhook_id);
      expect(rows).toHaveLength(i + 2);
      const failed = rows[i]!;
      const next = rows[i + 1]!;
      expect(failed).toMatchObject({ attempt: i + 1, status: 'retrying', response_status: 500, response_body: 'down', error: expect.stringContaining('HTTP 500') });
      expect(failed.next_attempt_at!.getTime()).toBe(clock.ms + delay);
      expect(next).toMatchObject({ attempt: i + 2, status: 'pending', event_id: eventId, request_body: failed.request_body });
      expect(next.next_attempt_at!.getTime()).toBe(clock.ms + delay);
      clock.advance(delay - 1);
      expect(await d.runOnce(), `attempt ${i + 2} is not due yet`).toBe(0);
      clock.advance(1);
      expect(await d.runOnce()).toBe(1);
    }
    const rows = await deliveriesOf(t, tenant, hook.webhook_id);
    expect(rows.map((r) => [r.attempt, r.status])).toEqual([[1, 'retrying'], [2, 'retrying'], [3, 'retrying'], [4, 'retrying'], [5, 'retrying'], [6, 'delivered']]);
    expect(receiver.receipts.map((r) => r.headers['x-service-delivery-attempt'])).toEqual(['1', '2', '3', '4', '5', '6']);
    expect(receiver.receipts.map((r) => r.headers['x-service-delivery-id'])).toEqual(rows.map((r) => r.delivery_id));
    expect(new Set(receiver.receipts.map((r) => r.body)).size).toBe(1);
    expect(new Set(receiver.receipts.map((r) => r.headers['x-service-event-id']))).toEqual(new Set([eventId]));
    for (const r of receiver.receipts) expect(verifySignature(hook.secret, r.headers['x-service-signature'], r.body)).toBe(true);
    const webhook = await webhookRow(t, tenant, hook.webhook_id);
    expect(webhook.failing_since).toBeNull();
    expect(webhook.last_success_at).toEqual(clock.now());
  });

  it('abandons the delivery when the sixth attempt fails; failing_since marks the first failure', async () => {
    const { admin, tenant, clock } = await setup();
    receiver.reply = () => ({ status: 503 });
    const hook = await createWebhook(admin, { url: receiver.url, event_types: ['ticket.created'] });
    await emitEvent(t, tenant, 'ticket.created', { data: ticketData() });
    await fanOut(t, clock.now);
    const started = clock.ms;
    const d = dispatchers.make({ now: clock.now });
    await d.runOnce();
    for (const delay of [1 * MIN, 5 * MIN, 30 * MIN, 2 * HOUR, 12 * HOUR]) {
      clock.advance(delay);
      expect(await d.runOnce()).toBe(1);
    }
    clock.advance(24 * HOUR - 1);
    expect(await d.runOnce()).toBe(0);
    const rows = await deliveriesOf(t, tenant, hook.webhook_id);
    expect(rows.map((r) => r.status)).toEqual(['retrying', 'retrying', 'retrying', 'retrying', 'retrying', 'abandoned']);
    expect(rows[5]).toMatchObject({ attempt: 6, next_attempt_at: null, response_status: 503 });
    expect(receiver.receipts).toHaveLength(6);
    const webhook = await webhookRow(t, tenant, hook.webhook_id);
    expect(webhook.failing_since!.getTime()).toBe(started);
    expect(webhook.last_success_at).toBeNull();
    // 14 h 36 min of failures: not yet 24 h, so still active.
    expect(webhook.is_active).toBe(true);
  });

  it('a 3xx is a failure: the redirect is not followed', async () => {
    const { admin, tenant, clock } = await setup();
    receiver.reply = (r) => (r.path === '/hook' ? { status: 302, headers: { location: `http://127.0.0.1:${receiver.port}/elsewhere` } } : { status: 200 });
    const hook = await createWebhook(admin, { url: receiver.url });
    await emitEvent(t, tenant, 'ticket.updated', { data: ticketData() });
    await fanOut(t, clock.now);
    await dispatchers.make({ now: clock.now }).runOnce();
    expect(receiver.receipts.map((r) => r.path)).toEqual(['/hook']);
    const [row, next] = await deliveriesOf(t, tenant, hook.webhook_id);
    expect(row).toMatchObject({ status: 'retrying', response_status: 302, error: expect.stringContaining('redirects are not followed') });
    expect(next).toMatchObject({ status: 'pending', attempt: 2 });
  });

  it('a timeout and a refused connection are failures, retried', async () => {
    const { admin, tenant, clock } = await setup();
    receiver.reply = () => 'hang';
    const slow = await createWebhook(admin, { url: receiver.url });
    const closed = await createWebhook(admin, { url: 'http://127.0.0.1:1/nothing-listens' });
    await emitEvent(t, tenant, 'ticket.updated', { data: ticketData() });
    await fanOut(t, clock.now);
    await dispatchers.make({ now: clock.now, timeoutMs: 300 }).runOnce();
    const [timedOut] = await deliveriesOf(t, tenant, slow.webhook_id);
    expect(timedOut).toMatchObject({ status: 'retrying', response_status: null, error: expect.stringMatching(/^timeout: /) });
    expect(timedOut!.next_attempt_at!.getTime()).toBe(clock.ms + MIN);
    const [refused] = await deliveriesOf(t, tenant, closed.webhook_id);
    expect(refused).toMatchObject({ status: 'retrying', error: expect.stringMatching(/^connection: /) });
    expect(await deliveriesOf(t, tenant, slow.webhook_id)).toHaveLength(2);
  });
});

describe('per-webhook rate limit', () => {
  it('sends what the bucket allows and postpones the rest (not an attempt, never dropped)', async () => {
    const { admin, tenant, clock } = await setup();
    const hook = await createWebhook(admin, { url: receiver.url, rate_limit_per_minute: 2 });
    clock.ms = Date.now(); // the bucket was filled when the webhook was created: start the clock after that
    for (let i = 0; i < 5; i++) await emitEvent(t, tenant, 'ticket.updated', { data: ticketData() });
    await fanOut(t, clock.now);
    const d = dispatchers.make({ now: clock.now });
    const start = clock.ms;
    expect(await d.runOnce()).toBe(5);
    expect(receiver.receipts).toHaveLength(2);
    let rows = await deliveriesOf(t, tenant, hook.webhook_id);
    expect(rows).toHaveLength(5);
    expect(rows.every((r) => r.attempt === 1)).toBe(true);
    const waiting = rows.filter((r) => r.status === 'pending');
    expect(waiting).toHaveLength(3);
    expect(waiting.every((r) => r.claim_token === null && r.attempted_at === null)).toBe(true);
    expect(waiting.map((r) => r.next_attempt_at!.getTime() - start).sort((a, b) => a - b)).toEqual([30_000, 60_000, 90_000]);
    expect(await d.runOnce()).toBe(0);

    clock.advance(30_000);
    expect(await d.runOnce()).toBe(1);
    expect(receiver.receipts).toHaveLength(3);
    for (let i = 0; i < 5 && receiver.receipts.length < 5; i++) {
      clock.advance(MIN);
      await drain(d);
    }
    rows = await deliveriesOf(t, tenant, hook.webhook_id);
    expect(rows.map((r) => [r.attempt, r.status])).toEqual(Array.from({ length: 5 }, () => [1, 'delivered']));
    expect([...receiver.perDelivery().values()]).toEqual([1, 1, 1, 1, 1]);
  });
});

describe('fan-out', () => {
  it('projects data and changes through the payload allowlist, keeping the ids and the suppress flags', async () => {
    const { admin, tenant, clock } = await setup();
    const narrow = await createWebhook(admin, { url: receiver.url, payload_fields: { ticket: ['status_name', 'title'] } });
    const onlyIds = await createWebhook(admin, { url: receiver.url, payload_fields: { ticket: [] } });
    const projectOnly = await createWebhook(admin, { url: receiver.url, payload_fields: { project: ['project_name'] } });
    const tasks = await createWebhook(admin, { url: receiver.url, event_types: ['project.task.updated'], payload_fields: { project: ['task_name'] } });
    const data = ticketData();
    await emitEvent(t, tenant, 'ticket.updated', { data, changes: { title: { previous: 'a', new: 'b' }, status_id: { previous: randomId(), new: data.status_id } } });
    const projectId = randomId();
    const taskId = randomId();
    await emitEvent(t, tenant, 'project.task.updated', { data: { project_id: projectId, task_id: taskId, task_name: 'Rack servers', project_name: 'DC move', phase_name: 'Build' } });
    await fanOut(t, clock.now);
    await drain(dispatchers.make({ now: clock.now }));

    const body = (webhookId: string) => JSON.parse(receiver.receipts.find((r) => r.headers['x-service-webhook-id'] === webhookId)!.body);
    const n = body(narrow.webhook_id);
    expect(Object.keys(n.data)).toEqual(['ticket_id', 'title', 'status_name', 'suppress_contact_notifications', 'suppress_internal_notifications']);
    expect(n.changes).toEqual({ title: { previous: 'a', new: 'b' } });
    expect(Object.keys(body(onlyIds.webhook_id).data)).toEqual(['ticket_id', 'suppress_contact_notifications', 'suppress_internal_notifications']);
    expect(body(onlyIds.webhook_id).changes).toEqual({});
    expect(body(projectOnly.webhook_id).data).toEqual(data);
    expect(body(tasks.webhook_id).data).toEqual({ project_id: projectId, task_id: taskId, task_name: 'Rack servers' });
  });

  it('applies the entity filter (ticket_id, project_id or task_id)', async () => {
    const { admin, tenant, clock } = await setup();
    const wanted = randomId();
    const task = randomId();
    const hook = await createWebhook(admin, { url: receiver.url, event_types: ['ticket.updated', 'project.task.completed'], event_filter: { entity_ids: [wanted, task] } });
    await emitEvent(t, tenant, 'ticket.updated', { data: ticketData({ ticket_id: wanted }) });
    await emitEvent(t, tenant, 'ticket.updated', { data: ticketData() });
    await emitEvent(t, tenant, 'project.task.completed', { data: { project_id: randomId(), task_id: task } });
    await emitEvent(t, tenant, 'project.task.completed', { data: { project_id: randomId(), task_id: randomId() } });
    await fanOut(t, clock.now);
    const rows = await deliveriesOf(t, tenant, hook.webhook_id);
    expect(rows.map((r) => JSON.parse(r.request_body).data.ticket_id ?? JSON.parse(r.request_body).data.task_id).sort()).toEqual([wanted, task].sort());
  });

  it('delivers nothing to inactive webhooks, other event types, undelivered types or other tenants', async () => {
    const { admin, tenant, clock } = await setup();
    const other = await makeTenant(t);
    const inactive = await createWebhook(admin, { url: receiver.url, is_active: false });
    const creates = await createWebhook(admin, { url: receiver.url, event_types: ['ticket.created'] });
    const theirs = await createWebhook(other.admin, { url: receiver.url });
    await emitEvent(t, tenant, 'ticket.updated', { data: ticketData() });
    await emitEvent(t, tenant, 'client.created', { data: { client_id: randomId() } });
    await fanOut(t, clock.now);
    await drain(dispatchers.make({ now: clock.now }));
    for (const hook of [inactive, creates]) expect(await deliveriesOf(t, tenant, hook.webhook_id)).toEqual([]);
    expect(await deliveriesOf(t, other.tenant, theirs.webhook_id)).toEqual([]);
    expect(receiver.receipts).toEqual([]);
  });

  it('is idempotent: the same outbox event processed twice yields one delivery', async () => {
    const { admin, tenant, clock } = await setup();
    const hook = await createWebhook(admin, { url: receiver.url });
    const eventId = await emitEvent(t, tenant, 'ticket.updated', { data: ticketData() });
    const relay = new OutboxRelay(t.database.db, [], { error: () => undefined });
    const [event] = (await relay.claim()).filter((e) => e.event_id === eventId);
    const consumer = webhookFanOut({ db: t.database.db, now: clock.now });
    await consumer.handle(event!);
    await consumer.handle(event!);
    // And once more through the relay, as a redelivery after a crash would.
    await t.database.db.updateTable('events').set({ status: 'pending', completed_consumers: [] }).where('tenant', '=', tenant).where('event_id', '=', eventId).execute();
    await fanOut(t, clock.now);
    expect(await deliveriesOf(t, tenant, hook.webhook_id)).toHaveLength(1);
    await drain(dispatchers.make({ now: clock.now }));
    expect(receiver.receipts).toHaveLength(1);
  });

  it('an inactive webhook’s waiting attempts stay pending, unsent, until it is re-enabled', async () => {
    const { admin, tenant, clock } = await setup();
    const hook = await createWebhook(admin, { url: receiver.url });
    await emitEvent(t, tenant, 'ticket.updated', { data: ticketData() });
    await fanOut(t, clock.now);
    // Switched off behind the API's back: the dispatcher itself parks the row.
    await t.database.db.updateTable('webhooks').set({ is_active: false }).where('tenant', '=', tenant).where('webhook_id', '=', hook.webhook_id).execute();
    const d = dispatchers.make({ now: clock.now });
    expect(await d.runOnce()).toBe(1);
    expect(await d.runOnce()).toBe(0);
    expect(receiver.receipts).toEqual([]);
    expect(await deliveriesOf(t, tenant, hook.webhook_id)).toMatchObject([{ status: 'pending', paused: true, attempt: 1 }]);
    expect((await admin.put(`/api/v1/webhooks/${hook.webhook_id}`, { is_active: true })).statusCode).toBe(200);
    expect(await d.runOnce()).toBe(1);
    expect(receiver.receipts).toHaveLength(1);
    expect(await deliveriesOf(t, tenant, hook.webhook_id)).toMatchObject([{ status: 'delivered', attempt: 1 }]);
  });
});

describe('secret rotation', () => {
  it('the next attempt — also of a delivery already waiting — is signed with the new secret only', async () => {
    const { admin, tenant, clock } = await setup();
    receiver.reply = (_r, n) => (n === 1 ? { status: 500 } : { status: 200 });
    const hook = await createWebhook(admin, { url: receiver.url });
    await emitEvent(t, tenant, 'ticket.updated', { data: ticketData() });
    await fanOut(t, clock.now);
    const d = dispatchers.make({ now: clock.now });
    await d.runOnce();
    const rotated = (await admin.post(`/api/v1/webhooks/${hook.webhook_id}/secret/rotate`)).json().data.secret as string;
    clock.advance(MIN);
    expect(await d.runOnce()).toBe(1);
    await emitEvent(t, tenant, 'ticket.updated', { data: ticketData() });
    await fanOut(t, clock.now);
    expect(await d.runOnce()).toBe(1);
    const [before, retried, fresh] = receiver.receipts;
    expect(verifySignature(hook.secret, before!.headers['x-service-signature'], before!.body)).toBe(true);
    for (const r of [retried!, fresh!]) {
      expect(verifySignature(rotated, r.headers['x-service-signature'], r.body)).toBe(true);
      expect(verifySignature(hook.secret, r.headers['x-service-signature'], r.body)).toBe(false);
    }
  });
});

describe('concurrency and crashes', () => {
  it('two dispatchers on one database never send the same attempt twice', async () => {
    const { admin, tenant } = await setup();
    const hooks = await Promise.all([1, 2, 3].map(() => createWebhook(admin, { url: receiver.url, rate_limit_per_minute: 10_000 })));
    for (let i = 0; i < 40; i++) await emitEvent(t, tenant, 'ticket.updated', { data: ticketData() });
    await fanOut(t);
    await Promise.all([dispatchers.started({ batchSize: 7, concurrency: 10, pollMs: 50 }), dispatchers.started({ batchSize: 7, concurrency: 10, pollMs: 50 })]);
    await expect.poll(() => receiver.receipts.length, { timeout: 20_000 }).toBe(120);
    await new Promise((r) => setTimeout(r, 200));
    expect(receiver.receipts).toHaveLength(120);
    expect([...receiver.perDelivery().values()].every((n) => n === 1)).toBe(true);
    for (const hook of hooks) {
      await expect.poll(async () => (await deliveriesOf(t, tenant, hook.webhook_id)).filter((r) => r.status === 'delivered').length).toBe(40);
      expect(receiver.receipts.filter((r) => r.headers['x-service-webhook-id'] === hook.webhook_id).every((r) => verifySignature(hook.secret, r.headers['x-service-signature'], r.body))).toBe(true);
    }
  });

  it('a dispatcher that dies mid-request: nobody touches its claim until the lease ends, then it is re-sent; the dead one’s late outcome is ignored', async () => {
    const { admin, tenant, clock } = await setup();
    receiver.reply = (_r, n) => (n === 1 ? 'hang' : { status: 200, body: 'second time' });
    const hook = await createWebhook(admin, { url: receiver.url });
    const eventId = await emitEvent(t, tenant, 'ticket.updated', { data: ticketData() });
    await fanOut(t, clock.now);
    const lease = 5_000;
    const dying = dispatchers.make({ now: clock.now, leaseMs: lease, timeoutMs: 60_000 });
    const abandoned = dying.runOnce(); // never awaited to the end while it "is dead"
    await expect.poll(() => receiver.receipts.length).toBe(1);

    const early = new TestClock(clock.ms + lease - 1);
    expect(await dispatchers.make({ now: early.now }).runOnce(), 'the claim is still held').toBe(0);
    const late = new TestClock(clock.ms + lease + 1);
    expect(await dispatchers.make({ now: late.now }).runOnce()).toBe(1);
    expect(receiver.receipts).toHaveLength(2);
    const [first, second] = receiver.receipts;
    expect(second!.headers['x-service-delivery-id']).toBe(first!.headers['x-service-delivery-id']);
    expect(second!.headers['x-service-event-id']).toBe(eventId);
    expect(second!.body).toBe(first!.body);
    expect(verifySignature(hook.secret, second!.headers['x-service-signature'], second!.body)).toBe(true);

    // The dead process's connection finally breaks: its outcome (a failure) must not overwrite the delivery.
    receiver.dropHeld();
    await abandoned;
    const rows = await deliveriesOf(t, tenant, hook.webhook_id);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ status: 'delivered', response_body: 'second time', claim_token: null });
  });

  it('a live dispatcher renews its lease while a slow request runs, so no other dispatcher takes it', async () => {
    const { admin, tenant } = await setup();
    receiver.reply = () => 'hang';
    const hook = await createWebhook(admin, { url: receiver.url });
    await emitEvent(t, tenant, 'ticket.updated', { data: ticketData() });
    await fanOut(t);
    await dispatchers.started({ leaseMs: 300, pollMs: 50 });
    await expect.poll(() => receiver.receipts.length).toBe(1);
    const other = dispatchers.make({ leaseMs: 300 });
    for (let i = 0; i < 8; i++) {
      expect(await other.runOnce()).toBe(0);
      await new Promise((r) => setTimeout(r, 150));
    }
    expect(receiver.receipts).toHaveLength(1);
    const [row] = await deliveriesOf(t, tenant, hook.webhook_id);
    expect(row!.claimed_until!.getTime()).toBeGreaterThan(Date.now());
    receiver.dropHeld();
    await expect.poll(async () => (await deliveriesOf(t, tenant, hook.webhook_id))[0]!.status).toBe('retrying');
  });

  it(`the worker runs fan-out and delivery: the module list's worker parts wired into startWorker (${engine})`, async () => {
    const { admin, tenant } = await setup();
    const hook = await createWebhook(admin, { url: receiver.url });
    const dataDir = mkdtempSync(join(tmpdir(), 'psa-webhooks-'));
    const config = loadConfig({ PSA_WEBHOOK_ALLOW_PRIVATE: '127.0.0.1/32', PSA_SECRET_KEY: TEST_SECRET_KEY, PSA_DATA_DIR: dataDir });
    const log = { info: () => undefined, error: () => undefined };
    const mailer = createMailer({ from: config.mailFrom, dataDir, log });
    const worker = await startWorker({
      database: t.database,
      ...buildWorkerParts({ db: t.database.db, database: t.database, config, secretBox: t.app.secretBox, mailer, log }),
      log,
      pollMs: 50,
    });
    try {
      const eventId = await emitEvent(t, tenant, 'ticket.updated', { data: ticketData() });
      await expect.poll(() => receiver.receipts.length, { timeout: 10_000 }).toBe(1);
      expect(receiver.receipts[0]!.headers['x-service-event-id']).toBe(eventId);
      expect(verifySignature(hook.secret, receiver.receipts[0]!.headers['x-service-signature'], receiver.receipts[0]!.body)).toBe(true);
      await expect.poll(async () => (await deliveriesOf(t, tenant, hook.webhook_id))[0]?.status).toBe('delivered');
    } finally {
      await worker.stop();
      await mailer.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
