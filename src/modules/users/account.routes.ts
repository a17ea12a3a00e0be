import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ifMatchOf, withEtag } from '../../platform/http/etag.ts';
import { IdParams } from '../../platform/http/schemas.ts';
import type { AccountService } from './account.service.ts';
import {
  ActivityListResponse,
  ChangePasswordBody,
  PasswordChangedResponse,
  PreferencesPatch,
  PreferencesResponse,
  TenantActivityQuery,
  UserActivityQuery,
} from './account.schemas.ts';
import { metaOf } from './users.access.ts';
import { NoQuery } from './users.schemas.ts';

const tags = ['Users'];

/** Password, preferences and activity: self-service on your own account, user:* for anyone else's. */
export const accountRoutes = (service: AccountService): FastifyPluginAsyncTypebox => async (app) => {
  app.put('/users/:id/password', {
    schema: {
      operationId: 'changeUserPassword',
      tags,
      summary: 'Change a password: your own with current_password, another user’s with user:update; ends the user’s sessions',
      params: IdParams,
      querystring: NoQuery,
      body: ChangePasswordBody,
      response: { 200: PasswordChangedResponse },
    },
    config: { permission: null },
  }, async (req) => ({ data: await service.changePassword(req.actor, req.params.id, req.body, ifMatchOf(req), metaOf(req)) }));

  app.get('/users/:id/preferences', {
    schema: {
      operationId: 'getUserPreferences',
      tags,
      summary: 'Get a user’s preferences (yours without permission; others need user:read)',
      params: IdParams,
      querystring: NoQuery,
      response: { 200: PreferencesResponse },
    },
    config: { permission: null },
  }, async (req, reply) => withEtag(req, reply, await service.getPreferences(req.actor, req.params.id)));

  app.put('/users/:id/preferences', {
    schema: {
      operationId: 'updateUserPreferences',
      tags,
      summary: 'Merge settings into a user’s preferences; null removes a key (yours without permission; others need user:update)',
      params: IdParams,
      querystring: NoQuery,
      body: PreferencesPatch,
      response: { 200: PreferencesResponse },
    },
    config: { permission: null },
  }, async (req, reply) => withEtag(req, reply, await service.updatePreferences(req.actor, req.params.id, req.body, ifMatchOf(req))));

  // A static path: Fastify matches it before /users/:id.
  app.get('/users/activity', {
    schema: {
      operationId: 'listTenantUserActivity',
      tags,
      summary: 'The activity log of all users of the tenant, newest first',
      querystring: TenantActivityQuery,
      response: { 200: ActivityListResponse },
    },
    config: { permission: 'user:read' },
  }, (req) => service.tenantActivity(req.actor, req.query));

  app.get('/users/:id/activity', {
    schema: {
      operationId: 'listUserActivity',
      tags,
      summary: 'A user’s activity log, newest first (yours without permission; others need user:read)',
      params: IdParams,
      querystring: UserActivityQuery,
      response: { 200: ActivityListResponse },
    },
    config: { permission: null },
  }, (req) => service.userActivity(req.actor, req.params.id, req.query));
};
