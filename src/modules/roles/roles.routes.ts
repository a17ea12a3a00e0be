import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ifMatchOf, withEtag } from '../../platform/http/etag.ts';
import { IdParams } from '../../platform/http/schemas.ts';
import { permissionCatalogue, type RolesService } from './roles.service.ts';
import {
  CreateRoleBody,
  ListRolesQuery,
  NoQuery,
  PermissionCatalogueResponse,
  RoleListResponse,
  RoleResponse,
  UpdateRoleBody,
} from './roles.schemas.ts';

const tags = ['Roles'];

export const rolesRoutes = (service: RolesService): FastifyPluginAsyncTypebox => async (app) => {
  app.get('/roles', {
    schema: {
      operationId: 'listRoles',
      tags,
      summary: 'List roles with their permissions and how many users hold each (filter, search, sort, paginate)',
      querystring: ListRolesQuery,
      response: { 200: RoleListResponse },
    },
    config: { permission: 'role:read' },
  }, (req) => service.list(req.actor, req.query));

  app.post('/roles', {
    schema: {
      operationId: 'createRole',
      tags,
      summary: 'Create a role from a permission list or as a copy of another role',
      querystring: NoQuery,
      body: CreateRoleBody,
      response: { 201: RoleResponse },
    },
    config: { permission: 'role:create' },
  }, async (req, reply) => {
    const role = await service.create(req.actor, req.body);
    reply.code(201).header('Location', `/api/v1/roles/${role.role_id}`);
    return withEtag(req, reply, role);
  });

  app.get('/roles/:id', {
    schema: { operationId: 'getRole', tags, summary: 'Get a role with its permissions', params: IdParams, querystring: NoQuery, response: { 200: RoleResponse } },
    config: { permission: 'role:read' },
  }, async (req, reply) => withEtag(req, reply, await service.get(req.actor, req.params.id)));

  app.put('/roles/:id', {
    schema: {
      operationId: 'updateRole',
      tags,
      summary: 'Rename a role, change its description or replace its permissions (built-in roles are read-only)',
      params: IdParams,
      querystring: NoQuery,
      body: UpdateRoleBody,
      response: { 200: RoleResponse },
    },
    config: { permission: 'role:update' },
  }, async (req, reply) => withEtag(req, reply, await service.update(req.actor, req.params.id, req.body, ifMatchOf(req))));

  app.delete('/roles/:id', {
    schema: {
      operationId: 'deleteRole',
      tags,
      summary: 'Delete a role; refused for built-in roles and while users hold it',
      params: IdParams,
      querystring: NoQuery,
      response: { 204: { type: 'null', description: 'Deleted' } },
    },
    config: { permission: 'role:delete' },
  }, async (req, reply) => {
    await service.remove(req.actor, req.params.id, ifMatchOf(req));
    return reply.code(204).send(null);
  });

  const catalogue = { data: permissionCatalogue() };
  app.get('/permissions', {
    schema: {
      operationId: 'listPermissions',
      tags,
      summary: 'The permission catalogue, grouped by resource',
      querystring: NoQuery,
      response: { 200: PermissionCatalogueResponse },
    },
    config: { permission: 'role:read' },
  }, async () => catalogue);
};
