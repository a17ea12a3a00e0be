import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { NoQuery } from '../../../platform/http/schemas.ts';
import { LEDGER_ERRORS, RealmQuery, tags } from '../ledger.openapi.ts';
import {
  CreateMappingBody,
  ListMappingsQuery,
  ListTypedMappingsQuery,
  MappingArrayResponse,
  MappingListResponse,
  MappingParams,
  MappingResponse,
  PutAccountMappingsBody,
  PutTaxCodeMappingsBody,
  UpdateMappingBody,
} from './mappings.schemas.ts';
import type { MappingsService } from './mappings.service.ts';

const read = { permission: 'ledger:read' };
const write = { permission: 'ledger:write' };

export const mappingsRoutes = (service: MappingsService): FastifyPluginAsyncTypebox => async (app) => {
  app.get('/quickbooks/accounts/mappings', {
    schema: { operationId: 'listLedgerAccountMappings', tags, summary: 'Account mappings (`<account_type>:<name>` → ledger account)', querystring: ListTypedMappingsQuery, response: { 200: MappingListResponse, ...LEDGER_ERRORS } },
    config: read,
  }, (req) => service.listOf(req.actor, 'account', req.query));

  app.put('/quickbooks/accounts/mappings', {
    schema: { operationId: 'putLedgerAccountMappings', tags, summary: 'Map account types to ledger accounts (upsert by type and name; replace_existing drops the rest)', querystring: RealmQuery, body: PutAccountMappingsBody, response: { 200: MappingArrayResponse, ...LEDGER_ERRORS } },
    config: write,
  }, async (req) => ({ data: await service.putAccounts(req.actor, req.query.realm_id, req.body) }));

  app.get('/quickbooks/tax-codes/mappings', {
    schema: { operationId: 'listLedgerTaxCodeMappings', tags, summary: 'Tax-code mappings (tax region or `untaxed` → ledger tax code)', querystring: ListTypedMappingsQuery, response: { 200: MappingListResponse, ...LEDGER_ERRORS } },
    config: read,
  }, (req) => service.listOf(req.actor, 'tax_code', req.query));

  app.put('/quickbooks/tax-codes/mappings', {
    schema: { operationId: 'putLedgerTaxCodeMappings', tags, summary: 'Map tax regions to ledger tax codes (upsert by region; replace_existing drops the rest)', querystring: RealmQuery, body: PutTaxCodeMappingsBody, response: { 200: MappingArrayResponse, ...LEDGER_ERRORS } },
    config: write,
  }, async (req) => ({ data: await service.putTaxCodes(req.actor, req.query.realm_id, req.body) }));

  app.get('/quickbooks/customers/mappings', {
    schema: { operationId: 'listLedgerCustomerMappings', tags, summary: 'Client ↔ ledger customer mappings', querystring: ListTypedMappingsQuery, response: { 200: MappingListResponse, ...LEDGER_ERRORS } },
    config: read,
  }, (req) => service.listOf(req.actor, 'customer', req.query));

  app.delete('/quickbooks/customers/mappings/:mappingId', {
    schema: { operationId: 'deleteLedgerCustomerMapping', tags, summary: 'Unlink a client from its ledger customer (nothing changes in the ledger)', params: MappingParams, querystring: NoQuery, response: { 204: { type: 'null', description: 'Deleted' }, ...LEDGER_ERRORS } },
    config: write,
  }, async (req, reply) => {
    await service.remove(req.actor, req.params.mappingId, 'customer');
    return reply.code(204).send(null);
  });

  app.get('/quickbooks/mappings', {
    schema: { operationId: 'listLedgerMappings', tags, summary: 'Every mapping of a company (filter by entity_type, sync_status, local_id, external_id)', querystring: ListMappingsQuery, response: { 200: MappingListResponse, ...LEDGER_ERRORS } },
    config: read,
  }, (req) => service.list(req.actor, req.query));

  app.post('/quickbooks/mappings', {
    schema: { operationId: 'createLedgerMapping', tags, summary: 'Map one of our records or keys to a ledger record (both sides are checked)', querystring: RealmQuery, body: CreateMappingBody, response: { 201: MappingResponse, ...LEDGER_ERRORS } },
    config: write,
  }, async (req, reply) => {
    const mapping = await service.create(req.actor, req.query.realm_id, req.body);
    reply.code(201).header('Location', `/api/v1/quickbooks/mappings/${mapping.mapping_id}`);
    return { data: mapping };
  });

  app.get('/quickbooks/mappings/:mappingId', {
    schema: { operationId: 'getLedgerMapping', tags, summary: 'Get a mapping', params: MappingParams, querystring: NoQuery, response: { 200: MappingResponse, ...LEDGER_ERRORS } },
    config: read,
  }, async (req) => ({ data: await service.get(req.actor, req.params.mappingId) }));

  app.put('/quickbooks/mappings/:mappingId', {
    schema: { operationId: 'updateLedgerMapping', tags, summary: 'Point a mapping at another ledger record, rename it, make it the default or change its metadata', params: MappingParams, querystring: NoQuery, body: UpdateMappingBody, response: { 200: MappingResponse, ...LEDGER_ERRORS } },
    config: write,
  }, async (req) => ({ data: await service.update(req.actor, req.params.mappingId, req.body) }));

  app.delete('/quickbooks/mappings/:mappingId', {
    schema: { operationId: 'deleteLedgerMapping', tags, summary: 'Delete a mapping (nothing changes in the ledger)', params: MappingParams, querystring: NoQuery, response: { 204: { type: 'null', description: 'Deleted' }, ...LEDGER_ERRORS } },
    config: write,
  }, async (req, reply) => {
    await service.remove(req.actor, req.params.mappingId);
    return reply.code(204).send(null);
  });
};
