import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { EntitlementsService } from './entitlements.service.ts';
import { FeatureAccessBody, FeatureAccessResponse, FeatureListResponse, NoQuery } from './entitlements.schemas.ts';

const tags = ['Feature access'];

export const entitlementsRoutes = (service: EntitlementsService): FastifyPluginAsyncTypebox => async (app) => {
  app.post('/feature-access', {
    schema: {
      operationId: 'checkFeatureAccess',
      tags,
      summary: 'Whether a user may use a feature, and if not, why (plan, add-on, subscription, permissions)',
      description: 'Checking yourself needs no permission; checking another user needs user:read. An unknown feature_name is a 404.',
      querystring: NoQuery,
      body: FeatureAccessBody,
      response: { 200: FeatureAccessResponse },
    },
    config: { permission: null },
  }, async (req) => ({ data: await service.check(req.actor, req.body) }));

  app.get('/features', {
    schema: {
      operationId: 'listFeatures',
      tags,
      summary: 'The feature registry with the caller\'s access to each feature and the tenant\'s plan',
      querystring: NoQuery,
      response: { 200: FeatureListResponse },
    },
    config: { permission: null },
  }, (req) => service.list(req.actor));
};
