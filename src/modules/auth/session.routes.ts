import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { hashApiKey, KEY_RE } from '../../platform/auth/api-key-secret.ts';
import type { AuthContext } from './auth.context.ts';
import { FlatError, InvalidToken, NoBody, NoQuery, SessionResponse, ValidateKeyResponse, ValidateTokenResponse } from './auth.schemas.ts';
import { bearerToken, readSessionCookie } from './cookies.ts';
import { emptyBodyIsObject } from '../../platform/http/empty-body.ts';
import { sessionUserType, toSessionUser } from './session-user.mapper.ts';

const tags = ['Authentication'];

/** Key and token validation and the session object: public routes that authenticate by themselves. */
export const sessionRoutes = (ctx: AuthContext): FastifyPluginAsyncTypebox => async (app) => {
  app.post('/validate-key', {
    schema: {
      operationId: 'validateApiKey',
      tags,
      summary: 'Check an API key (x-api-key header): who it belongs to; 401 with the flat error form when it is not valid',
      querystring: NoQuery,
      body: NoBody,
      response: { 200: ValidateKeyResponse, 401: FlatError },
    },
    config: { public: true },
    preValidation: emptyBodyIsObject,
  }, async (req, reply) => {
    const header = req.headers['x-api-key'];
    const key = typeof header === 'string' ? header.trim() : '';
    let record = key && KEY_RE.test(key) ? await ctx.keyCache.resolve(hashApiKey(key)) : undefined;
    if (record && record.expiresAt !== null && record.expiresAt <= Date.now()) record = undefined;
    if (!record) {
      await ctx.limiter.authFailure(req);
      return reply.code(401).send({ error: key ? 'Invalid API key' : 'API key required: send it in the x-api-key header' });
    }
    return { isValid: true as const, userId: record.actor.userId, tenant: record.actor.tenant };
  });

  app.get('/validate-token', {
    schema: {
      operationId: 'validateSessionToken',
      tags,
      summary: 'Check a session token (Authorization: Bearer, or the session cookie): the user type and tenant, or 401 {isValid: false}',
      querystring: NoQuery,
      response: { 200: ValidateTokenResponse, 401: InvalidToken },
    },
    config: { public: true },
  }, async (req, reply) => {
    const token = bearerToken(req) ?? readSessionCookie(req);
    const session = await ctx.sessions.resolve(token);
    if (!session) {
      if (token) await ctx.limiter.authFailure(req);
      return reply.code(401).send({ isValid: false as const });
    }
    return { isValid: true as const, userType: sessionUserType(session.user_type), tenant: session.tenant };
  });

  app.get('/session', {
    schema: {
      operationId: 'getAuthSession',
      tags,
      summary: 'The signed-in user of the session cookie, or an empty object without a valid session',
      querystring: NoQuery,
      response: { 200: SessionResponse },
    },
    config: { public: true },
  }, async (req) => {
    const session = await ctx.sessions.resolve(readSessionCookie(req));
    return session ? toSessionUser(session) : {};
  });
};
