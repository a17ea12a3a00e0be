import type { LogFormat } from './platform/logging.ts';
import { resolve } from 'node:path';
import { ConfigError } from './platform/config-error.ts';
import { parseCidrList } from './platform/net/address-policy.ts';

/** Everything the process reads from its environment, parsed once and frozen. */
export interface Config {
  host: string;
  port: number;
  /** postgres://… selects PostgreSQL; otherwise the embedded PGlite database in dataDir. */
  databaseUrl: string | undefined;
  dataDir: string;
  /**
   * Embedded database only: let V8 optimise PGlite's WebAssembly (TurboFan). Off by default: the baseline compiler
   * alone starts faster and keeps ~50 MB less resident, at up to 2× the CPU time of heavy queries.
   * PSA_EMBEDDED_WASM_OPTIMIZE=true.
   */
  embeddedWasmOptimize: boolean;
  redisUrl: string | undefined;
  logLevel: string;
  /** LOG_FORMAT: auto (readable on a terminal, JSON otherwise), json or pretty. */
  logFormat: LogFormat;
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
  /** Sign-in: where browsers reach this service (callback URLs, same-origin redirects). PSA_PUBLIC_URL. */
  publicUrl: string;
  /** Sign-in: lifetime of a session created at sign-in. PSA_SESSION_TTL_DAYS (default 30). */
  sessionTtlMs: number;
  /** Sign-in: attempts per client IP on the sign-in endpoints (burst, then per minute). */
  signInLimit: { burst: number; perMinute: number };
  /** Sign-in: consecutive password failures that lock an account, and for how long. */
  loginLockout: { maxFailures: number; lockMs: number };
  /** Sign-in: OpenID Connect providers (PSA_OIDC_PROVIDERS=google plus PSA_OIDC_GOOGLE_*). */
  oidcProviders: readonly OidcProviderConfig[];
  /** Webhooks: CIDRs exempt from the private-address block, for local development. PSA_WEBHOOK_ALLOW_PRIVATE. */
  webhookAllowPrivate: string[];
  /** Webhooks: how long a worker's claim on an attempt lasts unrenewed (a crashed worker's attempts are re-sent after it). PSA_WEBHOOK_LEASE_MS (default 30000). */
  webhookLeaseMs: number;
  /** Outbox: how long a worker's claim on an event lasts unrenewed (a crashed worker's events are taken over after it). PSA_OUTBOX_LEASE_MS (default 30000). */
  outboxLeaseMs: number;
  /** Jobs: how long a worker's claim on a job lasts unrenewed (a crashed worker's jobs run again after it). PSA_JOB_LEASE_MS (default 30000). */
  jobLeaseMs: number;
  /** E-mail: smtp:// or smtps:// relay (credentials allowed); unset writes .eml files under dataDir/mail. SMTP_URL. */
  smtpUrl?: string;
  /** E-mail: the From header. PSA_MAIL_FROM (default `PSA <psa@localhost>`). */
  mailFrom: string;
  /** Inbound webhooks: the largest request body the receiver accepts. PSA_INBOUND_BODY_LIMIT_BYTES (default 1 MiB). */
  inboundBodyLimitBytes: number;
  /** Ledger: the QuickBooks Online app (PSA_QBO_CLIENT_ID, PSA_QBO_CLIENT_SECRET, PSA_QBO_BASE_URL, PSA_QBO_*_URL); absent when not configured. */
  quickbooks: QuickBooksConfig | undefined;
}

export interface QuickBooksConfig {
  clientId: string;
  clientSecret: string;
  /** The accounting API: https://sandbox-quickbooks.api.intuit.com (default), https://quickbooks.api.intuit.com, or a local server. */
  apiBaseUrl: string;
  authorizeUrl: string;
  tokenUrl: string;
  revokeUrl: string;
  /** First back-off after a 429 or 5xx without Retry-After, doubled per retry. PSA_QBO_RETRY_BASE_MS (default 500). */
  retryBaseMs: number;
}

export interface OidcProviderConfig {
  /** URL-safe id: the path segment of /api/auth/signin/{id} and /api/auth/callback/{id}. */
  id: string;
  name: string;
  issuer: string;
  clientId: string;
  /** Absent for a public client (PKCE only). */
  clientSecret: string | undefined;
}

export { ConfigError };

function int(env: NodeJS.ProcessEnv, name: string, fallback: number, min = 1): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) throw new ConfigError(`${name} must be an integer ≥ ${min}, got "${raw}"`);
  return n;
}

function oneOf<T extends string>(name: string, raw: string, allowed: readonly T[]): T {
  if (!(allowed as readonly string[]).includes(raw)) throw new ConfigError(`${name} must be one of ${allowed.join(', ')}, got "${raw}"`);
  return raw as T;
}

const OIDC_ID_RE = /^[a-z][a-z0-9-]{0,31}$/;
const RESERVED_PROVIDER_IDS = new Set(['credentials', 'email', 'webauthn']);
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

function httpUrl(name: string, raw: string, allowHttp: (u: URL) => boolean): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be an absolute URL, got "${raw}"`);
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && allowHttp(url))) {
    const need = url.protocol === 'http:' ? 'https:// (http:// only on this machine: localhost, 127.0.0.1, [::1])' : 'an http:// or https:// URL';
    throw new ConfigError(`${name} must be ${need}, got "${raw}"`);
  }
  return url;
}

/** http://HOST:PORT, with a wildcard listen address (0.0.0.0, ::) read as localhost. */
function defaultPublicUrl(env: NodeJS.ProcessEnv): string {
  const host = env.HOST || '127.0.0.1';
  const name = host === '0.0.0.0' || host === '::' ? 'localhost' : host.includes(':') ? `[${host}]` : host;
  return `http://${name}:${int(env, 'PORT', 3000, 0)}`;
}

/** PSA_OIDC_PROVIDERS=google,okta plus PSA_OIDC_<ID>_ISSUER, _CLIENT_ID, _CLIENT_SECRET (optional), _NAME (optional). */
function oidcProviders(env: NodeJS.ProcessEnv): OidcProviderConfig[] {
  const ids = (env.PSA_OIDC_PROVIDERS || '').split(',').map((s) => s.trim().toLowerCase()).filter(Boolean);
  if (new Set(ids).size !== ids.length) throw new ConfigError('PSA_OIDC_PROVIDERS lists a provider twice');
  return ids.map((id) => {
    if (!OIDC_ID_RE.test(id) || RESERVED_PROVIDER_IDS.has(id)) {
      throw new ConfigError(`PSA_OIDC_PROVIDERS: "${id}" is not a usable provider id (a-z, 0-9 and dashes, starting with a letter; not ${[...RESERVED_PROVIDER_IDS].join(', ')})`);
    }
    const prefix = `PSA_OIDC_${id.toUpperCase().replace(/-/g, '_')}_`;
    const issuerRaw = env[`${prefix}ISSUER`];
    const clientId = env[`${prefix}CLIENT_ID`];
    if (!issuerRaw) throw new ConfigError(`${prefix}ISSUER is required for the OIDC provider "${id}"`);
    if (!clientId) throw new ConfigError(`${prefix}CLIENT_ID is required for the OIDC provider "${id}"`);
    // http:// only for an identity provider on this machine (development and tests).
    const issuer = httpUrl(`${prefix}ISSUER`, issuerRaw, (u) => LOOPBACK_HOSTS.has(u.hostname));
    return {
      id,
      name: env[`${prefix}NAME`] || id.charAt(0).toUpperCase() + id.slice(1),
      issuer: issuer.href.replace(/\/$/, ''),
      clientId,
      clientSecret: env[`${prefix}CLIENT_SECRET`] || undefined,
    };
  });
}

/** PSA_WEBHOOK_ALLOW_PRIVATE: comma/space separated CIDRs (a bare address is one host). */
function webhookAllowPrivate(env: NodeJS.ProcessEnv): string[] {
  try {
    return parseCidrList(env.PSA_WEBHOOK_ALLOW_PRIVATE || '');
  } catch (err) {
    throw new ConfigError(`PSA_WEBHOOK_ALLOW_PRIVATE: ${(err as Error).message}`);
  }
}

/** SMTP_URL: smtp:// or smtps://. The value is never echoed, since it may carry a password. */
function smtpUrl(env: NodeJS.ProcessEnv): string | undefined {
  const raw = env.SMTP_URL || undefined;
  if (raw === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError('SMTP_URL must be an smtp:// or smtps:// URL (it is not a valid URL)');
  }
  if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') {
    throw new ConfigError(`SMTP_URL must be an smtp:// or smtps:// URL, got ${url.protocol}//…`);
  }
  if (!url.hostname) throw new ConfigError('SMTP_URL must name a host, e.g. smtp://user:pass@mail.example.com:587');
  return raw;
}

/** PSA_MAIL_FROM: one address, optionally with a display name. */
function mailFrom(env: NodeJS.ProcessEnv): string {
  const from = env.PSA_MAIL_FROM || 'PSA <psa@localhost>';
  if (/[\r\n]/.test(from) || !/^[^<>@\s]+@[^<>@\s]+$|<[^<>@\s]+@[^<>@\s]+>$/.test(from.trim())) {
    throw new ConfigError(`PSA_MAIL_FROM must be an address like "PSA <psa@example.com>" or psa@example.com, got "${from}"`);
  }
  return from.trim();
}

const QBO_URLS = {
  api: 'https://sandbox-quickbooks.api.intuit.com',
  authorize: 'https://appcenter.intuit.com/connect/oauth2',
  token: 'https://oauth.platform.intuit.com/oauth2/v1/tokens/bearer',
  revoke: 'https://developer.api.intuit.com/v2/oauth2/tokens/revoke',
};

/**
 * PSA_QBO_CLIENT_ID + PSA_QBO_CLIENT_SECRET turn the ledger on. PSA_QBO_BASE_URL picks the API (the sandbox by
 * default); the OAuth endpoints are Intuit's unless PSA_QBO_AUTHORIZE_URL, _TOKEN_URL, _REVOKE_URL say otherwise —
 * or PSA_QBO_BASE_URL is on this machine (a local server speaking QuickBooks' wire format), which then serves them.
 */
function quickbooks(env: NodeJS.ProcessEnv): QuickBooksConfig | undefined {
  const clientId = env.PSA_QBO_CLIENT_ID || undefined;
  const clientSecret = env.PSA_QBO_CLIENT_SECRET || undefined;
  if (!clientId && !clientSecret) return undefined;
  if (!clientId || !clientSecret) throw new ConfigError('PSA_QBO_CLIENT_ID and PSA_QBO_CLIENT_SECRET are set together (both or neither)');
  const local = (u: URL) => LOOPBACK_HOSTS.has(u.hostname);
  const api = httpUrl('PSA_QBO_BASE_URL', env.PSA_QBO_BASE_URL || QBO_URLS.api, local);
  const base = api.href.replace(/\/$/, '');
  const onThisMachine = local(api);
  const url = (name: string, fallback: string, path: string) =>
    httpUrl(name, env[name] || (onThisMachine ? `${base}${path}` : fallback), local).href;
  return {
    clientId,
    clientSecret,
    apiBaseUrl: base,
    authorizeUrl: url('PSA_QBO_AUTHORIZE_URL', QBO_URLS.authorize, '/connect/oauth2'),
    tokenUrl: url('PSA_QBO_TOKEN_URL', QBO_URLS.token, '/oauth2/v1/tokens/bearer'),
    revokeUrl: url('PSA_QBO_REVOKE_URL', QBO_URLS.revoke, '/v2/oauth2/tokens/revoke'),
    retryBaseMs: int(env, 'PSA_QBO_RETRY_BASE_MS', 500, 0),
  };
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
    embeddedWasmOptimize: env.PSA_EMBEDDED_WASM_OPTIMIZE === 'true',
    redisUrl: env.REDIS_URL || undefined,
    logLevel: env.LOG_LEVEL || 'info',
    logFormat: oneOf('LOG_FORMAT', env.LOG_FORMAT || 'auto', ['auto', 'json', 'pretty'] as const),
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
    publicUrl: httpUrl('PSA_PUBLIC_URL', env.PSA_PUBLIC_URL || defaultPublicUrl(env), () => true).origin,
    sessionTtlMs: int(env, 'PSA_SESSION_TTL_DAYS', 30) * 24 * 60 * 60 * 1000,
    signInLimit: {
      burst: int(env, 'PSA_SIGNIN_BURST', 20),
      perMinute: int(env, 'PSA_SIGNIN_PER_MINUTE', 10),
    },
    loginLockout: {
      maxFailures: int(env, 'PSA_LOGIN_MAX_FAILURES', 5),
      lockMs: int(env, 'PSA_LOGIN_LOCK_MINUTES', 15) * 60 * 1000,
    },
    oidcProviders: oidcProviders(env),
    webhookAllowPrivate: webhookAllowPrivate(env),
    webhookLeaseMs: int(env, 'PSA_WEBHOOK_LEASE_MS', 30_000, 300),
    outboxLeaseMs: int(env, 'PSA_OUTBOX_LEASE_MS', 30_000, 300),
    jobLeaseMs: int(env, 'PSA_JOB_LEASE_MS', 30_000, 300),
    smtpUrl: smtpUrl(env),
    mailFrom: mailFrom(env),
    inboundBodyLimitBytes: int(env, 'PSA_INBOUND_BODY_LIMIT_BYTES', 1024 * 1024),
    quickbooks: quickbooks(env),
  });
}
