import { randomUUID } from 'node:crypto';
import Fastify, { LogController, type FastifyInstance, type FastifyServerOptions, type RouteOptions } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Config } from './config.ts';
import type { Database } from './platform/db/database.ts';
import { KeyCache, AUTH_CHANNEL } from './platform/auth/key-cache.ts';
import { registerAuthHook } from './platform/auth/auth-hook.ts';
import { registerErrorHandler } from './platform/http/error-handler.ts';
import { registerIdempotency } from './platform/http/idempotency.ts';
import { logSerializers } from './platform/http/log-redaction.ts';
import { registerNotFound } from './platform/http/not-found.ts';
import { registerOpenApi } from './platform/http/openapi.ts';
import { registerSecurity } from './platform/http/security.ts';
import { registerValidators } from './platform/http/validation.ts';
import { MemoryBucketStore, type BucketStore } from './platform/http/rate-limit/token-bucket.ts';
import { resolveSecretKey, SecretBox } from './platform/crypto/secret-box.ts';
import { healthRoutes } from './modules/health/index.ts';
import { countriesRoutes } from './modules/countries/index.ts';
import { createAuthModule } from './modules/auth/index.ts';
import { createTwoFactorModule } from './modules/two-factor/index.ts';
import { createApiKeysModule } from './modules/api-keys/index.ts';
import { createClientsModule } from './modules/clients/index.ts';
import { createContactsModule } from './modules/contacts/index.ts';
import { createUsersModule } from './modules/users/index.ts';
import { createRolesModule } from './modules/roles/index.ts';
import { createTeamsModule } from './modules/teams/index.ts';
import { createEntitlementsModule } from './modules/entitlements/index.ts';
import { createStorageModule } from './modules/storage/index.ts';
import { createTicketsModule } from './modules/tickets/index.ts';
import { createAssetsModule } from './modules/assets/index.ts';
import { createProjectExtras, createProjectsModule } from './modules/projects/index.ts';
import { createWebhooksModule } from './modules/webhooks/index.ts';
import { createInboundWebhooksModule } from './modules/inbound-webhooks/index.ts';
import { createRmmModule } from './modules/rmm/index.ts';
import { createSearchModule } from './modules/search/index.ts';
import { OutboundClient } from './platform/net/outbound-http.ts';

export interface AppDeps {
  config: Readonly<Config>;
  database: Database;
  /** Rate-limit store; memory unless the caller passes the Redis one. */
  buckets?: BucketStore;
  logger?: FastifyServerOptions['logger'];
  /** Encrypts secrets at rest and keys MACs; from resolveSecretKey(config) unless given. */
  secretBox?: SecretBox;
  /** The SSRF-guarded client for webhook URL checks and test sends; one from config unless given (then the caller closes it). */
  webhookClient?: OutboundClient;
  /** Registers extra routes after the modules (the benchmark's baseline route). */
  extend?: (app: FastifyInstance) => Promise<void> | void;
}

/** The app plus what tests and tools inspect: the auth cache and every registered route. */
export type App = FastifyInstance & { keyCache: KeyCache; secretBox: SecretBox; routeTable: readonly RouteOptions[] };

const REQUEST_ID_RE = /^[A-Za-z0-9._:-]{1,128}$/;

/** The composition root: platform mechanisms first, then each module's routes. */
export async function buildApp(deps: AppDeps): Promise<App> {
  const { config, database } = deps;
  const db = database.db;
  const app = Fastify({
    logger: deps.logger ?? { level: config.logLevel, serializers: logSerializers, redact: ['req.headers["x-api-key"]', 'req.headers.authorization', 'req.headers.cookie'] },
    bodyLimit: config.bodyLimitBytes,
    trustProxy: config.trustProxy,
    logController: new LogController({ requestIdLogLabel: 'request_id' }),
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID_RE.test(given) ? given : randomUUID();
    },
    return503OnClosing: true,
    routerOptions: { maxParamLength: 500 },
  }).withTypeProvider<TypeBoxTypeProvider>();

  const secretBox = deps.secretBox ?? new SecretBox(resolveSecretKey(config));
  const webhookClient = deps.webhookClient ?? new OutboundClient({ allowPrivate: config.webhookAllowPrivate });
  if (!deps.webhookClient) app.addHook('onClose', () => webhookClient.close());
  const routeTable: RouteOptions[] = [];
  app.addHook('onRoute', (route) => void routeTable.push(route));

  const keyCache = new KeyCache(db);
  const unlisten = await database.listen(AUTH_CHANNEL, (tenant) => (tenant ? keyCache.invalidateTenant(tenant) : keyCache.clear()));
  const buckets = deps.buckets ?? new MemoryBucketStore();
  app.addHook('onClose', async () => {
    await unlisten();
    await buckets.close();
  });

  app.addHook('onRequest', async (request, reply) => {
    reply.header('X-Request-Id', request.id);
  });
  // JSON only: any other body type is a 415 (areas that need raw bodies add a parser in their own scope).
  app.removeContentTypeParser('text/plain');
  registerValidators(app);
  registerErrorHandler(app);
  registerNotFound(app);
  await registerSecurity(app, config.corsOrigins);
  await registerOpenApi(app);
  registerAuthHook(app, { db, keyCache, buckets, defaultLimit: config.rateLimit, authFailureLimit: config.authFailureLimit });
  registerIdempotency(app, db, secretBox);

  await app.register(healthRoutes(db));
  const v1 = { prefix: '/api/v1' };
  await app.register(countriesRoutes, v1);
  await app.register(createTwoFactorModule({ db, secretBox, buckets }).routes, v1);
  await app.register(createAuthModule({ db, config, secretBox, keyCache, buckets }).routes, { prefix: '/api/auth' });
  await app.register(createApiKeysModule({ db, keyCache }).routes, v1);
  await app.register(createClientsModule({ db }).routes, v1);
  await app.register(createContactsModule({ db }).routes, v1);
  await app.register(createUsersModule({ db, keyCache }).routes, v1);
  await app.register(createRolesModule({ db, keyCache }).routes, v1);
  await app.register(createTeamsModule({ db }).routes, v1);
  await app.register(createEntitlementsModule({ db }).routes, v1);
  await app.register(createStorageModule({ db }).routes, v1);
  await app.register(createTicketsModule({ db, publicUrl: config.publicUrl }).routes, v1);
  await app.register(createAssetsModule({ db, publicUrl: config.publicUrl }).routes, v1);
  await app.register(createProjectsModule({ db, publicUrl: config.publicUrl }).routes, v1);
  // Project templates and GET /api/projects live outside /api/v1 (spec, Versioning); same API-key auth.
  await app.register(createProjectExtras({ db, publicUrl: config.publicUrl }).apiRoutes, { prefix: '/api' });
  await app.register(createWebhooksModule({ db, secretBox, client: webhookClient }).routes, v1);
  await app.register(createRmmModule({ db, secretBox, client: webhookClient }).routes, v1);
  const inboundWebhooks = createInboundWebhooksModule({ db, config, secretBox, buckets });
  await app.register(inboundWebhooks.routes, v1);
  await app.register(inboundWebhooks.receiverRoutes, { prefix: '/api/inbound' });
  await app.register(createSearchModule({ db, cursorMac: secretBox }).routes, v1);
  if (deps.extend) await deps.extend(app);

  return Object.assign(app, { keyCache, secretBox, routeTable }) as unknown as App;
}
