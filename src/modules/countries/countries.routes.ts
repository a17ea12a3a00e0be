import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { COUNTRIES } from './countries.data.ts';

const Country = Type.Object({
  code: Type.String({ description: 'ISO 3166-1 alpha-2' }),
  name: Type.String(),
  phone_code: Type.String({ description: 'International dialing prefix, e.g. +44' }),
});

const response = { data: [...COUNTRIES] };

export const countriesRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/countries', {
    schema: {
      operationId: 'listCountries',
      tags: ['Reference data'],
      summary: 'Every active country (same for all tenants, not paginated)',
      querystring: Type.Object({}, { additionalProperties: false }),
      response: { 200: Type.Object({ data: Type.Array(Country) }) },
    },
    config: { permission: null },
  }, async (_req, reply) => {
    reply.header('Cache-Control', 'private, max-age=86400');
    return response;
  });
};
