import type { Kysely } from 'kysely';
import type { DB } from '../../platform/db/schema.ts';
import { createStorageService } from './storage.service.ts';
import { storageRoutes } from './storage.routes.ts';
import type { StorageLimits } from './storage.limits.ts';
import { defineModule, V1 } from '../deps.ts';

import { storageMaintenance } from './storage.maintenance.ts';
export { DEFAULT_STORAGE_LIMITS, type StorageLimits } from './storage.limits.ts';
export { createStorageService, type StorageService } from './storage.service.ts';
export { PutRecordBody, RecordParams } from './storage.schemas.ts';

export function createStorageModule(deps: { db: Kysely<DB>; limits?: Partial<StorageLimits>; now?: () => Date }) {
  const service = createStorageService(deps);
  return { service, routes: storageRoutes(service) };
}

export const storageModule = defineModule({
  name: 'storage',
  permissions: [{ resource: 'storage', actions: ['read', 'write'], roles: { Manager: ['read', 'write'] } }],
  build: (deps) => ({ routes: [{ prefix: V1, plugin: createStorageModule(deps).routes }] }),
  worker: ({ db }) => ({ schedules: [storageMaintenance(db)] }),
});
