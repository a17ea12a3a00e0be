import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ifMatchOf, withEtag } from '../../../platform/http/etag.ts';
import { NoQuery } from '../tickets.schemas.ts';
import type { BoardsService } from './boards.service.ts';
import { BoardListResponse, BoardParams, BoardResponse, CreateBoardBody, ListBoardsQuery, UpdateBoardBody } from './boards.schemas.ts';

const tags = ['Ticket settings'];

export const boardsRoutes = (service: BoardsService): FastifyPluginAsyncTypebox => async (app) => {
  app.get('/boards', {
    schema: { operationId: 'listBoards', tags, summary: 'List ticket boards (default order: display_order, then name)', querystring: ListBoardsQuery, response: { 200: BoardListResponse } },
    config: { permission: 'ticket:read' },
  }, (req) => service.list(req.actor, req.query));

  app.post('/boards', {
    schema: {
      operationId: 'createBoard',
      tags,
      summary: 'Create a board with its statuses (default: Open, In Progress, Closed)',
      querystring: NoQuery,
      body: CreateBoardBody,
      response: { 201: BoardResponse },
    },
    config: { permission: 'settings:update' },
  }, async (req, reply) => {
    const board = await service.create(req.actor, req.body);
    reply.code(201).header('Location', `/api/v1/boards/${board.board_id}`);
    return withEtag(req, reply, board);
  });

  app.get('/boards/:boardId', {
    schema: { operationId: 'getBoard', tags, summary: 'Get a board', params: BoardParams, querystring: NoQuery, response: { 200: BoardResponse } },
    config: { permission: 'ticket:read' },
  }, async (req, reply) => withEtag(req, reply, await service.get(req.actor, req.params.boardId)));

  app.put('/boards/:boardId', {
    schema: {
      operationId: 'updateBoard',
      tags,
      summary: 'Update a board (partial); is_default: true moves the tenant\'s default board here',
      params: BoardParams,
      querystring: NoQuery,
      body: UpdateBoardBody,
      response: { 200: BoardResponse },
    },
    config: { permission: 'settings:update' },
  }, async (req, reply) => withEtag(req, reply, await service.update(req.actor, req.params.boardId, req.body, ifMatchOf(req))));

  app.delete('/boards/:boardId', {
    schema: {
      operationId: 'deleteBoard',
      tags,
      summary: 'Delete a board with its statuses; refused (409) for the default board and while tickets or categories use it',
      params: BoardParams,
      querystring: NoQuery,
      response: { 204: { type: 'null', description: 'Deleted' } },
    },
    config: { permission: 'settings:update' },
  }, async (req, reply) => {
    await service.remove(req.actor, req.params.boardId, ifMatchOf(req));
    return reply.code(204).send(null);
  });
};
