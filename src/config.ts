import { resolve } from 'node:path';

/** Everything the process reads from its environment, parsed once and frozen. */
export interface Config {
  host: string;
  port: number;
  /** postgres://… selects PostgreSQL; otherwise the embedded PGlite database in dataDir. */
  databaseUrl: string | undefined;
  dataDir: string;
  redisUrl: string | undefined;
  logLevel: string;
  corsOrigins: string[];
  bodyLimitBytes: number;
  rateLimit: { burst: number; perMinute: number };
  /** Failed authentication attempts allowed per client IP (burst, then per minute). */
  authFailureLimit: { burst: number; perMinute: number };
  trustProxy: boolean;
  /** Whether to run the outbox worker inside the api process (always true for PGlite). */
  embeddedWorker: boolean;
  /** PSA_SECRET_KEY as given (see platform/crypto/secret-box.ts resolveSecretKey). */
  secretKey: string | undefined;
}

export class ConfigError extends Error {}

function int(env: NodeJS.ProcessEnv, name: string, fallback: number, min = 1): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) throw new ConfigError(`${name} must be an integer ≥ ${min}, got "${raw}"`);
  return n;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Readonly<Config> {
  const databaseUrl = env.DATABASE_URL || undefined;
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError('DATABASE_URL must start with postgres:// or postgresql://');
  }
  return Object.freeze({
    host: env.HOST || '127.0.0.1',
    port: int(env, 'PORT', 3000, 0),
    databaseUrl,
    dataDir: resolve(env.PSA_DATA_DIR || './data'),
    redisUrl: env.REDIS_URL || undefined,
    logLevel: env.LOG_LEVEL || 'info',
    corsOrigins: (env.PSA_CORS_ORIGINS || '').split(',').map((s) => s.trim()).filter(Boolean),
    bodyLimitBytes: int(env, 'PSA_BODY_LIMIT_BYTES', 1024 * 1024),
    rateLimit: {
      burst: int(env, 'PSA_RATE_LIMIT_BURST', 120),
      perMinute: int(env, 'PSA_RATE_LIMIT_PER_MINUTE', 60),
    },
    authFailureLimit: {
      burst: int(env, 'PSA_AUTH_FAILURE_BURST', 30),
      perMinute: int(env, 'PSA_AUTH_FAILURE_PER_MINUTE', 10),
    },
    trustProxy: env.PSA_TRUST_PROXY === 'true',
    embeddedWorker: !databaseUrl || env.PSA_EMBEDDED_WORKER !== 'false',
    secretKey: env.PSA_SECRET_KEY || undefined,
  });
}
