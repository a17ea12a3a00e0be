import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { NoBody, NoQuery } from '../../../platform/http/schemas.ts';
import { emptyBodyIsObject } from '../../../platform/http/empty-body.ts';
import { LEDGER_ERRORS, RealmQuery, tags } from '../ledger.openapi.ts';
import { DiagnosticsResponse, HealthConfigBody, HealthConfigResponse, HealthResponse } from './health.schemas.ts';
import type { HealthService } from './health.service.ts';

const read = { permission: 'ledger:read' };
const admin = { permission: 'ledger:admin' };

export const healthRoutes = (service: HealthService): FastifyPluginAsyncTypebox => async (app) => {
  app.get('/quickbooks/health', {
    schema: {
      operationId: 'getLedgerHealth', tags,
      summary: 'Check a ledger connection now: a live call, token expiry, API usage, sync runs of the last 24 hours and mapping drift (the checks the health configuration enables), with recommendations',
      querystring: RealmQuery, response: { 200: HealthResponse, ...LEDGER_ERRORS },
    },
    config: read,
  }, async (req) => ({ data: await service.health(req.actor, req.query.realm_id) }));

  app.get('/quickbooks/health/config', {
    schema: { operationId: 'getLedgerHealthConfig', tags, summary: 'The health-monitoring configuration of the tenant (the defaults until one is saved)', querystring: NoQuery, response: { 200: HealthConfigResponse } },
    config: read,
  }, async (req) => ({ data: await service.config(req.actor) }));

  app.put('/quickbooks/health/config', {
    schema: { operationId: 'updateLedgerHealthConfig', tags, summary: 'Change any part of the health-monitoring configuration (nested objects are merged); answers the whole configuration', querystring: NoQuery, body: HealthConfigBody, response: { 200: HealthConfigResponse } },
    config: admin,
  }, async (req) => ({ data: await service.updateConfig(req.actor, req.body) }));

  app.post('/quickbooks/diagnostics', {
    schema: {
      operationId: 'runLedgerDiagnostics', tags,
      summary: 'A diagnostics report for support: the connection, live probes of the ledger (company, accounts, items, tax codes, customers), mapping counts, recent failed runs and the health checks',
      querystring: RealmQuery, body: NoBody, response: { 200: DiagnosticsResponse, ...LEDGER_ERRORS },
    },
    config: admin,
    preValidation: emptyBodyIsObject,
  }, async (req) => ({ data: await service.diagnostics(req.actor, req.query.realm_id) }));
};
