import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { emptyBodyIsObject } from '../../../platform/http/empty-body.ts';
import { ifMatchOf, withEtag } from '../../../platform/http/etag.ts';
import { Id, IdParams } from '../../../platform/http/schemas.ts';
import { PdfResponse, sendPdf } from '../pdf/pdf.reply.ts';
import type { InvoicesService } from './invoices.service.ts';
import {
  AnnotationListResponse,
  AnnotationResponse,
  CreateAnnotationBody,
  CreateInvoiceBody,
  InvoiceItemListResponse,
  InvoiceItemResponse,
  InvoiceListResponse,
  InvoiceResponse,
  ItemInput,
  ListAnnotationsQuery,
  ListInvoicesQuery,
  ListItemsQuery,
  UpdateAnnotationBody,
  UpdateInvoiceBody,
  UpdateItemBody,
  VoidInvoiceBody,
} from './invoices.schemas.ts';

const tags = ['Invoices'];
const NoQuery = Type.Object({}, { additionalProperties: false });
const NoBody = Type.Object({}, { additionalProperties: false, description: 'No body (an empty object is accepted)' });
const ItemParams = Type.Object({ id: Id, itemId: Id }, { additionalProperties: false });
const AnnotationParams = Type.Object({ id: Id, annotationId: Id }, { additionalProperties: false });
const Deleted = { 204: { type: 'null', description: 'Deleted' } } as const;

/** /invoices: drafts and their items, finalize/send/void, notes, the PDF. */
export const invoicesRoutes = (service: InvoicesService): FastifyPluginAsyncTypebox => async (app) => {
  app.get('/invoices', {
    schema: { operationId: 'listInvoices', tags, summary: 'List invoices (newest issue_date first)', querystring: ListInvoicesQuery, response: { 200: InvoiceListResponse } },
    config: { permission: 'invoice:read' },
  }, (req) => service.list(req.actor, req.query));
  app.post('/invoices', {
    schema: { operationId: 'createInvoice', tags, summary: "Create a draft invoice for a client's billing profile (items optional)", querystring: NoQuery, body: CreateInvoiceBody, response: { 201: InvoiceResponse } },
    config: { permission: 'invoice:create' },
  }, async (req, reply) => {
    const invoice = await service.create(req.actor, req.body);
    reply.code(201).header('Location', `/api/v1/invoices/${invoice.invoice_id}`);
    return withEtag(req, reply, invoice);
  });
  app.get('/invoices/:id', {
    schema: { operationId: 'getInvoice', tags, summary: 'Get an invoice with its items', params: IdParams, querystring: NoQuery, response: { 200: InvoiceResponse } },
    config: { permission: 'invoice:read' },
  }, async (req, reply) => withEtag(req, reply, await service.get(req.actor, req.params.id)));
  app.put('/invoices/:id', {
    schema: { operationId: 'updateInvoice', tags, summary: 'Update a draft (billing profile, currency while empty, dates, PO number)', params: IdParams, querystring: NoQuery, body: UpdateInvoiceBody, response: { 200: InvoiceResponse } },
    config: { permission: 'invoice:update' },
  }, async (req, reply) => withEtag(req, reply, await service.update(req.actor, req.params.id, req.body, ifMatchOf(req))));
  app.delete('/invoices/:id', {
    schema: { operationId: 'deleteInvoice', tags, summary: 'Delete a draft (a finalized invoice is voided instead)', params: IdParams, querystring: NoQuery, response: Deleted },
    config: { permission: 'invoice:delete' },
  }, async (req, reply) => {
    await service.remove(req.actor, req.params.id, ifMatchOf(req));
    return reply.code(204).send(null);
  });

  for (const [action, summary] of [
    ['finalize', 'Finalize a draft: it takes the next invoice number and its figures become final'],
    ['send', 'Mark a finalized invoice as sent'],
  ] as const) {
    app.post(`/invoices/:id/${action}`, {
      schema: { operationId: `${action}Invoice`, tags, summary, params: IdParams, querystring: NoQuery, body: NoBody, response: { 200: InvoiceResponse } },
      config: { permission: 'invoice:update' },
      preValidation: emptyBodyIsObject,
    }, async (req) => ({ data: await service[action](req.actor, req.params.id) }));
  }
  app.post('/invoices/:id/void', {
    schema: { operationId: 'voidInvoice', tags, summary: 'Void a finalized invoice (payments must first be reversed by a credit note)', params: IdParams, querystring: NoQuery, body: VoidInvoiceBody, response: { 200: InvoiceResponse } },
    config: { permission: 'invoice:update' },
  }, async (req) => ({ data: await service.void(req.actor, req.params.id, req.body) }));
  app.get('/invoices/:id/pdf', {
    schema: { operationId: 'getInvoicePdf', tags, summary: 'The invoice as a PDF (client-visible notes only)', params: IdParams, querystring: NoQuery, response: { 200: PdfResponse } },
    config: { permission: 'invoice:read' },
  }, async (req, reply) => {
    const pdf = await service.pdf(req.actor, req.params.id);
    return sendPdf(reply, pdf.bytes, pdf.fileName);
  });

  app.get('/invoices/:id/items', {
    schema: { operationId: 'listInvoiceItems', tags, summary: "An invoice's items", params: IdParams, querystring: ListItemsQuery, response: { 200: InvoiceItemListResponse } },
    config: { permission: 'invoice:read' },
  }, (req) => service.listItems(req.actor, req.params.id, req.query));
  app.post('/invoices/:id/items', {
    schema: { operationId: 'addInvoiceItem', tags, summary: 'Add an item to a draft', params: IdParams, querystring: NoQuery, body: ItemInput, response: { 201: InvoiceItemResponse } },
    config: { permission: 'invoice:update' },
  }, async (req, reply) => {
    const item = await service.addItem(req.actor, req.params.id, req.body);
    return reply.code(201).send({ data: item });
  });
  app.put('/invoices/:id/items/:itemId', {
    schema: { operationId: 'updateInvoiceItem', tags, summary: "Change a draft's item (priced again)", params: ItemParams, querystring: NoQuery, body: UpdateItemBody, response: { 200: InvoiceItemResponse } },
    config: { permission: 'invoice:update' },
  }, async (req) => ({ data: await service.updateItem(req.actor, req.params.id, req.params.itemId, req.body) }));
  app.delete('/invoices/:id/items/:itemId', {
    schema: { operationId: 'deleteInvoiceItem', tags, summary: "Remove a draft's item", params: ItemParams, querystring: NoQuery, response: Deleted },
    config: { permission: 'invoice:update' },
  }, async (req, reply) => {
    await service.removeItem(req.actor, req.params.id, req.params.itemId);
    return reply.code(204).send(null);
  });

  app.get('/invoices/:id/annotations', {
    schema: { operationId: 'listInvoiceAnnotations', tags, summary: "An invoice's notes (client-portal keys see client-visible ones only)", params: IdParams, querystring: ListAnnotationsQuery, response: { 200: AnnotationListResponse } },
    config: { permission: 'invoice:read' },
  }, (req) => service.listAnnotations(req.actor, req.params.id, req.query));
  app.post('/invoices/:id/annotations', {
    schema: { operationId: 'addInvoiceAnnotation', tags, summary: 'Add a note to an invoice (internal by default)', params: IdParams, querystring: NoQuery, body: CreateAnnotationBody, response: { 201: AnnotationResponse } },
    config: { permission: 'invoice:update' },
  }, async (req, reply) => reply.code(201).send({ data: await service.addAnnotation(req.actor, req.params.id, req.body) }));
  app.put('/invoices/:id/annotations/:annotationId', {
    schema: { operationId: 'updateInvoiceAnnotation', tags, summary: 'Change a note', params: AnnotationParams, querystring: NoQuery, body: UpdateAnnotationBody, response: { 200: AnnotationResponse } },
    config: { permission: 'invoice:update' },
  }, async (req) => ({ data: await service.updateAnnotation(req.actor, req.params.id, req.params.annotationId, req.body) }));
  app.delete('/invoices/:id/annotations/:annotationId', {
    schema: { operationId: 'deleteInvoiceAnnotation', tags, summary: 'Delete a note', params: AnnotationParams, querystring: NoQuery, response: Deleted },
    config: { permission: 'invoice:update' },
  }, async (req, reply) => {
    await service.removeAnnotation(req.actor, req.params.id, req.params.annotationId);
    return reply.code(204).send(null);
  });
};
