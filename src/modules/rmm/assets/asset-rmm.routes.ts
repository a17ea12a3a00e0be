import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { withEtag } from '../../../platform/http/etag.ts';
import { NOT_LINKED_409, UPSTREAM_502 } from '../rmm.openapi.ts';
import type { AssetRmmService } from './asset-rmm.service.ts';
import type { RmmCommandsService } from './commands.service.ts';
import {
  AssetIdParams,
  AssetRmmResponse,
  CommandResponse,
  LinkBody,
  NoQuery,
  RemoteControlResponse,
  ScriptBody,
  SoftwareQuery,
  SoftwareResponse,
} from './asset-rmm.schemas.ts';

const tags = ['Assets', 'RMM'];
/** Commands reach a real machine: they need rmm:execute on top of reading the asset. */
const EXECUTE = ['rmm:execute', 'asset:read'];

export const assetRmmRoutes = (service: AssetRmmService, commands: RmmCommandsService): FastifyPluginAsyncTypebox => async (app) => {
  app.get('/assets/:id/rmm', {
    schema: {
      operationId: 'getAssetRmm',
      tags,
      summary: "The asset's RMM link with the device data cached at last_synced_at (409 when the asset has no RMM link)",
      params: AssetIdParams,
      querystring: NoQuery,
      response: { 200: AssetRmmResponse, ...NOT_LINKED_409 },
    },
    config: { permission: 'asset:read' },
  }, async (req, reply) => withEtag(req, reply, await service.get(req.actor, req.params.id)));

  app.put('/assets/:id/rmm', {
    schema: {
      operationId: 'linkAssetRmm',
      tags,
      summary: 'Connect the asset to one device of an RMM integration (the device is fetched and cached; 409 if it is linked to another asset)',
      params: AssetIdParams,
      querystring: NoQuery,
      body: LinkBody,
      response: { 200: AssetRmmResponse, ...UPSTREAM_502 },
    },
    config: { permission: 'asset:update' },
  }, async (req) => ({ data: await service.link(req.actor, req.params.id, req.body) }));

  app.delete('/assets/:id/rmm', {
    schema: {
      operationId: 'unlinkAssetRmm',
      tags,
      summary: 'Disconnect the asset from its RMM device (its cached data goes too; history stays)',
      params: AssetIdParams,
      querystring: NoQuery,
      response: { 204: { type: 'null', description: 'Unlinked' } },
    },
    config: { permission: 'asset:update' },
  }, async (req, reply) => {
    await service.unlink(req.actor, req.params.id);
    return reply.code(204).send(null);
  });

  app.post('/assets/:id/rmm/refresh', {
    schema: {
      operationId: 'refreshAssetRmm',
      tags,
      summary: 'Fetch the device and its software from the RMM now and replace the cache (recorded in the asset history)',
      params: AssetIdParams,
      querystring: NoQuery,
      response: { 200: AssetRmmResponse, ...UPSTREAM_502 },
    },
    config: { permission: EXECUTE },
  }, async (req) => ({ data: await commands.refresh(req.actor, req.params.id) }));

  app.post('/assets/:id/rmm/reboot', {
    schema: {
      operationId: 'rebootAssetRmm',
      tags,
      summary: 'Reboot the device now through the RMM (202; recorded in the asset history, failures too)',
      params: AssetIdParams,
      querystring: NoQuery,
      response: { 202: CommandResponse, ...UPSTREAM_502 },
    },
    config: { permission: EXECUTE },
  }, async (req, reply) => {
    reply.code(202);
    return { data: await commands.reboot(req.actor, req.params.id) };
  });

  app.get('/assets/:id/rmm/remote-control', {
    schema: {
      operationId: 'getAssetRemoteControl',
      tags,
      summary: 'Open a remote-control session: the RMM session URLs (short-lived, not stored; recorded in the asset history)',
      params: AssetIdParams,
      querystring: NoQuery,
      response: { 200: RemoteControlResponse, ...NOT_LINKED_409, ...UPSTREAM_502 },
    },
    config: { permission: EXECUTE },
  }, async (req, reply) => {
    // The URLs carry a login token: no cache may keep them.
    reply.header('Cache-Control', 'no-store');
    return { data: await commands.remoteControl(req.actor, req.params.id) };
  });

  app.post('/assets/:id/rmm/script', {
    schema: {
      operationId: 'runAssetRmmScript',
      tags,
      summary: "Run a script from the RMM's library on the device: output wait → 200 with the output, forget → 202 accepted",
      params: AssetIdParams,
      querystring: NoQuery,
      body: ScriptBody,
      response: { 200: CommandResponse, 202: CommandResponse, ...UPSTREAM_502 },
    },
    config: { permission: EXECUTE },
  }, async (req, reply) => {
    const result = await commands.script(req.actor, req.params.id, req.body);
    reply.code(result.status === 'accepted' ? 202 : 200);
    return { data: result };
  });

  app.get('/assets/:id/software', {
    schema: {
      operationId: 'listAssetSoftware',
      tags,
      summary: "The asset's software inventory from the RMM cache, paged (empty with meta.last_synced_at null before the first sync; 409 when not linked)",
      params: AssetIdParams,
      querystring: SoftwareQuery,
      response: { 200: SoftwareResponse, ...NOT_LINKED_409 },
    },
    config: { permission: 'asset:read' },
  }, (req) => service.software(req.actor, req.params.id, req.query));
};
