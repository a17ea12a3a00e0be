import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ifMatchOf, withEtag } from '../../../platform/http/etag.ts';
import type { ContractsService } from './contracts.service.ts';
import {
  AttachLineBody,
  AttachmentParams,
  ContractListResponse,
  ContractParams,
  ContractResponse,
  CreateContractBody,
  ListContractsQuery,
  UpdateContractBody,
} from './contracts.schemas.ts';

const tags = ['Contracts'];
const NoQuery = Type.Object({}, { additionalProperties: false });
const Deleted = { 204: { type: 'null', description: 'Deleted' } } as const;

/** /contracts: what each client agreed to, and the lines attached (the spec's routes, plus get, update and delete). */
export const contractsRoutes = (service: ContractsService): FastifyPluginAsyncTypebox => async (app) => {
  app.get('/contracts', {
    schema: { operationId: 'listContracts', tags, summary: "List contracts with their assignment and attached lines (a client-portal key sees its own client's)", querystring: ListContractsQuery, response: { 200: ContractListResponse } },
    config: { permission: 'contract:read' },
  }, (req) => service.list(req.actor, req.query));
  app.post('/contracts', {
    schema: { operationId: 'createContract', tags, summary: "Create a contract for a client; it is assigned to the client's billing profile at once", querystring: NoQuery, body: CreateContractBody, response: { 201: ContractResponse } },
    config: { permission: 'contract:create' },
  }, async (req, reply) => {
    const contract = await service.create(req.actor, req.body);
    reply.code(201).header('Location', `/api/v1/contracts/${contract.contract_id}`);
    return withEtag(req, reply, contract);
  });
  app.get('/contracts/:contractId', {
    schema: { operationId: 'getContract', tags, summary: 'Get a contract', params: ContractParams, querystring: NoQuery, response: { 200: ContractResponse } },
    config: { permission: 'contract:read' },
  }, async (req, reply) => withEtag(req, reply, await service.get(req.actor, req.params.contractId)));
  app.put('/contracts/:contractId', {
    schema: { operationId: 'updateContract', tags, summary: 'Update a contract (partial; status moves draft → active → terminated or expired)', params: ContractParams, querystring: NoQuery, body: UpdateContractBody, response: { 200: ContractResponse } },
    config: { permission: 'contract:update' },
  }, async (req, reply) => withEtag(req, reply, await service.update(req.actor, req.params.contractId, req.body, ifMatchOf(req))));
  app.delete('/contracts/:contractId', {
    schema: { operationId: 'deleteContract', tags, summary: 'Delete a contract that is not active (an active one is a 409: terminate it first)', params: ContractParams, querystring: NoQuery, response: Deleted },
    config: { permission: 'contract:delete' },
  }, async (req, reply) => {
    await service.remove(req.actor, req.params.contractId, ifMatchOf(req));
    return reply.code(204).send(null);
  });
  app.post('/contracts/:contractId/contract-lines', {
    schema: { operationId: 'attachContractLine', tags, summary: "Attach a line in the contract's currency (custom_rate_cents overrides its rate here); twice is a 409", params: ContractParams, querystring: NoQuery, body: AttachLineBody, response: { 201: ContractResponse } },
    config: { permission: 'contract:update' },
  }, async (req, reply) => {
    const contract = await service.attachLine(req.actor, req.params.contractId, req.body);
    reply.code(201);
    return withEtag(req, reply, contract);
  });
  app.delete('/contracts/:contractId/contract-lines/:contractLineId', {
    schema: { operationId: 'detachContractLine', tags, summary: 'Detach a line; one that is not attached is a 404', params: AttachmentParams, querystring: NoQuery, response: { 204: { type: 'null', description: 'Detached' } } },
    config: { permission: 'contract:update' },
  }, async (req, reply) => {
    await service.detachLine(req.actor, req.params.contractId, req.params.contractLineId);
    return reply.code(204).send(null);
  });
};
