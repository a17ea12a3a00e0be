import type { Kysely } from 'kysely';
import type { DB } from '../../platform/db/schema.ts';
import type { KeyCache } from '../../platform/auth/key-cache.ts';
import { createApiKeysService } from './api-keys.service.ts';
import { apiKeysRoutes } from './api-keys.routes.ts';
import { defineModule, V1 } from '../deps.ts';

export { issueApiKey } from './api-keys.service.ts';

export function createApiKeysModule(deps: { db: Kysely<DB>; keyCache: KeyCache }) {
  const service = createApiKeysService(deps);
  return { service, routes: apiKeysRoutes(service) };
}

const OWN_KEYS = ['create', 'read', 'delete'];

export const apiKeysModule = defineModule({
  name: 'api-keys',
  permissions: [
    {
      // api_key:manage lets an admin create, list and revoke keys of other users and set per-key rate limits.
      resource: 'api_key',
      actions: ['create', 'read', 'delete', 'manage'],
      roles: { Manager: OWN_KEYS, Technician: OWN_KEYS, Finance: OWN_KEYS, Viewer: ['create', 'delete'], 'Client Admin': OWN_KEYS, 'Client User': OWN_KEYS },
    },
  ],
  build: (deps) => ({ routes: [{ prefix: V1, plugin: createApiKeysModule(deps).routes }] }),
});
