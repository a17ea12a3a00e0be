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

/** Housekeeping the worker runs between outbox passes (expiry sweeps, retention). */
export interface PeriodicTask {
  name: string;
  everyMs: number;
  run(): Promise<void>;
}

/**
 * A long-lived loop the worker runs beside the outbox relay (webhook delivery): started after the
 * relay, stopped before it, each in its own error boundary.
 */
export interface BackgroundService {
  name: string;
  start(): Promise<void>;
  stop(): Promise<void>;
}

const DONE_RETENTION_MS = 7 * 24 * 60 * 60_000;
const MAINTENANCE_EVERY_MS = 10 * 60_000;

function platformTasks(database: Database): PeriodicTask[] {
  return [
    {
      name: 'outbox-retention',
      everyMs: MAINTENANCE_EVERY_MS,
      run: async () => {
        await database.db.deleteFrom('events').where('status', '=', 'done').where('processed_at', '<', new Date(Date.now() - DONE_RETENTION_MS)).execute();
      },
    },
    {
      name: 'idempotency-expiry',
      everyMs: MAINTENANCE_EVERY_MS,
      run: async () => {
        await database.db.deleteFrom('idempotency_keys').where('expires_at', '<', new Date()).execute();
      },
    },
  ];
}

/**
 * The background loop: drains the outbox, sleeping between empty passes until a NOTIFY from emit()
 * or the poll interval wakes it, and runs periodic tasks when due (the platform's retention plus the
 * areas' own, from src/background-tasks.ts). A failing task is logged and retried at its next turn.
 */
export async function startWorker(opts: {
  database: Database;
  consumers: readonly Consumer[];
  log: WorkerLog;
  pollMs?: number;
  relay?: RelayOptions;
  tasks?: readonly PeriodicTask[];
  services?: readonly BackgroundService[];
}): Promise<Worker> {
  const { database, log } = opts;
  const relay = new OutboxRelay(database.db, opts.consumers, log, opts.relay);
  const pollMs = opts.pollMs ?? 1000;
  let running = true;
  let wake: (() => void) | undefined;
  // A NOTIFY that arrives while a pass runs (after its claim saw nothing) must not be lost until the
  // next poll: it is remembered and the loop goes straight to another pass.
  let notified = false;
  const unlisten = await database.listen(EVENTS_CHANNEL, () => {
    if (wake) wake();
    else notified = true;
  });
  const tasks = [...platformTasks(database), ...(opts.tasks ?? [])].map((task) => ({ task, lastRun: 0 }));

  const maintain = async () => {
    for (const entry of tasks) {
      if (!running || Date.now() - entry.lastRun < entry.task.everyMs) continue;
      entry.lastRun = Date.now();
      try {
        await entry.task.run();
      } catch (err) {
        log.error({ err, task: entry.task.name }, 'periodic task failed');
      }
    }
  };

  const loop = (async () => {
    while (running) {
      let claimed = 0;
      notified = false;
      try {
        await maintain();
        claimed = await relay.runOnce();
      } catch (err) {
        if (running) log.error({ err }, 'worker pass failed');
      }
      if (claimed === 0 && running && !notified) {
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

  // A service that cannot start stops the worker: better no worker than one that silently does not deliver.
  const services: BackgroundService[] = [];
  try {
    for (const service of opts.services ?? []) {
      await service.start();
      services.push(service);
    }
  } catch (err) {
    for (const service of services.reverse()) await service.stop().catch(() => undefined);
    running = false;
    wake?.();
    await loop;
    await unlisten();
    throw err;
  }

  log.info({ consumers: opts.consumers.map((c) => c.name), services: services.map((s) => s.name) }, 'worker started');
  return {
    async stop() {
      for (const service of services) {
        try {
          await service.stop();
        } catch (err) {
          log.error({ err, service: service.name }, 'background service failed to stop');
        }
      }
      running = false;
      wake?.();
      await loop;
      await unlisten();
    },
  };
}
