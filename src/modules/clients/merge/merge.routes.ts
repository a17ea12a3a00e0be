import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { IdParams } from '../../../platform/http/schemas.ts';
import type { MergeService } from './merge.service.ts';
import { MergeBody, MergePreviewResponse, MergeResultResponse } from './merge.schemas.ts';

const tags = ['Clients'];
const NoQuery = Type.Object({}, { additionalProperties: false });
const permission = ['client:update', 'client:delete'];

/** /clients/{id}/merge: {id} is the source, merged into body.target_client_id. */
export const mergeRoutes = (service: MergeService): FastifyPluginAsyncTypebox => async (app) => {
  app.post('/clients/:id/merge/preview', {
    schema: {
      operationId: 'previewClientMerge',
      tags,
      summary: 'Dry run of a merge: what would move, and what blocks it (commits nothing)',
      description: 'Blockers: source_merged, same_client, target_merged, target_inactive, parent_cycle, invalid_cutover_date. A target in another tenant (or not visible) is a 404.',
      params: IdParams,
      querystring: NoQuery,
      body: MergeBody,
      response: { 200: MergePreviewResponse },
    },
    config: { permission },
  }, async (req) => ({ data: await service.preview(req.actor, req.params.id, req.body) }));
  app.post('/clients/:id/merge', {
    schema: {
      operationId: 'mergeClient',
      tags,
      summary: 'Merge the client into target_client_id: permanent; the source becomes a read-only tombstone',
      description: "One transaction: the source's billing profiles (with invoices, payments and credit) move to the target with their ids; tickets, projects, assets, contacts, locations, contracts, quotes and usage are re-attributed; the source keeps merged_into_client_id. Any blocker (see the preview) is a 409 CONFLICT listing them in error.details.blockers. Requires human approval when an AI agent calls it.",
      params: IdParams,
      querystring: NoQuery,
      body: MergeBody,
      response: { 200: MergeResultResponse },
    },
    config: { permission, requiresApproval: true },
  }, async (req) => ({ data: await service.merge(req.actor, req.params.id, req.body) }));
};
