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
import { logDestination } from './platform/logging.ts';
import { registerSecurity } from './platform/http/security.ts';
import { createSchemaCompilers, registerValidators } from './platform/http/validation.ts';
import { MemoryBucketStore, type BucketStore } from './platform/http/rate-limit/token-bucket.ts';
import { resolveSecretKey, SecretBox } from './platform/crypto/secret-box.ts';
import { installListCursorKey } from './platform/http/list-cursor.ts';
import { buildModules } from './modules.ts';
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

/**
 * The app plus what tests and tools inspect: the auth cache, every registered route, and compileSchemas(),
 * which compiles every route's validators and serializers now (they compile on first use otherwise) and
 * returns how many it compiled.
 */
export type App = FastifyInstance & { keyCache: KeyCache; secretBox: SecretBox; routeTable: readonly RouteOptions[]; compileSchemas: () => number };

const REQUEST_ID_RE = /^[A-Za-z0-9._:-]{1,128}$/;

/** Builds the HTTP app: platform mechanisms first, then each area's routes (src/modules.ts lists the areas). */
export async function buildApp(deps: AppDeps): Promise<App> {
  const { config, database } = deps;
  const db = database.db;
  // Validators and serializers compile on first use, not all ~460 routes' at start-up (platform/http/validation.ts).
  const compilers = createSchemaCompilers();
  const app = Fastify({
    schemaController: compilers.schemaController,
    logger: deps.logger ?? {
      level: config.logLevel, serializers: logSerializers, redact: ['req.headers["x-api-key"]', 'req.headers.authorization', 'req.headers.cookie'],
      stream: logDestination(config.logFormat),
    },
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
  // The list use case signs its keyset cursors with it (list-cursor.ts).
  installListCursorKey(secretBox);
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
  registerValidators(app, compilers);
  registerErrorHandler(app);
  registerNotFound(app);
  await registerSecurity(app, config.corsOrigins);
  await registerOpenApi(app, { publicUrl: config.publicUrl });
  registerAuthHook(app, { db, keyCache, buckets, defaultLimit: config.rateLimit, authFailureLimit: config.authFailureLimit });
  registerIdempotency(app, db, secretBox);

  // Every area's routes, in the module list's order.
  for (const module of buildModules({ db, database, config, secretBox, keyCache, buckets, outbound: webhookClient })) {
    for (const route of module.routes ?? []) await app.register(route.plugin, { prefix: route.prefix });
  }
  if (deps.extend) await deps.extend(app);

  return Object.assign(app, { keyCache, secretBox, routeTable, compileSchemas: () => compilers.compileAll() }) as unknown as App;
}
