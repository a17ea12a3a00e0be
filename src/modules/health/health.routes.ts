import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { sql, type Kysely } from 'kysely';
import { Type } from 'typebox';
import type { DB } from '../../platform/db/schema.ts';
import { AppError } from '../../platform/http/errors.ts';

const Status = Type.Object({ status: Type.String() });
const tags = ['Health'];

export const healthRoutes = (db: Kysely<DB>): FastifyPluginAsyncTypebox => async (app) => {
  app.get('/healthz', {
    schema: { operationId: 'getHealth', tags, summary: 'Liveness: the process is up', response: { 200: Status } },
    config: { public: true },
  }, async () => ({ status: 'ok' }));

  app.get('/readyz', {
    schema: { operationId: 'getReadiness', tags, summary: 'Readiness: the database answers', response: { 200: Status } },
    config: { public: true },
  }, async (req) => {
    try {
      await sql`select 1`.execute(db);
      return { status: 'ready' };
    } catch (err) {
      req.log.warn({ err }, 'readiness check failed');
      throw new AppError('SERVICE_UNAVAILABLE', 'The database is not reachable');
    }
  });
};
