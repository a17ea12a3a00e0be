import pino from 'pino';
import { loadConfig } from './config.ts';
import { openDatabase } from './platform/db/database.ts';
import { migrateToLatest } from './platform/db/migrate.ts';
import { startWorker } from './platform/events/worker.ts';
import { buildWorkerParts } from './modules.ts';
import { resolveSecretKey, SecretBox } from './platform/crypto/secret-box.ts';
import { createMailer } from './platform/mail/mailer.ts';
import { OutboundClient } from './platform/net/outbound-http.ts';
import { fail } from './process-errors.ts';
import { logDestination } from './platform/logging.ts';

/** Entry point for a worker-only process: drains the outbox until SIGINT/SIGTERM. */
async function main(): Promise<void> {
  const config = loadConfig();
  const log = pino({ level: config.logLevel }, logDestination(config.logFormat));
  const database = await openDatabase(config);
  await migrateToLatest(database.db);
  const secretBox = new SecretBox(resolveSecretKey(config));
  const mailer = createMailer({ smtpUrl: config.smtpUrl, from: config.mailFrom, dataDir: config.dataDir, log });
  const outbound = new OutboundClient({ allowPrivate: config.webhookAllowPrivate });
  const worker = await startWorker({
    database,
    ...buildWorkerParts({ db: database.db, database, config, secretBox, mailer, outbound, log }),
    relay: { leaseMs: config.outboxLeaseMs },
    jobRunner: { leaseMs: config.jobLeaseMs },
    log,
  });
  const stop = async () => {
    await worker.stop();
    await outbound.close();
    await mailer.close();
    await database.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
}

main().catch(fail);
