import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ifMatchOf, withEtag } from '../../../platform/http/etag.ts';
import { IdParams } from '../../../platform/http/schemas.ts';
import type { ContractLinesService } from './lines.service.ts';
import {
  AddLineServiceBody,
  ContractLineListResponse,
  ContractLineResponse,
  CreateContractLineBody,
  LineServiceListResponse,
  LineServiceParams,
  LineServiceResponse,
  ListContractLinesQuery,
  UpdateContractLineBody,
  UpdateLineServiceBody,
} from './lines.schemas.ts';

const tags = ['Contract lines'];
const NoQuery = Type.Object({}, { additionalProperties: false });
const Deleted = { 204: { type: 'null', description: 'Deleted' } } as const;

/** /contract-lines: reusable price plans with typed settings, and the catalogue items on each. */
export const contractLinesRoutes = (service: ContractLinesService): FastifyPluginAsyncTypebox => async (app) => {
  app.get('/contract-lines', {
    schema: { operationId: 'listContractLines', tags, summary: 'List contract lines with their services; amounts in integer cents', querystring: ListContractLinesQuery, response: { 200: ContractLineListResponse } },
    config: { permission: 'contract:read' },
  }, (req) => service.list(req.actor, req.query));
  app.post('/contract-lines', {
    schema: { operationId: 'createContractLine', tags, summary: 'Create a contract line; config is checked against contract_line_type', querystring: NoQuery, body: CreateContractLineBody, response: { 201: ContractLineResponse } },
    config: { permission: 'contract:create' },
  }, async (req, reply) => {
    const line = await service.create(req.actor, req.body);
    reply.code(201).header('Location', `/api/v1/contract-lines/${line.contract_line_id}`);
    return withEtag(req, reply, line);
  });
  app.get('/contract-lines/:id', {
    schema: { operationId: 'getContractLine', tags, summary: 'Get a contract line', params: IdParams, querystring: NoQuery, response: { 200: ContractLineResponse } },
    config: { permission: 'contract:read' },
  }, async (req, reply) => withEtag(req, reply, await service.get(req.actor, req.params.id)));
  app.put('/contract-lines/:id', {
    schema: { operationId: 'updateContractLine', tags, summary: 'Update a contract line (partial; config replaced wholesale; a new type needs its config)', params: IdParams, querystring: NoQuery, body: UpdateContractLineBody, response: { 200: ContractLineResponse } },
    config: { permission: 'contract:update' },
  }, async (req, reply) => withEtag(req, reply, await service.update(req.actor, req.params.id, req.body, ifMatchOf(req))));
  app.delete('/contract-lines/:id', {
    schema: { operationId: 'deleteContractLine', tags, summary: 'Delete a contract line; one attached to a contract is a 409', params: IdParams, querystring: NoQuery, response: Deleted },
    config: { permission: 'contract:delete' },
  }, async (req, reply) => {
    await service.remove(req.actor, req.params.id, ifMatchOf(req));
    return reply.code(204).send(null);
  });

  app.get('/contract-lines/:id/services', {
    schema: { operationId: 'listContractLineServices', tags, summary: "The catalogue items on a line, with the line's rates", params: IdParams, querystring: NoQuery, response: { 200: LineServiceListResponse } },
    config: { permission: 'contract:read' },
  }, async (req) => ({ data: await service.listServices(req.actor, req.params.id) }));
  app.post('/contract-lines/:id/services', {
    schema: { operationId: 'addContractLineService', tags, summary: 'Add a catalogue item to a line (it must suit the line type); twice is a 409', params: IdParams, querystring: NoQuery, body: AddLineServiceBody, response: { 201: LineServiceResponse } },
    config: { permission: 'contract:update' },
  }, async (req, reply) => {
    const item = await service.addService(req.actor, req.params.id, req.body);
    reply.code(201).header('Location', `/api/v1/contract-lines/${req.params.id}/services/${item.service_id}`);
    return { data: item };
  });
  app.put('/contract-lines/:id/services/:serviceId', {
    schema: { operationId: 'updateContractLineService', tags, summary: "Change a service's quantity or rate on a line", params: LineServiceParams, querystring: NoQuery, body: UpdateLineServiceBody, response: { 200: LineServiceResponse } },
    config: { permission: 'contract:update' },
  }, async (req) => ({ data: await service.updateService(req.actor, req.params.id, req.params.serviceId, req.body) }));
  app.delete('/contract-lines/:id/services/:serviceId', {
    schema: { operationId: 'removeContractLineService', tags, summary: 'Remove a service from a line', params: LineServiceParams, querystring: NoQuery, response: Deleted },
    config: { permission: 'contract:update' },
  }, async (req, reply) => {
    await service.removeService(req.actor, req.params.id, req.params.serviceId);
    return reply.code(204).send(null);
  });
};
