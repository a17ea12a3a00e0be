import pino from 'pino';
import { loadConfig } from './config.ts';
import { openDatabase } from './platform/db/database.ts';
import { migrateToLatest } from './platform/db/migrate.ts';
import { startWorker } from './platform/events/worker.ts';
import { eventConsumers } from './event-consumers.ts';
import { backgroundTasks } from './background-tasks.ts';
import { fail } from './process-errors.ts';

/** Entry point for a worker-only process: drains the outbox until SIGINT/SIGTERM. */
async function main(): Promise<void> {
  const config = loadConfig();
  const log = pino({ level: config.logLevel });
  const database = await openDatabase(config);
  await migrateToLatest(database.db);
  const worker = await startWorker({ database, consumers: eventConsumers(database), tasks: backgroundTasks(database), log });
  const stop = async () => {
    await worker.stop();
    await database.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
}

main().catch(fail);
