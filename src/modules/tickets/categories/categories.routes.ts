import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ifMatchOf, withEtag } from '../../../platform/http/etag.ts';
import { NoQuery } from '../tickets.schemas.ts';
import type { CategoriesService } from './categories.service.ts';
import {
  CategoryListResponse,
  CategoryParams,
  CategoryResponse,
  CreateCategoryBody,
  ListCategoriesQuery,
  UpdateCategoryBody,
} from './categories.schemas.ts';

const tags = ['Ticket settings'];

export const categoriesRoutes = (service: CategoriesService): FastifyPluginAsyncTypebox => async (app) => {
  app.get('/categories', {
    schema: { operationId: 'listCategories', tags, summary: 'List ticket categories and subcategories (filter by board or parent)', querystring: ListCategoriesQuery, response: { 200: CategoryListResponse } },
    config: { permission: 'ticket:read' },
  }, (req) => service.list(req.actor, req.query));

  app.post('/categories', {
    schema: {
      operationId: 'createCategory',
      tags,
      summary: 'Create a ticket category, or a subcategory with parent_category_id',
      querystring: NoQuery,
      body: CreateCategoryBody,
      response: { 201: CategoryResponse },
    },
    config: { permission: 'settings:update' },
  }, async (req, reply) => {
    const category = await service.create(req.actor, req.body);
    reply.code(201).header('Location', `/api/v1/categories/${category.category_id}`);
    return withEtag(req, reply, category);
  });

  app.get('/categories/:categoryId', {
    schema: { operationId: 'getCategory', tags, summary: 'Get a ticket category', params: CategoryParams, querystring: NoQuery, response: { 200: CategoryResponse } },
    config: { permission: 'ticket:read' },
  }, async (req, reply) => withEtag(req, reply, await service.get(req.actor, req.params.categoryId)));

  app.put('/categories/:categoryId', {
    schema: {
      operationId: 'updateCategory',
      tags,
      summary: 'Rename or move a ticket category (partial)',
      params: CategoryParams,
      querystring: NoQuery,
      body: UpdateCategoryBody,
      response: { 200: CategoryResponse },
    },
    config: { permission: 'settings:update' },
  }, async (req, reply) => withEtag(req, reply, await service.update(req.actor, req.params.categoryId, req.body, ifMatchOf(req))));

  app.delete('/categories/:categoryId', {
    schema: {
      operationId: 'deleteCategory',
      tags,
      summary: 'Delete a ticket category; refused (409) while it has subcategories or tickets use it',
      params: CategoryParams,
      querystring: NoQuery,
      response: { 204: { type: 'null', description: 'Deleted' } },
    },
    config: { permission: 'settings:update' },
  }, async (req, reply) => {
    await service.remove(req.actor, req.params.categoryId, ifMatchOf(req));
    return reply.code(204).send(null);
  });
};
