import { defineModule } from '../deps.ts';
import { healthRoutes } from './health.routes.ts';

/** Liveness and readiness probes, outside the versioned API. */
export const healthModule = defineModule({
  name: 'health',
  build: (deps) => ({ routes: [{ prefix: '', plugin: healthRoutes(deps.db) }] }),
});
