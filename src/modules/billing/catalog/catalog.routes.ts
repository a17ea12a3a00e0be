import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ifMatchOf, withEtag } from '../../../platform/http/etag.ts';
import { IdParams } from '../../../platform/http/schemas.ts';
import type { CatalogService } from './catalog.service.ts';
import {
  CatalogItemListResponse,
  CatalogItemResponse,
  CreateProductBody,
  CreateServiceBody,
  ListProductsQuery,
  ListServicesQuery,
  UpdateProductBody,
  UpdateServiceBody,
} from './catalog.schemas.ts';

const NoQuery = Type.Object({}, { additionalProperties: false });
const Deleted = { 204: { type: 'null', description: 'Deleted' } } as const;

/** /services: the catalogue's services (fixed, hourly or usage). Rates and costs are integer cents. */
export const servicesRoutes = (service: CatalogService): FastifyPluginAsyncTypebox => async (app) => {
  const tags = ['Services'];
  app.get('/services', {
    schema: { operationId: 'listServices', tags, summary: 'List catalogue services (item_kind=any lists products too); rates in cents', querystring: ListServicesQuery, response: { 200: CatalogItemListResponse } },
    config: { permission: 'service:read' },
  }, (req) => service.list(req.actor, req.query));
  app.post('/services', {
    schema: { operationId: 'createService', tags, summary: 'Create a service; default_rate and prices in integer cents', querystring: NoQuery, body: CreateServiceBody, response: { 201: CatalogItemResponse } },
    config: { permission: 'service:create' },
  }, async (req, reply) => {
    const item = await service.create(req.actor, req.body);
    reply.code(201).header('Location', `/api/v1/services/${item.service_id}`);
    return withEtag(req, reply, item);
  });
  app.get('/services/:id', {
    schema: { operationId: 'getService', tags, summary: 'Get a service (a product id is a 404 here)', params: IdParams, querystring: NoQuery, response: { 200: CatalogItemResponse } },
    config: { permission: 'service:read' },
  }, async (req, reply) => withEtag(req, reply, await service.get(req.actor, req.params.id)));
  app.put('/services/:id', {
    schema: { operationId: 'updateService', tags, summary: 'Update a service (partial; prices replaced wholesale)', params: IdParams, querystring: NoQuery, body: UpdateServiceBody, response: { 200: CatalogItemResponse } },
    config: { permission: 'service:update' },
  }, async (req, reply) => withEtag(req, reply, await service.update(req.actor, req.params.id, req.body, ifMatchOf(req))));
  app.delete('/services/:id', {
    schema: { operationId: 'deleteService', tags, summary: 'Delete a service; one a contract line uses is a 409 (deactivate it instead)', params: IdParams, querystring: NoQuery, response: Deleted },
    config: { permission: 'service:delete' },
  }, async (req, reply) => {
    await service.remove(req.actor, req.params.id, ifMatchOf(req));
    return reply.code(204).send(null);
  });
};

/** /products: catalogue items sold by quantity (billing_method always usage). Prices and costs are integer cents. */
export const productsRoutes = (product: CatalogService): FastifyPluginAsyncTypebox => async (app) => {
  const tags = ['Products'];
  app.get('/products', {
    schema: { operationId: 'listProducts', tags, summary: 'List products; prices and costs in cents', querystring: ListProductsQuery, response: { 200: CatalogItemListResponse } },
    config: { permission: 'service:read' },
  }, (req) => product.list(req.actor, req.query));
  app.post('/products', {
    schema: { operationId: 'createProduct', tags, summary: 'Create a product; default_rate, cost and prices in integer cents', querystring: NoQuery, body: CreateProductBody, response: { 201: CatalogItemResponse } },
    config: { permission: 'service:create' },
  }, async (req, reply) => {
    const item = await product.create(req.actor, req.body);
    reply.code(201).header('Location', `/api/v1/products/${item.service_id}`);
    return withEtag(req, reply, item);
  });
  app.get('/products/:id', {
    schema: { operationId: 'getProduct', tags, summary: 'Get a product (a service id is a 404 here)', params: IdParams, querystring: NoQuery, response: { 200: CatalogItemResponse } },
    config: { permission: 'service:read' },
  }, async (req, reply) => withEtag(req, reply, await product.get(req.actor, req.params.id)));
  app.put('/products/:id', {
    schema: { operationId: 'updateProduct', tags, summary: 'Update a product (partial; prices replaced wholesale)', params: IdParams, querystring: NoQuery, body: UpdateProductBody, response: { 200: CatalogItemResponse } },
    config: { permission: 'service:update' },
  }, async (req, reply) => withEtag(req, reply, await product.update(req.actor, req.params.id, req.body, ifMatchOf(req))));
  app.delete('/products/:id', {
    schema: { operationId: 'deleteProduct', tags, summary: 'Delete a product; one a contract line uses is a 409 (deactivate it instead)', params: IdParams, querystring: NoQuery, response: Deleted },
    config: { permission: 'service:delete' },
  }, async (req, reply) => {
    await product.remove(req.actor, req.params.id, ifMatchOf(req));
    return reply.code(204).send(null);
  });
};
