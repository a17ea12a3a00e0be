import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Kysely } from 'kysely';
import type { Config } from '../../config.ts';
import type { DB } from '../../platform/db/schema.ts';
import type { KeyCache } from '../../platform/auth/key-cache.ts';
import type { SecretBox } from '../../platform/crypto/secret-box.ts';
import type { BucketStore } from '../../platform/http/rate-limit/token-bucket.ts';
import type { AuthContext } from './auth.context.ts';
import { createCredentialsSignIn } from './credentials.service.ts';
import { createCsrf } from './csrf.ts';
import { createOidc } from './oidc.service.ts';
import { createLimiter } from './rate-limit.ts';
import { sessionRoutes } from './session.routes.ts';
import { createSessions } from './sessions.service.ts';
import { signInRoutes } from './signin.routes.ts';
import { authMaintenance } from './auth.maintenance.ts';
import { defineModule } from '../deps.ts';

import { revokeSessionsOfUser } from './sessions.service.ts';
import type { UsersApi } from '../users/index.ts';

export interface AuthModuleDeps {
  db: Kysely<DB>;
  config: Readonly<Config>;
  secretBox: SecretBox;
  keyCache: KeyCache;
  buckets: BucketStore;
}

/**
 * Browser sign-in and sessions under /api/auth: key and token validation, the session object, CSRF,
 * credentials (with TOTP) and OpenID Connect sign-in, sign-out. Register with prefix /api/auth.
 */
export function createAuthModule(deps: AuthModuleDeps) {
  const { db, config, secretBox } = deps;
  const sessions = createSessions({ db, ttlMs: config.sessionTtlMs });
  const ctx: AuthContext = {
    db,
    config,
    keyCache: deps.keyCache,
    csrf: createCsrf(secretBox),
    limiter: createLimiter(deps.buckets, { signIn: config.signInLimit, authFailure: config.authFailureLimit }),
    sessions,
    credentials: createCredentialsSignIn({ db, secretBox, sessions, lockout: config.loginLockout }),
    oidc: createOidc({ db, secretBox, sessions, providers: config.oidcProviders, publicUrl: config.publicUrl }),
  };
  // Cookies and form bodies exist only inside this plugin: /api/v1 stays JSON-only and cookie-blind.
  const routes: FastifyPluginAsyncTypebox = async (app) => {
    await app.register(cookie);
    await app.register(formbody, { bodyLimit: 64 * 1024 });
    await app.register(sessionRoutes(ctx));
    await app.register(signInRoutes(ctx));
  };
  return { sessions, routes };
}

/** Browser sign-in, mounted at /api/auth. */
export const authModule = defineModule({
  name: 'auth',
  build: (deps) => {
    // A deactivated user, or one whose password changed, is signed out everywhere (in that change's transaction).
    deps.services<UsersApi>('users').lifecycle.onSignInRevoked(revokeSessionsOfUser);
    return { routes: [{ prefix: '/api/auth', plugin: createAuthModule(deps).routes }] };
  },
  worker: ({ db }) => ({ schedules: [authMaintenance(db)] }),
});
