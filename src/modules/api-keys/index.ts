import type { Kysely } from 'kysely';
import type { DB } from '../../platform/db/schema.ts';
import type { KeyCache } from '../../platform/auth/key-cache.ts';
import { createApiKeysService } from './api-keys.service.ts';
import { apiKeysRoutes } from './api-keys.routes.ts';

export { issueApiKey } from './api-keys.service.ts';

export function createApiKeysModule(deps: { db: Kysely<DB>; keyCache: KeyCache }) {
  const service = createApiKeysService(deps);
  return { service, routes: apiKeysRoutes(service) };
}
