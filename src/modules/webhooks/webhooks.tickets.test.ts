import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, engine, TEST_SECRET_KEY, type TestApp } from '../../../test/harness.ts';
import { makeTenant } from '../../../test/factories.ts';
import { makeClient } from '../../../test/client-factories.ts';
import { defaultBoard, makeTicket, ticketEvents } from '../../../test/ticket-factories.ts';
import { Receiver, createWebhook, verifySignature } from '../../../test/webhooks-kit.ts';
import { loadConfig } from '../../config.ts';
import { buildWorkerParts } from '../../modules.ts';
import { TICKET_DATA_FIELDS } from '../tickets/index.ts';
import { startWorker, type Worker } from '../../platform/events/worker.ts';
import { createMailer, type Mailer } from '../../platform/mail/mailer.ts';

/** End to end: a ticket write through the API → outbox → the worker's fan-out and dispatcher → a signed POST. */
let t: TestApp;
let receiver: Receiver;
let worker: Worker;
let mailer: Mailer;
let dataDir: string;

beforeAll(async () => {
  t = await buildTestApp({ env: { PSA_WEBHOOK_ALLOW_PRIVATE: '127.0.0.1/32' } });
  receiver = await new Receiver().listen();
  dataDir = mkdtempSync(join(tmpdir(), 'psa-e2e-'));
  const config = loadConfig({ PSA_WEBHOOK_ALLOW_PRIVATE: '127.0.0.1/32', PSA_SECRET_KEY: TEST_SECRET_KEY, PSA_DATA_DIR: dataDir });
  const log = { info: () => undefined, error: () => undefined };
  mailer = createMailer({ from: config.mailFrom, dataDir, log });
  worker = await startWorker({
    database: t.database,
    ...buildWorkerParts({ db: t.database.db, database: t.database, config, secretBox: t.app.secretBox, mailer, log }),
    log,
    pollMs: 50,
  });
});
afterAll(async () => {
  await worker.stop();
  await mailer.close();
  await receiver.close();
  await t.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe(`tickets → webhooks (${engine})`, () => {
  it('PUT a ticket: the receiver gets a signed ticket.updated; closing it adds ticket.status_changed and ticket.closed', async () => {
    const { admin, tenant } = await makeTenant(t);
    const client = await makeClient(admin);
    const { statuses } = await defaultBoard(admin);
    const ticket = await makeTicket(admin, client.client_id, { title: 'Before' });
    const hook = await createWebhook(admin, { url: receiver.url, event_types: ['ticket.updated', 'ticket.status_changed', 'ticket.closed'] });
    const mine = () => receiver.receipts.filter((r) => r.headers['x-service-webhook-id'] === hook.webhook_id);

    const renamed = await admin.put(`/api/v1/tickets/${ticket.ticket_id}`, { title: 'After' });
    expect(renamed.statusCode, renamed.body).toBe(200);
    await expect.poll(() => mine().length, { timeout: 10_000 }).toBe(1);
    const [updated] = mine();
    expect(verifySignature(hook.secret, updated!.headers['x-service-signature'], updated!.body)).toBe(true);
    const envelope = JSON.parse(updated!.body);
    expect(updated!.headers['x-service-event-type']).toBe('ticket.updated');
    expect(updated!.headers['x-service-event-id']).toBe(envelope.event_id);
    expect(Object.keys(envelope)).toEqual(['event_id', 'event_type', 'occurred_at', 'tenant_id', 'data', 'changes']);
    expect(Object.keys(envelope.data)).toEqual([...TICKET_DATA_FIELDS]);
    expect(envelope).toMatchObject({ event_type: 'ticket.updated', tenant_id: tenant, data: { ticket_id: ticket.ticket_id, title: 'After' }, changes: { title: { previous: 'Before', new: 'After' } } });

    const closed = await admin.put(`/api/v1/tickets/${ticket.ticket_id}`, { status_id: statuses.Closed!.status_id });
    expect(closed.statusCode, closed.body).toBe(200);
    await expect.poll(() => mine().length, { timeout: 10_000 }).toBe(4);
    const later = mine().slice(1);
    expect(later.map((r) => r.headers['x-service-event-type']).sort()).toEqual(['ticket.closed', 'ticket.status_changed', 'ticket.updated']);
    for (const r of later) {
      expect(verifySignature(hook.secret, r.headers['x-service-signature'], r.body)).toBe(true);
      expect(JSON.parse(r.body).data).toMatchObject({ ticket_id: ticket.ticket_id, is_closed: true, status_id: statuses.Closed!.status_id });
    }
    const outboxIds = (await ticketEvents(t, tenant, ticket.ticket_id)).filter((e) => e.event_type !== 'ticket.created').map((e) => e.event_id).sort();
    expect(mine().map((r) => r.headers['x-service-event-id']).sort()).toEqual(outboxIds);
    expect(new Set(mine().map((r) => r.headers['x-service-event-id'])).size).toBe(4);
  });
});
