import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { emptyBodyIsObject } from '../../platform/http/empty-body.ts';
import { IdParams } from '../../platform/http/schemas.ts';
import type { RequestMeta, TwoFactorService } from './two-factor.service.ts';
import { DisableTwoFactorBody, EnableTwoFactorBody, EnableTwoFactorResponse } from './two-factor.schemas.ts';

const tags = ['Users'];

const metaOf = (req: FastifyRequest): RequestMeta => ({ ip: req.ip, userAgent: req.headers['user-agent'] ?? null });


export const twoFactorRoutes = (service: TwoFactorService): FastifyPluginAsyncTypebox => async (app) => {
  // Self-service: the service lets anyone manage their own and asks user:update for anyone else's.
  app.post('/users/:id/2fa/enable', {
    schema: {
      operationId: 'enableUserTwoFactor',
      tags,
      summary: 'Start a TOTP enrolment (no body: returns a new secret and otpauth URL, valid 10 minutes) or confirm it ({token}: returns one-time recovery codes)',
      params: IdParams,
      body: EnableTwoFactorBody,
      response: { 200: EnableTwoFactorResponse },
    },
    config: { permission: null },
    preValidation: emptyBodyIsObject,
  }, async (req) => ({ data: await service.enable(req.actor, req.params.id, req.body, metaOf(req)) }));

  app.delete('/users/:id/2fa/disable', {
    schema: {
      operationId: 'disableUserTwoFactor',
      tags,
      summary: 'Disable two-factor authentication: your own with a current code or a recovery code; another user’s with user:update',
      params: IdParams,
      body: DisableTwoFactorBody,
      response: { 204: { type: 'null', description: 'Disabled; the secret and recovery codes are deleted' } },
    },
    config: { permission: null },
    preValidation: emptyBodyIsObject,
  }, async (req, reply) => {
    await service.disable(req.actor, req.params.id, req.body, metaOf(req));
    return reply.code(204).send(null);
  });
};
