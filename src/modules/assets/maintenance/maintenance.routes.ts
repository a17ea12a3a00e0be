import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ifMatchOf, withEtag } from '../../../platform/http/etag.ts';
import { IdParams } from '../../../platform/http/schemas.ts';
import { NoQuery } from '../assets.schemas.ts';
import {
  CreateScheduleBody,
  HistoryListResponse,
  ListHistoryQuery,
  ListSchedulesQuery,
  RecordMaintenanceBody,
  RecordedMaintenanceResponse,
  ScheduleListResponse,
  ScheduleParams,
  ScheduleResponse,
  UpdateScheduleBody,
} from './maintenance.schemas.ts';
import type { MaintenanceService } from './maintenance.service.ts';

const tags = ['Asset maintenance'];

export const maintenanceRoutes = (service: MaintenanceService): FastifyPluginAsyncTypebox => async (app) => {
  app.get('/assets/:id/maintenance', {
    schema: { operationId: 'listAssetMaintenanceSchedules', tags, summary: 'List the asset\'s maintenance schedules (default: next due first)', params: IdParams, querystring: ListSchedulesQuery, response: { 200: ScheduleListResponse } },
    config: { permission: 'asset:read' },
  }, (req) => service.list(req.actor, req.params.id, req.query));

  app.post('/assets/:id/maintenance', {
    schema: { operationId: 'createAssetMaintenanceSchedule', tags, summary: 'Schedule recurring maintenance; next_due starts at start_date; emits asset.maintenance.scheduled', params: IdParams, querystring: NoQuery, body: CreateScheduleBody, response: { 201: ScheduleResponse } },
    config: { permission: 'asset:update' },
  }, async (req, reply) => {
    const schedule = await service.create(req.actor, req.params.id, req.body);
    reply.code(201).header('Location', `/api/v1/assets/maintenance/${schedule.schedule_id}`);
    return withEtag(req, reply, schedule);
  });

  app.post('/assets/:id/maintenance/record', {
    schema: {
      operationId: 'recordAssetMaintenance',
      tags,
      summary: 'Log maintenance work done; with schedule_id the schedule\'s next_due advances past it; emits asset.maintenance.completed',
      params: IdParams,
      querystring: NoQuery,
      body: RecordMaintenanceBody,
      response: { 201: RecordedMaintenanceResponse },
    },
    config: { permission: 'asset:update' },
  }, async (req, reply) => {
    reply.code(201);
    return { data: await service.record(req.actor, req.params.id, req.body) };
  });

  app.put('/assets/maintenance/:scheduleId', {
    schema: { operationId: 'updateAssetMaintenanceSchedule', tags, summary: 'Update a maintenance schedule (partial; honours If-Match)', params: ScheduleParams, querystring: NoQuery, body: UpdateScheduleBody, response: { 200: ScheduleResponse } },
    config: { permission: 'asset:update' },
  }, async (req, reply) => withEtag(req, reply, await service.update(req.actor, req.params.scheduleId, req.body, ifMatchOf(req))));

  app.delete('/assets/maintenance/:scheduleId', {
    schema: { operationId: 'deleteAssetMaintenanceSchedule', tags, summary: 'Delete a maintenance schedule; recorded history stays', params: ScheduleParams, querystring: NoQuery, response: { 204: { type: 'null', description: 'Deleted' } } },
    config: { permission: 'asset:update' },
  }, async (req, reply) => {
    await service.remove(req.actor, req.params.scheduleId, ifMatchOf(req));
    return reply.code(204).send(null);
  });

  app.get('/assets/:id/history', {
    schema: { operationId: 'listAssetHistory', tags, summary: 'The asset\'s timeline, newest first: maintenance work and RMM commands', params: IdParams, querystring: ListHistoryQuery, response: { 200: HistoryListResponse } },
    config: { permission: 'asset:read' },
  }, (req) => service.history(req.actor, req.params.id, req.query));
};
