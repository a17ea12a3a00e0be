import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * The cookies of browser sign-in. Over HTTPS (directly, or per X-Forwarded-Proto when PSA_TRUST_PROXY
 * is set) they carry Secure and the `__Secure-` prefix, and only the prefixed name is read back, so a
 * plain-HTTP cookie planted by a sibling site cannot stand in for them. All are HttpOnly, SameSite=Lax.
 */
export const isHttps = (req: FastifyRequest): boolean => req.protocol === 'https';

const named = (req: FastifyRequest, base: string) => (isHttps(req) ? `__Secure-${base}` : base);

interface CookieSpec {
  base: string;
  path: string;
}

const SESSION: CookieSpec = { base: 'session-token', path: '/' };
const CSRF: CookieSpec = { base: 'csrf-token', path: '/api/auth' };
/** Binds an identity-provider sign-in to the browser that started it (login-CSRF protection). */
const OIDC_STATE: CookieSpec = { base: 'auth-state', path: '/api/auth/callback' };

function read(req: FastifyRequest, spec: CookieSpec): string | undefined {
  const value = req.cookies[named(req, spec.base)];
  return value ? value : undefined;
}

function write(reply: FastifyReply, spec: CookieSpec, value: string, maxAgeSeconds: number): void {
  reply.setCookie(named(reply.request, spec.base), value, {
    path: spec.path,
    httpOnly: true,
    sameSite: 'lax',
    secure: isHttps(reply.request),
    maxAge: maxAgeSeconds,
  });
}

function clear(reply: FastifyReply, spec: CookieSpec): void {
  reply.clearCookie(named(reply.request, spec.base), { path: spec.path, httpOnly: true, sameSite: 'lax', secure: isHttps(reply.request) });
}

export const sessionCookieName = (req: FastifyRequest): string => named(req, SESSION.base);
export const readSessionCookie = (req: FastifyRequest) => read(req, SESSION);
export const setSessionCookie = (reply: FastifyReply, token: string, expiresAt: Date) =>
  write(reply, SESSION, token, Math.max(1, Math.floor((expiresAt.getTime() - Date.now()) / 1000)));
export const clearSessionCookie = (reply: FastifyReply) => clear(reply, SESSION);

export const readCsrfCookie = (req: FastifyRequest) => read(req, CSRF);
/** The CSRF cookie lives as long as a browser session would normally need it: 12 hours. */
export const setCsrfCookie = (reply: FastifyReply, value: string) => write(reply, CSRF, value, 12 * 60 * 60);

export const readStateCookie = (req: FastifyRequest) => read(req, OIDC_STATE);
export const setStateCookie = (reply: FastifyReply, state: string, maxAgeSeconds: number) => write(reply, OIDC_STATE, state, maxAgeSeconds);
export const clearStateCookie = (reply: FastifyReply) => clear(reply, OIDC_STATE);

/** `Authorization: Bearer <token>`, if sent. */
export function bearerToken(req: FastifyRequest): string | undefined {
  const header = req.headers.authorization;
  const m = typeof header === 'string' ? /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header) : null;
  return m?.[1];
}
