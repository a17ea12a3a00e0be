import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ifMatchOf, withEtag } from '../../../platform/http/etag.ts';
import { IdParams } from '../../../platform/http/schemas.ts';
import type { NotesService } from './notes.service.ts';
import { ClientNotesResponse, PutNotesBody } from './notes.schemas.ts';

const tags = ['Clients'];
const NoQuery = Type.Object({}, { additionalProperties: false });

export const notesRoutes = (service: NotesService): FastifyPluginAsyncTypebox => async (app) => {
  app.get('/clients/:id/notes', {
    schema: {
      operationId: 'getClientNotes',
      tags,
      summary: 'Get the client\'s internal notes (markdown)',
      params: IdParams,
      querystring: NoQuery,
      response: { 200: ClientNotesResponse },
    },
    config: { permission: 'client:read' },
  }, async (req, reply) => withEtag(req, reply, await service.get(req.actor, req.params.id)));

  app.put('/clients/:id/notes', {
    schema: {
      operationId: 'updateClientNotes',
      tags,
      summary: 'Replace the client\'s internal notes',
      params: IdParams,
      querystring: NoQuery,
      body: PutNotesBody,
      response: { 200: ClientNotesResponse },
    },
    config: { permission: 'client:update' },
  }, async (req, reply) => withEtag(req, reply, await service.put(req.actor, req.params.id, req.body.notes, ifMatchOf(req))));

  app.delete('/clients/:id/notes', {
    schema: {
      operationId: 'deleteClientNotes',
      tags,
      summary: 'Clear the client\'s internal notes',
      params: IdParams,
      querystring: NoQuery,
      response: { 204: { type: 'null', description: 'Cleared' } },
    },
    config: { permission: 'client:update' },
  }, async (req, reply) => {
    await service.clear(req.actor, req.params.id, ifMatchOf(req));
    return reply.code(204).send(null);
  });
};
