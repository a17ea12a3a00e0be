import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { IdParams } from '../../../platform/http/schemas.ts';
import type { BillingProfilesService } from './billing-profiles.service.ts';
import {
  BillingProfileListResponse,
  ProfileContactListResponse,
  ProfileParams,
  PutProfileContactsBody,
} from './billing-profiles.schemas.ts';

const tags = ['Clients'];
const NoQuery = Type.Object({}, { additionalProperties: false });

export const billingProfilesRoutes = (service: BillingProfilesService): FastifyPluginAsyncTypebox => async (app) => {
  app.get('/clients/:id/billing-profiles', {
    schema: {
      operationId: 'listClientBillingProfiles',
      tags,
      summary: 'List a client\'s billing profiles, the default first',
      params: IdParams,
      querystring: NoQuery,
      response: { 200: BillingProfileListResponse },
    },
    config: { permission: 'client:read' },
  }, async (req) => ({ data: await service.list(req.actor, req.params.id) }));

  app.get('/clients/:id/billing-profiles/:profileId/contacts', {
    schema: {
      operationId: 'listBillingProfileContacts',
      tags,
      summary: 'List the contacts that manage a billing profile',
      params: ProfileParams,
      querystring: NoQuery,
      response: { 200: ProfileContactListResponse },
    },
    config: { permission: 'client:read' },
  }, async (req) => ({ data: await service.listContacts(req.actor, req.params.id, req.params.profileId) }));

  app.put('/clients/:id/billing-profiles/:profileId/contacts', {
    schema: {
      operationId: 'replaceBillingProfileContacts',
      tags,
      summary: 'Replace the whole list of a billing profile\'s managing contacts (contacts of the same client only)',
      params: ProfileParams,
      querystring: NoQuery,
      body: PutProfileContactsBody,
      response: { 200: ProfileContactListResponse },
    },
    config: { permission: 'client:update' },
  }, async (req) => ({ data: await service.replaceContacts(req.actor, req.params.id, req.params.profileId, req.body) }));
};
