import cors from '@fastify/cors';
import helmet from '@fastify/helmet';
import type { FastifyInstance } from 'fastify';

const EXPOSED = ['ETag', 'Location', 'Retry-After', 'X-Request-Id', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'Idempotent-Replayed'];
const ALLOWED = ['Content-Type', 'Authorization', 'X-API-Key', 'Idempotency-Key', 'If-Match', 'If-None-Match', 'X-Request-Id'];

/**
 * CORS answers only origins on the configured allowlist (never a reflected wildcard) and never with
 * credentials: the API authenticates by header, not cookie. Helmet sets the usual security headers;
 * the docs page supplies its own CSP.
 */
export async function registerSecurity(app: FastifyInstance, corsOrigins: readonly string[]): Promise<void> {
  const allow = new Set(corsOrigins);
  await app.register(cors, {
    origin: (origin, cb) => cb(null, origin !== undefined && allow.has(origin)),
    credentials: false,
    methods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
    allowedHeaders: ALLOWED,
    exposedHeaders: EXPOSED,
    maxAge: 600,
  });
  await app.register(helmet, { global: true, contentSecurityPolicy: false, crossOriginResourcePolicy: { policy: 'same-origin' } });
  app.addHook('onSend', async (request, reply, payload) => {
    if (!request.url.startsWith('/docs') && !reply.hasHeader('content-security-policy')) {
      reply.header('Content-Security-Policy', "default-src 'none'; frame-ancestors 'none'");
    }
    reply.header('Cache-Control', reply.getHeader('Cache-Control') ?? 'no-store');
    return payload;
  });
}
