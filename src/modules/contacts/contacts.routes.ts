import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ifMatchOf, withEtag } from '../../platform/http/etag.ts';
import { IdParams } from '../../platform/http/schemas.ts';
import type { ContactsService } from './contacts.service.ts';
import {
  ContactListResponse,
  ContactResponse,
  CreateContactBody,
  ListClientContactsQuery,
  ListContactsQuery,
  NoQuery,
  UpdateContactBody,
} from './contacts.schemas.ts';

const tags = ['Contacts'];

export const contactsRoutes = (service: ContactsService): FastifyPluginAsyncTypebox => async (app) => {
  app.get('/contacts', {
    schema: {
      operationId: 'listContacts',
      tags,
      summary: 'List contacts (filter, search, sort, paginate); client-portal keys see only their own client\'s',
      querystring: ListContactsQuery,
      response: { 200: ContactListResponse },
    },
    config: { permission: 'contact:read' },
  }, (req) => service.list(req.actor, req.query));

  app.get('/clients/:id/contacts', {
    schema: {
      operationId: 'listClientContacts',
      tags,
      summary: 'List one client\'s contacts',
      params: IdParams,
      querystring: ListClientContactsQuery,
      response: { 200: ContactListResponse },
    },
    config: { permission: ['client:read', 'contact:read'] },
  }, (req) => service.listForClient(req.actor, req.params.id, req.query));

  app.post('/contacts', {
    schema: {
      operationId: 'createContact',
      tags,
      summary: 'Create a contact, optionally attached to a client',
      querystring: NoQuery,
      body: CreateContactBody,
      response: { 201: ContactResponse },
    },
    config: { permission: 'contact:create' },
  }, async (req, reply) => {
    const contact = await service.create(req.actor, req.body);
    reply.code(201).header('Location', `/api/v1/contacts/${contact.contact_id}`);
    return withEtag(req, reply, contact);
  });

  app.get('/contacts/:id', {
    schema: {
      operationId: 'getContact',
      tags,
      summary: 'Get a contact',
      params: IdParams,
      querystring: NoQuery,
      response: { 200: ContactResponse },
    },
    config: { permission: 'contact:read' },
  }, async (req, reply) => withEtag(req, reply, await service.get(req.actor, req.params.id)));

  app.put('/contacts/:id', {
    schema: {
      operationId: 'updateContact',
      tags,
      summary: 'Update a contact (partial)',
      params: IdParams,
      querystring: NoQuery,
      body: UpdateContactBody,
      response: { 200: ContactResponse },
    },
    config: { permission: 'contact:update' },
  }, async (req, reply) => withEtag(req, reply, await service.update(req.actor, req.params.id, req.body, ifMatchOf(req))));

  app.delete('/contacts/:id', {
    schema: {
      operationId: 'deleteContact',
      tags,
      summary: 'Delete a contact; it also leaves every billing profile\'s contact list',
      params: IdParams,
      querystring: NoQuery,
      response: { 204: { type: 'null', description: 'Deleted' } },
    },
    config: { permission: 'contact:delete' },
  }, async (req, reply) => {
    await service.remove(req.actor, req.params.id, ifMatchOf(req));
    return reply.code(204).send(null);
  });
};
