import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ifMatchOf, withEtag } from '../../../platform/http/etag.ts';
import { NoQuery } from '../tickets.schemas.ts';
import type { StatusesService } from './statuses.service.ts';
import {
  BoardParams,
  CreateStatusBody,
  ListStatusesQuery,
  StatusListResponse,
  StatusParams,
  StatusResponse,
  UpdateStatusBody,
} from './boards.schemas.ts';

const tags = ['Ticket settings'];

export const statusesRoutes = (service: StatusesService): FastifyPluginAsyncTypebox => async (app) => {
  app.get('/boards/:boardId/statuses', {
    schema: {
      operationId: 'listBoardStatuses',
      tags,
      summary: 'List a board\'s ticket statuses (default order: order_number)',
      params: BoardParams,
      querystring: ListStatusesQuery,
      response: { 200: StatusListResponse },
    },
    config: { permission: 'ticket:read' },
  }, (req) => service.list(req.actor, req.params.boardId, req.query));

  app.post('/boards/:boardId/statuses', {
    schema: {
      operationId: 'createBoardStatus',
      tags,
      summary: 'Add a status to a board; is_default: true makes it the board\'s default',
      params: BoardParams,
      querystring: NoQuery,
      body: CreateStatusBody,
      response: { 201: StatusResponse },
    },
    config: { permission: 'settings:update' },
  }, async (req, reply) => {
    const status = await service.create(req.actor, req.params.boardId, req.body);
    reply.code(201).header('Location', `/api/v1/boards/${status.board_id}/statuses/${status.status_id}`);
    return withEtag(req, reply, status);
  });

  app.get('/boards/:boardId/statuses/:statusId', {
    schema: { operationId: 'getBoardStatus', tags, summary: 'Get one status of a board', params: StatusParams, querystring: NoQuery, response: { 200: StatusResponse } },
    config: { permission: 'ticket:read' },
  }, async (req, reply) => withEtag(req, reply, await service.get(req.actor, req.params.boardId, req.params.statusId)));

  app.put('/boards/:boardId/statuses/:statusId', {
    schema: {
      operationId: 'updateBoardStatus',
      tags,
      summary: 'Update a status (partial); is_closed cannot change while tickets use it',
      params: StatusParams,
      querystring: NoQuery,
      body: UpdateStatusBody,
      response: { 200: StatusResponse },
    },
    config: { permission: 'settings:update' },
  }, async (req, reply) => withEtag(req, reply, await service.update(req.actor, req.params.boardId, req.params.statusId, req.body, ifMatchOf(req))));

  app.delete('/boards/:boardId/statuses/:statusId', {
    schema: {
      operationId: 'deleteBoardStatus',
      tags,
      summary: 'Delete a status; refused (409) for the board\'s default and while tickets use it',
      params: StatusParams,
      querystring: NoQuery,
      response: { 204: { type: 'null', description: 'Deleted' } },
    },
    config: { permission: 'settings:update' },
  }, async (req, reply) => {
    await service.remove(req.actor, req.params.boardId, req.params.statusId, ifMatchOf(req));
    return reply.code(204).send(null);
  });
};
