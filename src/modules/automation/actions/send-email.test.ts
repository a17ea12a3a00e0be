import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Actor } from '../../../platform/auth/context.ts';
import { createMailer, type MailMessage, type Mailer } from '../../../platform/mail/mailer.ts';
import type { ActionRunContext } from '../automation.types.ts';
import { messageIdOf, sendEmailRunner, senderDomain } from './send-email.ts';

const actor = (permissions: string[] = ['automation:update']): Actor => ({
  tenant: randomUUID(),
  tenantSlug: 'acme',
  userId: randomUUID(),
  apiKeyId: randomUUID(),
  userType: 'internal',
  clientId: null,
  contactId: null,
  permissions: new Set(permissions),
  scopes: null,
});

function ctxOf(over: Partial<ActionRunContext> = {}): ActionRunContext {
  const executionId = randomUUID();
  return { actor: actor(), executionId, ruleId: randomUUID(), actionIndex: 1, idempotencyKey: `${executionId}:1`, signal: new AbortController().signal, signingSecret: 's', ...over };
}

let dataDir: string;
let mailer: Mailer;
const FROM = 'PSA Automation <automation@psa.example.com>';

beforeAll(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'psa-automation-mail-'));
  mailer = createMailer({ from: FROM, dataDir, log: { info: () => undefined } });
});
afterEach(() => {
  rmSync(join(dataDir, 'mail'), { recursive: true, force: true });
});
afterAll(async () => {
  await mailer.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** The headers of every message the embedded mailer wrote, unfolded, by lower-case name. */
function written(): Record<string, string>[] {
  const dir = join(dataDir, 'mail');
  let files: string[];
  try {
    files = readdirSync(dir).sort();
  } catch {
    return [];
  }
  return files.map((f) => {
    const raw = readFileSync(join(dir, f), 'utf8');
    const head = raw.slice(0, raw.indexOf('\r\n\r\n')).replace(/\r\n[ \t]+/g, ' ');
    const headers: Record<string, string> = { body: raw.slice(raw.indexOf('\r\n\r\n') + 4) };
    for (const line of head.split('\r\n')) headers[line.slice(0, line.indexOf(':')).toLowerCase()] = line.slice(line.indexOf(':') + 1).trim();
    return headers;
  });
}

describe('send_email', () => {
  const run = () => sendEmailRunner({ mailer, mailFrom: FROM });

  it('sends through the platform mailer with a Message-ID derived from the step\'s idempotency key', async () => {
    const ctx = ctxOf();
    const result = await run()(ctx, { to: ['manager@example.com', 'oncall@example.com'], cc: ['boss@example.com'], subject: 'High priority ticket T-000042', body: 'Assigned to the on-call team.' }, null);
    const messageId = `<${ctx.executionId}.1@psa.example.com>`;
    expect(result).toEqual({ message_id: messageId, to: ['manager@example.com', 'oncall@example.com'], cc: ['boss@example.com'] });
    const [mail, ...rest] = written();
    expect(rest).toEqual([]);
    expect(mail!['message-id']).toBe(messageId);
    expect(mail!.to).toBe('manager@example.com, oncall@example.com');
    expect(mail!.cc).toBe('boss@example.com');
    expect(mail!.from).toContain('automation@psa.example.com');
    expect(mail!.subject).toBe('High priority ticket T-000042');
    expect(mail!['auto-submitted']).toBe('auto-generated');
    expect(mail!['x-service-idempotency-key']).toBe(ctx.idempotencyKey);
    expect(mail!['x-service-automation-rule-id']).toBe(ctx.ruleId);
    expect(mail!.body).toContain('Assigned to the on-call team.');
  });

  it('a retried step sends the same Message-ID again (at least once, recognisable)', async () => {
    const ctx = ctxOf();
    const cfg = { to: ['a@example.com'], subject: 'Hi', body: 'x' };
    await run()(ctx, cfg, null);
    await run()(ctx, cfg, null);
    const ids = written().map((m) => m['message-id']);
    expect(ids).toHaveLength(2);
    expect(ids[0]).toBe(ids[1]);
  });

  it('a subject cannot add headers; duplicate recipients are sent once', async () => {
    const captured: MailMessage[] = [];
    const capture: Mailer = { send: async (m) => void captured.push(m), close: async () => undefined };
    await sendEmailRunner({ mailer: capture, mailFrom: FROM })(ctxOf(), { to: ['a@example.com', 'a@example.com'], cc: ['a@example.com', 'b@example.com'], subject: 'Hi\r\nBcc: victim@example.com', body: 'x' }, null);
    expect(captured[0]).toMatchObject({ to: ['a@example.com'], cc: ['b@example.com'], subject: 'Hi Bcc: victim@example.com' });
  });

  it('validates the config: 1–20 recipients, e-mail addresses, subject ≤ 300, body ≤ 50,000, nothing else', async () => {
    const base = { to: ['a@example.com'], subject: 's', body: 'b' };
    for (const bad of [
      { ...base, to: [] },
      { ...base, to: Array.from({ length: 21 }, (_, i) => `u${i}@example.com`) },
      { ...base, to: ['not an address'] },
      { ...base, cc: Array.from({ length: 21 }, (_, i) => `u${i}@example.com`) },
      { ...base, subject: 'x'.repeat(301) },
      { ...base, subject: '' },
      { ...base, body: 'x'.repeat(50_001) },
      { ...base, bcc: ['c@example.com'] },
      { to: 'a@example.com', subject: 's', body: 'b' },
    ]) {
      await expect(run()(ctxOf(), bad, null), JSON.stringify(bad).slice(0, 80)).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    }
    expect(written()).toEqual([]);
  });

  it('needs automation:update', async () => {
    await expect(run()(ctxOf({ actor: actor(['ticket:update']) }), { to: ['a@example.com'], subject: 's', body: 'b' }, null)).rejects.toMatchObject({ code: 'FORBIDDEN' });
    expect(written()).toEqual([]);
  });

  it('the action\'s timeout ends a send the mailer does not finish, and a mailer failure fails the step', async () => {
    const hanging: Mailer = { send: () => new Promise(() => undefined), close: async () => undefined };
    await expect(sendEmailRunner({ mailer: hanging, mailFrom: FROM })(ctxOf({ signal: AbortSignal.timeout(100) }), { to: ['a@example.com'], subject: 's', body: 'b' }, null))
      .rejects.toMatchObject({ code: 'UPSTREAM_ERROR', details: { reason: 'timeout', retryable: true } });
    const failing: Mailer = { send: () => Promise.reject(new Error('421 try again later')), close: async () => undefined };
    await expect(sendEmailRunner({ mailer: failing, mailFrom: FROM })(ctxOf(), { to: ['a@example.com'], subject: 's', body: 'b' }, null))
      .rejects.toMatchObject({ code: 'UPSTREAM_ERROR', message: expect.stringContaining('421 try again later'), details: { reason: 'mailer', retryable: true } });
  });

  it('derives the Message-ID domain from PSA_MAIL_FROM', () => {
    expect(senderDomain('PSA <psa@localhost>')).toBe('localhost');
    expect(senderDomain('psa@mail.example.org')).toBe('mail.example.org');
    expect(senderDomain('PSA')).toBe('psa.invalid');
    expect(messageIdOf('0190-ab:3', 'example.com')).toBe('<0190-ab.3@example.com>');
  });
});
