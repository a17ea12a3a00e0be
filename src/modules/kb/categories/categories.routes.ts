import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ifMatchOf, withEtag } from '../../../platform/http/etag.ts';
import type { KbCategoriesService } from './categories.service.ts';
import {
  CreateKbCategoryBody,
  KbCategoryListResponse,
  KbCategoryParams,
  KbCategoryResponse,
  ListKbCategoriesQuery,
  UpdateKbCategoryBody,
} from './categories.schemas.ts';

const tags = ['Knowledge base'];
const NoQuery = Type.Object({}, { additionalProperties: false });

/** The knowledge base's own category tree (not ticket categories). Client-portal users may read it. */
export const kbCategoriesRoutes = (service: KbCategoriesService): FastifyPluginAsyncTypebox => async (app) => {
  app.get('/kb-articles/categories', {
    schema: {
      operationId: 'listKbCategories',
      tags,
      summary: 'List knowledge-base categories with their article and child counts (parent_id=null for the top level)',
      querystring: ListKbCategoriesQuery,
      response: { 200: KbCategoryListResponse },
    },
    config: { permission: 'kb:read' },
  }, (req) => service.list(req.actor, req.query));

  app.post('/kb-articles/categories', {
    schema: {
      operationId: 'createKbCategory',
      tags,
      summary: 'Create a knowledge-base category (names are unique among siblings, any case)',
      querystring: NoQuery,
      body: CreateKbCategoryBody,
      response: { 201: KbCategoryResponse },
    },
    config: { permission: 'kb:create' },
  }, async (req, reply) => {
    const category = await service.create(req.actor, req.body);
    reply.code(201).header('Location', `/api/v1/kb-articles/categories/${category.category_id}`);
    return withEtag(req, reply, category);
  });

  app.get('/kb-articles/categories/:categoryId', {
    schema: {
      operationId: 'getKbCategory',
      tags,
      summary: 'Get a knowledge-base category',
      params: KbCategoryParams,
      querystring: NoQuery,
      response: { 200: KbCategoryResponse },
    },
    config: { permission: 'kb:read' },
  }, async (req, reply) => withEtag(req, reply, await service.get(req.actor, req.params.categoryId)));

  app.put('/kb-articles/categories/:categoryId', {
    schema: {
      operationId: 'updateKbCategory',
      tags,
      summary: 'Update or move a knowledge-base category (partial; moving it under itself or a descendant is a 422)',
      params: KbCategoryParams,
      querystring: NoQuery,
      body: UpdateKbCategoryBody,
      response: { 200: KbCategoryResponse },
    },
    config: { permission: 'kb:update' },
  }, async (req, reply) => withEtag(req, reply, await service.update(req.actor, req.params.categoryId, req.body, ifMatchOf(req))));

  app.delete('/kb-articles/categories/:categoryId', {
    schema: {
      operationId: 'deleteKbCategory',
      tags,
      summary: 'Delete a knowledge-base category; one with child categories or articles is a 409',
      params: KbCategoryParams,
      querystring: NoQuery,
      response: { 204: { type: 'null', description: 'Deleted' } },
    },
    config: { permission: 'kb:delete' },
  }, async (req, reply) => {
    await service.remove(req.actor, req.params.categoryId, ifMatchOf(req));
    return reply.code(204).send(null);
  });
};
