import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ifMatchOf, withEtag } from '../../../platform/http/etag.ts';
import { IdParams } from '../../../platform/http/schemas.ts';
import type { TaxService } from './tax.service.ts';
import {
  CalculateTaxBody,
  ClientTaxSettingsResponse,
  CreateTaxRateBody,
  ListTaxRatesQuery,
  PutClientTaxSettingsBody,
  TaxCalculationResponse,
  TaxRateListResponse,
  TaxRateResponse,
  UpdateTaxRateBody,
} from './tax.schemas.ts';

const tags = ['Tax'];
const NoQuery = Type.Object({}, { additionalProperties: false });

/** /tax-rates, /clients/{id}/tax-settings and /tax/calculate. Percentages take up to three decimals; money is cents. */
export const taxRoutes = (service: TaxService): FastifyPluginAsyncTypebox => async (app) => {
  app.get('/tax-rates', {
    schema: { operationId: 'listTaxRates', tags, summary: 'List tax rates', querystring: ListTaxRatesQuery, response: { 200: TaxRateListResponse } },
    config: { permission: 'billing:read' },
  }, (req) => service.list(req.actor, req.query));
  app.post('/tax-rates', {
    schema: { operationId: 'createTaxRate', tags, summary: 'Create a tax rate (names unique per tenant, any case)', querystring: NoQuery, body: CreateTaxRateBody, response: { 201: TaxRateResponse } },
    config: { permission: 'billing:create' },
  }, async (req, reply) => {
    const rate = await service.create(req.actor, req.body);
    reply.code(201).header('Location', `/api/v1/tax-rates/${rate.tax_rate_id}`);
    return withEtag(req, reply, rate);
  });
  app.get('/tax-rates/:id', {
    schema: { operationId: 'getTaxRate', tags, summary: 'Get a tax rate', params: IdParams, querystring: NoQuery, response: { 200: TaxRateResponse } },
    config: { permission: 'billing:read' },
  }, async (req, reply) => withEtag(req, reply, await service.get(req.actor, req.params.id)));
  app.put('/tax-rates/:id', {
    schema: { operationId: 'updateTaxRate', tags, summary: "Update a tax rate (partial); one that is a client's default cannot be deactivated", params: IdParams, querystring: NoQuery, body: UpdateTaxRateBody, response: { 200: TaxRateResponse } },
    config: { permission: 'billing:update' },
  }, async (req, reply) => withEtag(req, reply, await service.update(req.actor, req.params.id, req.body, ifMatchOf(req))));
  app.delete('/tax-rates/:id', {
    schema: { operationId: 'deleteTaxRate', tags, summary: "Delete a tax rate; one that is a client's default is a 409", params: IdParams, querystring: NoQuery, response: { 204: { type: 'null', description: 'Deleted' } } },
    config: { permission: 'billing:delete' },
  }, async (req, reply) => {
    await service.remove(req.actor, req.params.id, ifMatchOf(req));
    return reply.code(204).send(null);
  });

  app.get('/clients/:id/tax-settings', {
    schema: { operationId: 'getClientTaxSettings', tags, summary: "A client's tax settings (exemption and default rate)", params: IdParams, querystring: NoQuery, response: { 200: ClientTaxSettingsResponse } },
    config: { permission: 'billing:read' },
  }, async (req) => ({ data: await service.clientSettings(req.actor, req.params.id) }));
  app.put('/clients/:id/tax-settings', {
    schema: { operationId: 'putClientTaxSettings', tags, summary: "Change a client's tax settings (partial)", params: IdParams, querystring: NoQuery, body: PutClientTaxSettingsBody, response: { 200: ClientTaxSettingsResponse } },
    config: { permission: 'billing:update' },
  }, async (req) => ({ data: await service.putClientSettings(req.actor, req.params.id, req.body) }));

  app.post('/tax/calculate', {
    schema: { operationId: 'calculateTax', tags, summary: "Price lines exactly: each line's amount and tax rounded half to even to the cent, totals the sums of the lines (saves nothing)", querystring: NoQuery, body: CalculateTaxBody, response: { 200: TaxCalculationResponse } },
    config: { permission: 'billing:read' },
  }, async (req) => ({ data: await service.calculate(req.actor, req.body) }));
};
