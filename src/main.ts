import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { loadConfig } from './config.ts';
import { openDatabase } from './platform/db/database.ts';
import type { Worker } from './platform/events/worker.ts';
import type { Mailer } from './platform/mail/mailer.ts';
import type { OutboundClient as Outbound } from './platform/net/outbound-http.ts';
import { fail } from './process-errors.ts';

/** Entry point: config → database → migrate → demo tenant on first start → app (+ worker) → listen. */
async function main(): Promise<void> {
  const config = loadConfig();
  // A first start copies the build's migrated template instead of running initdb and every migration. PGlite
  // compiles its WebAssembly in the background while the server's modules load: the imports below are dynamic so
  // that their evaluation overlaps with it.
  const opening = openDatabase(config, { fromTemplate: true });
  opening.catch(() => undefined); // awaited below; this only keeps a failure from counting as unhandled meanwhile
  const [{ migrateToLatest }, { startWorker }, { createTenant }, { buildWorkerParts }, { createMailer }, { OutboundClient }, { startServer }] =
    await Promise.all([
      import('./platform/db/migrate.ts'),
      import('./platform/events/worker.ts'),
      import('./modules/tenants/index.ts'),
      import('./modules.ts'),
      import('./platform/mail/mailer.ts'),
      import('./platform/net/outbound-http.ts'),
      import('./server.ts'),
    ]);
  const database = await opening;
  await migrateToLatest(database.db);

  const anyTenant = await database.db.selectFrom('tenants').select('tenant_id').limit(1).executeTakeFirst();
  const demo = anyTenant
    ? undefined
    : await createTenant(database.db, {
        name: 'Demo MSP',
        slug: 'demo',
        adminEmail: 'admin@demo.example',
        adminPassword: randomBytes(12).toString('base64url'),
      });

  const app = await startServer(config, database);
  let worker: Worker | undefined;
  let mailer: Mailer | undefined;
  let outbound: Outbound | undefined;
  if (config.embeddedWorker) {
    mailer = createMailer({ smtpUrl: config.smtpUrl, from: config.mailFrom, dataDir: config.dataDir, log: app.log });
    outbound = new OutboundClient({ allowPrivate: config.webhookAllowPrivate });
    worker = await startWorker({
      database,
      ...buildWorkerParts({ db: database.db, database, config, secretBox: app.secretBox, mailer, outbound, log: app.log }),
      relay: { leaseMs: config.outboxLeaseMs },
      jobRunner: { leaseMs: config.jobLeaseMs },
      log: app.log,
    });
  }

  const { address, port, family } = app.server.address() as AddressInfo;
  const base = `http://${family === 'IPv6' ? `[${address}]` : address}:${port}`;
  const where = config.databaseUrl ? 'PostgreSQL' : `embedded PGlite in ${config.dataDir}`;
  if (demo) {
    process.stdout.write(
      `\nPSA API listening on ${base} (${where})\n` +
        `Created demo tenant "demo" with Admin user admin@demo.example.\n` +
        `API key (shown once, keep it): ${demo.api_key}\n\n` +
        `  curl -H 'X-API-Key: ${demo.api_key}' ${base}/api/v1/clients\n\n` +
        `API reference: ${base}/docs\n\n`,
    );
  } else {
    process.stdout.write(
      `\nPSA API listening on ${base} (${where}); existing data reused.\n` +
        `Need a key? Stop the server and run: npm run psa -- key create --tenant <slug> --user <email>\n` +
        `API reference: ${base}/docs\n\n`,
    );
  }

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.log.info({ signal }, 'shutting down');
    const force = setTimeout(() => process.exit(1), 15_000).unref();
    await app.close(); // stops accepting, lets in-flight requests finish
    await worker?.stop();
    await outbound?.close();
    await mailer?.close();
    await database.close();
    clearTimeout(force);
    process.exit(0);
  };
  process.once('SIGINT', () => void shutdown('SIGINT'));
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
}

main().catch(fail);
