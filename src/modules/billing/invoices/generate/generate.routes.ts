import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { InvoiceGenerationService } from './generate.service.ts';
import { GenerateInvoicesBody, GenerationResponse } from './generate.schemas.ts';

const tags = ['Invoices'];
const NoQuery = Type.Object({}, { additionalProperties: false });

/** POST /invoices/generate: draft invoices from contracts for a billing period (rules in generate.service.ts). */
export const invoiceGenerationRoutes = (service: InvoiceGenerationService): FastifyPluginAsyncTypebox => async (app) => {
  app.post('/invoices/generate', {
    schema: {
      operationId: 'generateInvoices',
      tags,
      summary: 'Generate draft invoices from contracts for a billing period',
      description:
        'One draft per billing profile and contract currency with something to bill: fixed lines (prorated when the line says so), usage lines '
        + '(recorded usage, minimums, tiers) and bucket lines (overage hours beyond the included minutes and rollover), taxed with the client\'s '
        + 'default rate. A period overlapping an invoice already generated for the profile and currency is a 409 in a targeted run (client_id or '
        + 'billing_profile_id) and a skipped group in the tenant-wide run. dry_run answers 200 and saves nothing. Money is integer cents.',
      querystring: NoQuery,
      body: GenerateInvoicesBody,
      response: { 200: GenerationResponse, 201: GenerationResponse },
    },
    config: { permission: 'invoice:create' },
  }, async (req, reply) => {
    const data = await service.generate(req.actor, req.body);
    reply.code(req.body.dry_run === true ? 200 : 201);
    return { data };
  });
};
