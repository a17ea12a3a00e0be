import type { Kysely } from 'kysely';
import type { Config } from '../../config.ts';
import type { DB } from '../../platform/db/schema.ts';
import type { KeyCache } from '../../platform/auth/key-cache.ts';
import type { CredentialsSignIn } from './credentials.service.ts';
import type { Csrf } from './csrf.ts';
import type { Limiter } from './rate-limit.ts';
import type { Oidc } from './oidc.service.ts';
import type { Sessions } from './sessions.service.ts';

/** What the sign-in routes work with. */
export interface AuthContext {
  db: Kysely<DB>;
  config: Readonly<Config>;
  keyCache: KeyCache;
  csrf: Csrf;
  limiter: Limiter;
  sessions: Sessions;
  credentials: CredentialsSignIn;
  oidc: Oidc;
}
