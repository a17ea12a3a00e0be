import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type nodemailer from 'nodemailer';
import type { Transporter } from 'nodemailer';
import pino from 'pino';
import { newId } from '../ids.ts';

export interface MailMessage {
  /** One address, or several. */
  to: string | string[];
  cc?: string[];
  subject: string;
  text: string;
  /**
   * The Message-ID (`<id@host>`); default: one nodemailer makes up. A sender that may repeat a message
   * (a retried job) sets a stable one, so receivers can recognise the repeat.
   */
  messageId?: string;
  /** Extra headers (names and values are encoded by nodemailer: they cannot add headers or recipients). */
  headers?: Record<string, string>;
}

/** The nodemailer fields of a message. */
const mailOf = (msg: MailMessage) => ({
  to: msg.to,
  subject: msg.subject,
  text: msg.text,
  ...(msg.cc && msg.cc.length > 0 ? { cc: msg.cc } : {}),
  ...(msg.messageId ? { messageId: msg.messageId } : {}),
  ...(msg.headers ? { headers: msg.headers } : {}),
});

export interface Mailer {
  send(msg: MailMessage): Promise<void>;
  close(): Promise<void>;
}

/** Where the embedded mailer reports each .eml it writes (pino and the worker's log fit). */
export interface MailLog {
  info(obj: object, msg: string): void;
}

export interface MailerOptions {
  /** smtp:// or smtps://, credentials and nodemailer options (?pool=true, ?connectionTimeout=…) allowed. */
  smtpUrl?: string;
  /** The From header, e.g. `PSA <psa@example.com>`. */
  from: string;
  /** Embedded mode writes messages under `<dataDir>/mail/`. */
  dataDir: string;
  /** Default: a pino logger at info level. */
  log?: MailLog;
}

/** SMTP timeouts tighter than nodemailer's (2 min connect, 10 min idle), so a dead relay fails a send in time for
 *  the worker to retry it; the URL's own query parameters still win. */
const SMTP_TIMEOUTS = { connectionTimeout: 15_000, greetingTimeout: 15_000, socketTimeout: 60_000 };

/** smtpUrl (smtp:// or smtps://, credentials allowed in the URL) → nodemailer SMTP transport. Without it (embedded
 *  mode) each message is written as an .eml file under `<dataDir>/mail/` and the path logged, so it is inspectable
 *  locally. */
export function createMailer(opts: MailerOptions): Mailer {
  return opts.smtpUrl ? smtpMailer(opts.smtpUrl, opts.from) : fileMailer(opts);
}

/** nodemailer is loaded with the first message, not at start-up (~10 MB resident a quiet process never needs). */
function lazyTransport(create: (mailer: typeof nodemailer) => Transporter): { get(): Promise<Transporter>; close(): void } {
  let transport: Promise<Transporter> | undefined;
  let closed = false;
  return {
    get: () => (transport ??= import('nodemailer').then((m) => create(m.default))),
    close() {
      if (closed) return;
      closed = true;
      void transport?.then((t) => t.close());
    },
  };
}

function smtpMailer(url: string, from: string): Mailer {
  const transport = lazyTransport((nodemailer) => nodemailer.createTransport({ ...SMTP_TIMEOUTS, url }, { from }));
  return {
    async send(msg) {
      await (await transport.get()).sendMail(mailOf(msg));
    },
    async close() {
      transport.close();
    },
  };
}

function fileMailer(opts: MailerOptions): Mailer {
  const dir = join(opts.dataDir, 'mail');
  const log = opts.log ?? pino({ level: 'info' });
  const transport = lazyTransport((nodemailer) => nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'windows' }, { from: opts.from }));
  return {
    async send(msg) {
      const info = await (await transport.get()).sendMail(mailOf(msg));
      await mkdir(dir, { recursive: true, mode: 0o700 });
      // Time first, so a directory listing reads in sending order; the id keeps names unique.
      const path = join(dir, `${new Date().toISOString().replace(/[:.]/g, '-')}-${newId()}.eml`);
      await writeFile(path, info.message as Buffer, { mode: 0o600 });
      log.info({ path, to: msg.to, subject: msg.subject }, 'e-mail written to file (no SMTP_URL)');
    },
    async close() {
      transport.close();
    },
  };
}
