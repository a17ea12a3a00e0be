import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SMTPServer } from 'smtp-server';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/harness.ts';
import { makeTenant } from '../../../test/factories.ts';
import { eventsOf } from '../../../test/client-factories.ts';
import { Dispatchers, Receiver, TestClock, createWebhook, deliveriesOf, emitEvent, fanOut, ticketData, webhookRow } from '../../../test/webhooks-kit.ts';
import { OutboxRelay } from '../../platform/events/relay.ts';
import { createMailer, type Mailer } from '../../platform/mail/mailer.ts';
import { autoDisabledMail } from './auto-disable.ts';

interface Mail {
  to: string[];
  raw: string;
}

let t: TestApp;
let receiver: Receiver;
let dispatchers: Dispatchers;
let smtp: SMTPServer;
let mails: Mail[] = [];
let mailer: Mailer;
let dataDir: string;

beforeAll(async () => {
  t = await buildTestApp({ env: { PSA_WEBHOOK_ALLOW_PRIVATE: '127.0.0.1/32' } });
  // A real SMTP server (plain text) that records what it receives.
  smtp = new SMTPServer({
    disabledCommands: ['STARTTLS'],
    authOptional: true,
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        mails.push({ to: session.envelope.rcptTo.map((r) => r.address), raw: Buffer.concat(chunks).toString() });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  dataDir = mkdtempSync(join(tmpdir(), 'psa-autodisable-'));
  mailer = createMailer({ smtpUrl: `smtp://127.0.0.1:${(smtp.server.address() as AddressInfo).port}`, from: 'PSA <psa@example.test>', dataDir });
});
afterAll(async () => {
  await mailer.close();
  await new Promise<void>((resolve) => smtp.close(() => resolve()));
  rmSync(dataDir, { recursive: true, force: true });
  await t.close();
});

afterEach(async () => {
  mails = [];
  await dispatchers?.close();
  await receiver?.close();
  await t.database.db.deleteFrom('webhooks').execute();
});

const HOUR = 60 * 60_000;

/** The Subject header, unfolded and its RFC 2047 words decoded. */
function subjectOf(raw: string): string {
  const line = raw.slice(0, raw.indexOf('\r\n\r\n')).replace(/\r\n[ \t]+/g, ' ').split('\r\n').find((l) => /^subject:/i.test(l)) ?? '';
  return line
    .slice(line.indexOf(':') + 1)
    .trim()
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?utf-8\?q\?([^?]*)\?=/gi, (_m, text: string) =>
      Buffer.from(text.replace(/_/g, ' ').replace(/=([0-9a-f]{2})/gi, (_h, hex: string) => String.fromCharCode(parseInt(hex, 16))), 'latin1').toString('utf8'));
}

/** Runs the outbox through the mail consumer (as the worker does). */
async function sendMails() {
  const relay = new OutboxRelay(t.database.db, [autoDisabledMail({ db: t.database.db, mailer })], { error: () => undefined });
  for (let i = 0; i < 20 && (await relay.runOnce()) > 0; i++);
}

async function failingSetup() {
  receiver = await new Receiver().listen();
  receiver.reply = () => ({ status: 500 });
  dispatchers = new Dispatchers(t);
  const fixture = await makeTenant(t);
  const clock = new TestClock();
  return { ...fixture, clock, d: dispatchers.make({ now: clock.now }) };
}

describe('auto-disable', () => {
  it('a webhook with only failures for 24 hours is disabled, its creator e-mailed, its attempts held; re-enabling clears the state and the window', async () => {
    const { admin, tenant, slug, clock, d } = await failingSetup();
    const hook = await createWebhook(admin, { name: 'CRM "sync"\r\nBcc: evil@example.test', url: receiver.url });
    const start = clock.ms;
    await emitEvent(t, tenant, 'ticket.updated', { data: ticketData() });
    await fanOut(t, clock.now);
    await d.runOnce();
    expect((await webhookRow(t, tenant, hook.webhook_id)).failing_since!.getTime()).toBe(start);

    // 23 hours later: still failing, not yet 24 hours.
    clock.advance(23 * HOUR);
    await emitEvent(t, tenant, 'ticket.updated', { data: ticketData() });
    await fanOut(t, clock.now);
    await d.runOnce();
    expect((await webhookRow(t, tenant, hook.webhook_id)).is_active).toBe(true);

    // 24 hours after the first failure, another failure disables it.
    clock.advance(HOUR);
    await emitEvent(t, tenant, 'ticket.updated', { data: ticketData() });
    await fanOut(t, clock.now);
    await d.runOnce();
    const row = await webhookRow(t, tenant, hook.webhook_id);
    expect(row).toMatchObject({ is_active: false });
    expect(row.auto_disabled_at).toEqual(clock.now());
    const got = (await admin.get(`/api/v1/webhooks/${hook.webhook_id}`)).json().data;
    expect(got).toMatchObject({ is_active: false, auto_disabled_at: clock.now().toISOString(), failing_since: new Date(start).toISOString() });
    const events = await eventsOf(t, tenant, hook.webhook_id);
    expect(events.map((e) => e.event_type)).toContain('webhook.auto_disabled');

    // The creator gets one e-mail, through the SMTP server.
    await sendMails();
    expect(mails).toHaveLength(1);
    expect(mails[0]!.to).toEqual([`admin@${slug}.test`]);
    expect(subjectOf(mails[0]!.raw)).toBe('Webhook "CRM "sync" Bcc: evil@example.test" was disabled after 24 hours of failed deliveries');
    expect(mails[0]!.raw).not.toMatch(/^Bcc:/im);
    expect(mails[0]!.raw).toContain(hook.webhook_id);
    await sendMails();
    expect(mails).toHaveLength(1);

    // Its waiting attempts stay pending and unsent.
    const sent = receiver.receipts.length;
    clock.advance(HOUR);
    await d.runOnce();
    expect(receiver.receipts).toHaveLength(sent);
    const waiting = (await deliveriesOf(t, tenant, hook.webhook_id)).filter((r) => r.status === 'pending');
    expect(waiting.length).toBeGreaterThan(0);
    expect(waiting.every((r) => r.paused)).toBe(true);

    // Re-enabled: state and window cleared; the next failure starts a new window instead of disabling it again.
    const on = await admin.put(`/api/v1/webhooks/${hook.webhook_id}`, { is_active: true });
    expect(on.json().data).toMatchObject({ is_active: true, auto_disabled_at: null, failing_since: null });
    await d.runOnce();
    expect(receiver.receipts.length).toBeGreaterThan(sent);
    const after = await webhookRow(t, tenant, hook.webhook_id);
    expect(after.is_active).toBe(true);
    expect(after.failing_since).toEqual(clock.now());
  });

  it('a success resets the window: only failures since the last success count', async () => {
    const { admin, tenant, clock, d } = await failingSetup();
    const hook = await createWebhook(admin, { url: receiver.url });
    const event = async () => {
      await emitEvent(t, tenant, 'ticket.updated', { data: ticketData() });
      await fanOut(t, clock.now);
      await d.runOnce();
    };
    await event();
    clock.advance(HOUR);
    receiver.reply = () => ({ status: 200 });
    await event();
    expect((await webhookRow(t, tenant, hook.webhook_id)).failing_since).toBeNull();
    clock.advance(HOUR);
    receiver.reply = () => ({ status: 500 });
    await event();
    const secondWindow = clock.ms;
    clock.advance(23 * HOUR);
    await event(); // 25 h after the first failure, 23 h after the one following the success
    expect(await webhookRow(t, tenant, hook.webhook_id)).toMatchObject({ is_active: true });
    expect((await webhookRow(t, tenant, hook.webhook_id)).failing_since!.getTime()).toBe(secondWindow);
    clock.advance(HOUR);
    await event();
    expect(await webhookRow(t, tenant, hook.webhook_id)).toMatchObject({ is_active: false });
  });

  it('no mail when the creator is gone', async () => {
    const { admin, tenant, clock, d } = await failingSetup();
    const hook = await createWebhook(admin, { url: receiver.url });
    await t.database.db.updateTable('webhooks').set({ created_by_user_id: null }).where('tenant', '=', tenant).where('webhook_id', '=', hook.webhook_id).execute();
    await emitEvent(t, tenant, 'ticket.updated', { data: ticketData() });
    await fanOut(t, clock.now);
    await d.runOnce();
    clock.advance(25 * HOUR);
    await d.runOnce();
    expect((await webhookRow(t, tenant, hook.webhook_id)).is_active).toBe(false);
    await sendMails();
    expect(mails).toEqual([]);
  });
});
