import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../config.ts';
import { createMailer, type Mailer } from './mailer.ts';

interface Received {
  user: string | undefined;
  mailFrom: string;
  rcptTo: string[];
  raw: string;
}

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'psa-mail-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function track(mailer: Mailer): Mailer {
  cleanups.push(() => mailer.close());
  return mailer;
}

/** A real SMTP server on an ephemeral port (plain text, no STARTTLS) that records every message. */
async function startSmtp(options: SMTPServerOptions = {}): Promise<{ port: number; messages: Received[] }> {
  const messages: Received[] = [];
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS'],
    authOptional: true,
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        messages.push({
          user: session.user as string | undefined,
          mailFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          rcptTo: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString(),
        });
        callback();
      });
    },
    ...options,
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { port: (server.server.address() as AddressInfo).port, messages };
}

/** RFC 2047 encoded words (=?UTF-8?Q?…?= / =?UTF-8?B?…?=) back to text. */
function decodeWords(value: string): string {
  return value
    .replace(/\?=\s+=\?/g, '?==?') // whitespace between adjacent encoded words is not part of the text
    .replace(/=\?utf-8\?([qb])\?([^?]*)\?=/gi, (_m, enc: string, text: string) =>
      enc.toLowerCase() === 'b'
        ? Buffer.from(text, 'base64').toString('utf8')
        : Buffer.from(text.replace(/_/g, ' ').replace(/=([0-9a-f]{2})/gi, (_h, hex: string) => String.fromCharCode(parseInt(hex, 16))), 'latin1').toString('utf8'));
}

/** Header name (lower case) → unfolded, decoded value, and the body. */
function parse(raw: string): { headers: Map<string, string>; body: string } {
  const split = raw.indexOf('\r\n\r\n');
  const headers = new Map<string, string>();
  for (const line of raw.slice(0, split).replace(/\r\n[ \t]+/g, ' ').split('\r\n')) {
    const colon = line.indexOf(':');
    headers.set(line.slice(0, colon).toLowerCase(), decodeWords(line.slice(colon + 1).trim()));
  }
  return { headers, body: raw.slice(split + 4) };
}

const message = { to: 'owner@example.com', subject: 'Webhook "Billing sync – café" was disabled', text: 'Hello,\nyour webhook failed for 24 hours.' };

describe('createMailer with SMTP_URL', () => {
  it('delivers through a real SMTP server, authenticating with the credentials in the URL', async () => {
    const logins: string[] = [];
    const smtp = await startSmtp({
      authOptional: false,
      allowInsecureAuth: true,
      onAuth(auth, _session, callback) {
        logins.push(`${auth.username}:${auth.password}`);
        if (auth.username === 'psa' && auth.password === 's3cret/+') callback(null, { user: auth.username });
        else callback(new Error('bad credentials'));
      },
    });
    const dataDir = tempDir();
    const mailer = track(createMailer({ smtpUrl: `smtp://psa:${encodeURIComponent('s3cret/+')}@127.0.0.1:${smtp.port}`, from: 'PSA <psa@localhost>', dataDir }));
    await mailer.send(message);

    expect(logins).toEqual(['psa:s3cret/+']);
    expect(smtp.messages).toHaveLength(1);
    const [received] = smtp.messages;
    expect(received).toMatchObject({ user: 'psa', mailFrom: 'psa@localhost', rcptTo: ['owner@example.com'] });
    const { headers, body } = parse(received!.raw);
    expect(headers.get('from')).toBe('PSA <psa@localhost>');
    expect(headers.get('to')).toBe('owner@example.com');
    expect(headers.get('subject')).toBe(message.subject);
    expect(headers.get('message-id')).toMatch(/^<.+@localhost>$/);
    expect(body.replace(/\r\n/g, '\n').trim()).toBe(message.text);
    expect(() => readdirSync(join(dataDir, 'mail'))).toThrow(); // nothing written locally
  });

  it('rejects when the server refuses the message', async () => {
    const smtp = await startSmtp({
      onRcptTo(address, _session, callback) {
        callback(address.address.endsWith('@example.com') ? new Error('mailbox unavailable') : undefined);
      },
    });
    const mailer = track(createMailer({ smtpUrl: `smtp://127.0.0.1:${smtp.port}`, from: 'PSA <psa@localhost>', dataDir: tempDir() }));
    await expect(mailer.send(message)).rejects.toThrow(/mailbox unavailable/);
    expect(smtp.messages).toHaveLength(0);
  });

  it('rejects when no server listens', async () => {
    const smtp = await startSmtp();
    const port = smtp.port;
    await cleanups.pop()!(); // stop the server
    const mailer = track(createMailer({ smtpUrl: `smtp://127.0.0.1:${port}`, from: 'PSA <psa@localhost>', dataDir: tempDir() }));
    await expect(mailer.send(message)).rejects.toThrow(/ECONNREFUSED/);
  });

  it('cannot be made to add recipients or headers through the subject', async () => {
    const smtp = await startSmtp();
    const mailer = track(createMailer({ smtpUrl: `smtp://127.0.0.1:${smtp.port}`, from: 'PSA <psa@localhost>', dataDir: tempDir() }));
    await mailer.send({ ...message, subject: 'Hi\r\nBcc: victim@example.net\r\nX-Injected: 1' });
    const [received] = smtp.messages;
    expect(received!.rcptTo).toEqual(['owner@example.com']);
    const { headers } = parse(received!.raw);
    expect(headers.has('bcc')).toBe(false);
    expect(headers.has('x-injected')).toBe(false);
  });
});

describe('createMailer without SMTP_URL (embedded mode)', () => {
  it('writes each message as an .eml file under <dataDir>/mail and logs the path', async () => {
    const dataDir = tempDir();
    const logged: { obj: Record<string, unknown>; msg: string }[] = [];
    const mailer = track(createMailer({
      from: 'PSA <psa@localhost>',
      dataDir,
      log: { info: (obj, msg) => logged.push({ obj: obj as Record<string, unknown>, msg }) },
    }));
    await mailer.send(message);
    await mailer.send({ to: 'second@example.com', subject: 'Second', text: 'Two' });

    const dir = join(dataDir, 'mail');
    const files = readdirSync(dir).sort();
    expect(files).toHaveLength(2);
    expect(files.every((f) => f.endsWith('.eml'))).toBe(true);
    expect(logged.map((l) => l.obj.path)).toEqual(files.map((f) => join(dir, f)));
    expect(logged[0]!.obj).toMatchObject({ to: 'owner@example.com', subject: message.subject });

    const { headers, body } = parse(readFileSync(join(dir, files[0]!), 'utf8'));
    expect(headers.get('from')).toBe('PSA <psa@localhost>');
    expect(headers.get('to')).toBe('owner@example.com');
    expect(headers.get('subject')).toBe(message.subject);
    expect(body.replace(/\r\n/g, '\n').trim()).toBe(message.text);
    expect(parse(readFileSync(join(dir, files[1]!), 'utf8')).headers.get('to')).toBe('second@example.com');
    expect(statSync(join(dir, files[0]!)).mode & 0o777).toBe(0o600);
  });

  it('creates the mail directory when the data directory does not exist yet', async () => {
    const dataDir = join(tempDir(), 'fresh', 'data');
    const mailer = track(createMailer({ from: 'PSA <psa@localhost>', dataDir, log: { info: () => undefined } }));
    await mailer.send(message);
    expect(readdirSync(join(dataDir, 'mail'))).toHaveLength(1);
  });
});

describe('mail settings in loadConfig', () => {
  it('defaults to embedded mode with PSA <psa@localhost> as the sender', () => {
    const c = loadConfig({});
    expect(c.smtpUrl).toBeUndefined();
    expect(c.mailFrom).toBe('PSA <psa@localhost>');
  });

  it('accepts smtp:// and smtps:// URLs, with credentials, and a sender address', () => {
    expect(loadConfig({ SMTP_URL: 'smtp://mail.example.com:587' }).smtpUrl).toBe('smtp://mail.example.com:587');
    expect(loadConfig({ SMTP_URL: 'smtps://user:p%40ss@mail.example.com' }).smtpUrl).toBe('smtps://user:p%40ss@mail.example.com');
    expect(loadConfig({ PSA_MAIL_FROM: 'Acme PSA <psa@acme.example>' }).mailFrom).toBe('Acme PSA <psa@acme.example>');
    expect(loadConfig({ PSA_MAIL_FROM: 'psa@acme.example' }).mailFrom).toBe('psa@acme.example');
  });

  it('refuses other schemes and malformed values without echoing a password', () => {
    for (const bad of ['http://user:hunter2@mail.example.com', 'mail.example.com:25', 'smtp://', 'ftp://user:hunter2@x']) {
      let error: unknown;
      try {
        loadConfig({ SMTP_URL: bad });
      } catch (err) {
        error = err;
      }
      expect(error, bad).toBeInstanceOf(ConfigError);
      expect((error as Error).message, bad).toContain('SMTP_URL');
      expect((error as Error).message, bad).not.toContain('hunter2');
    }
    for (const bad of ['PSA', 'PSA <psa>', 'a@b\r\nBcc: x@y', 'two@a.example, three@b.example']) {
      expect(() => loadConfig({ PSA_MAIL_FROM: bad }), bad).toThrow(/PSA_MAIL_FROM/);
    }
  });
});
