import type { Database } from './platform/db/database.ts';
import type { PeriodicTask } from './platform/events/worker.ts';
import { authMaintenance } from './modules/auth/index.ts';
import { storageMaintenance } from './modules/storage/index.ts';

/**
 * Periodic housekeeping of the areas (expiry sweeps and the like), run by the worker. The platform's
 * own retention tasks are built into the worker.
 */
export function backgroundTasks(database: Database): PeriodicTask[] {
  return [authMaintenance(database.db), storageMaintenance(database.db)];
}
