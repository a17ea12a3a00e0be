import type { Database } from '../db/database.ts';
import { EVENTS_CHANNEL } from './outbox.ts';
import { OutboxRelay, type Consumer, type RelayOptions } from './relay.ts';

export interface WorkerLog {
  info(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface Worker {
  stop(): Promise<void>;
}

const DONE_RETENTION_MS = 7 * 24 * 60 * 60_000;
const MAINTENANCE_EVERY_MS = 10 * 60_000;

/**
 * The background loop: drains the outbox, sleeping between empty passes until a NOTIFY from emit()
 * or the poll interval wakes it, and prunes finished events and expired idempotency records.
 */
export async function startWorker(opts: {
  database: Database;
  consumers: readonly Consumer[];
  log: WorkerLog;
  pollMs?: number;
  relay?: RelayOptions;
}): Promise<Worker> {
  const { database, log } = opts;
  const relay = new OutboxRelay(database.db, opts.consumers, log, opts.relay);
  const pollMs = opts.pollMs ?? 1000;
  let running = true;
  let wake: (() => void) | undefined;
  const unlisten = await database.listen(EVENTS_CHANNEL, () => wake?.());
  let lastMaintenance = 0;

  const maintain = async () => {
    const now = Date.now();
    if (now - lastMaintenance < MAINTENANCE_EVERY_MS) return;
    lastMaintenance = now;
    await database.db.deleteFrom('events').where('status', '=', 'done').where('processed_at', '<', new Date(now - DONE_RETENTION_MS)).execute();
    await database.db.deleteFrom('idempotency_keys').where('expires_at', '<', new Date(now)).execute();
  };

  const loop = (async () => {
    while (running) {
      let claimed = 0;
      try {
        await maintain();
        claimed = await relay.runOnce();
      } catch (err) {
        if (running) log.error({ err }, 'worker pass failed');
      }
      if (claimed === 0 && running) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, pollMs);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        wake = undefined;
      }
    }
  })();

  log.info({ consumers: opts.consumers.map((c) => c.name) }, 'worker started');
  return {
    async stop() {
      running = false;
      wake?.();
      await loop;
      await unlisten();
    },
  };
}
