import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { emptyBodyIsObject } from '../../../platform/http/empty-body.ts';
import { ifMatchOf, withEtag } from '../../../platform/http/etag.ts';
import { IdParams } from '../../../platform/http/schemas.ts';
import { PdfResponse, sendPdf } from '../pdf/pdf.reply.ts';
import type { QuotesService } from './quotes.service.ts';
import {
  ConvertQuoteBody,
  ConvertQuoteResponse,
  CreateQuoteBody,
  ListQuotesQuery,
  NoBody,
  QuoteItemInput,
  QuoteItemListResponse,
  QuoteItemParams,
  QuoteItemResponse,
  QuoteListResponse,
  QuoteResponse,
  RejectQuoteBody,
  UpdateQuoteBody,
  UpdateQuoteItemBody,
} from './quotes.schemas.ts';

const tags = ['Quotes'];
const NoQuery = Type.Object({}, { additionalProperties: false });
const Deleted = { 204: { type: 'null', description: 'Deleted' } } as const;

/** /quotes: priced proposals to a client, their items, the status moves, conversion into a contract, and the PDF. */
export const quotesRoutes = (service: QuotesService): FastifyPluginAsyncTypebox => async (app) => {
  app.get('/quotes', {
    schema: { operationId: 'listQuotes', tags, summary: "List quotes, newest issue_date first (a client-portal key sees its own client's sent quotes, not drafts)", querystring: ListQuotesQuery, response: { 200: QuoteListResponse } },
    config: { permission: 'quote:read' },
  }, (req) => service.list(req.actor, req.query));
  app.post('/quotes', {
    schema: { operationId: 'createQuote', tags, summary: 'Create a draft quote for a client, numbered from the tenant sequence, optionally with its items', querystring: NoQuery, body: CreateQuoteBody, response: { 201: QuoteResponse } },
    config: { permission: 'quote:create' },
  }, async (req, reply) => {
    const quote = await service.create(req.actor, req.body);
    reply.code(201).header('Location', `/api/v1/quotes/${quote.quote_id}`);
    return withEtag(req, reply, quote);
  });
  app.get('/quotes/:id', {
    schema: { operationId: 'getQuote', tags, summary: 'Get a quote with its items', params: IdParams, querystring: NoQuery, response: { 200: QuoteResponse } },
    config: { permission: 'quote:read' },
  }, async (req, reply) => withEtag(req, reply, await service.get(req.actor, req.params.id)));
  app.put('/quotes/:id', {
    schema: { operationId: 'updateQuote', tags, summary: 'Change a draft quote (title, description, dates, currency while it has no items)', params: IdParams, querystring: NoQuery, body: UpdateQuoteBody, response: { 200: QuoteResponse } },
    config: { permission: 'quote:update' },
  }, async (req, reply) => withEtag(req, reply, await service.update(req.actor, req.params.id, req.body, ifMatchOf(req))));
  app.delete('/quotes/:id', {
    schema: { operationId: 'deleteQuote', tags, summary: 'Delete a draft quote and its items', params: IdParams, querystring: NoQuery, response: Deleted },
    config: { permission: 'quote:delete' },
  }, async (req, reply) => {
    await service.remove(req.actor, req.params.id, ifMatchOf(req));
    return reply.code(204).send(null);
  });

  app.get('/quotes/:id/items', {
    schema: { operationId: 'listQuoteItems', tags, summary: "A quote's items in display order", params: IdParams, querystring: NoQuery, response: { 200: QuoteItemListResponse } },
    config: { permission: 'quote:read' },
  }, async (req) => ({ data: await service.listItems(req.actor, req.params.id) }));
  app.post('/quotes/:id/items', {
    schema: { operationId: 'addQuoteItem', tags, summary: "Add an item to a draft quote (priced with the client's tax; the quote's totals follow)", params: IdParams, querystring: NoQuery, body: QuoteItemInput, response: { 201: QuoteItemResponse } },
    config: { permission: 'quote:update' },
  }, async (req, reply) => {
    const item = await service.addItem(req.actor, req.params.id, req.body);
    reply.code(201).header('Location', `/api/v1/quotes/${req.params.id}/items/${item.item_id}`);
    return withEtag(req, reply, item);
  });
  app.get('/quotes/:id/items/:itemId', {
    schema: { operationId: 'getQuoteItem', tags, summary: 'Get an item of a quote', params: QuoteItemParams, querystring: NoQuery, response: { 200: QuoteItemResponse } },
    config: { permission: 'quote:read' },
  }, async (req, reply) => withEtag(req, reply, await service.getItem(req.actor, req.params.id, req.params.itemId)));
  app.put('/quotes/:id/items/:itemId', {
    schema: { operationId: 'updateQuoteItem', tags, summary: "Change an item of a draft quote (priced again; the quote's totals follow)", params: QuoteItemParams, querystring: NoQuery, body: UpdateQuoteItemBody, response: { 200: QuoteItemResponse } },
    config: { permission: 'quote:update' },
  }, async (req, reply) => withEtag(req, reply, await service.updateItem(req.actor, req.params.id, req.params.itemId, req.body, ifMatchOf(req))));
  app.delete('/quotes/:id/items/:itemId', {
    schema: { operationId: 'removeQuoteItem', tags, summary: 'Remove an item from a draft quote', params: QuoteItemParams, querystring: NoQuery, response: Deleted },
    config: { permission: 'quote:update' },
  }, async (req, reply) => {
    await service.removeItem(req.actor, req.params.id, req.params.itemId, ifMatchOf(req));
    return reply.code(204).send(null);
  });

  app.post('/quotes/:id/send', {
    schema: { operationId: 'sendQuote', tags, summary: 'Mark a draft quote (with at least one item) as sent to the client', params: IdParams, querystring: NoQuery, body: NoBody, response: { 200: QuoteResponse } },
    config: { permission: 'quote:update' },
    preValidation: emptyBodyIsObject,
  }, async (req, reply) => withEtag(req, reply, await service.send(req.actor, req.params.id)));
  app.post('/quotes/:id/accept', {
    schema: { operationId: 'acceptQuote', tags, summary: 'Record that the client accepted a sent quote (not once it has expired)', params: IdParams, querystring: NoQuery, body: NoBody, response: { 200: QuoteResponse } },
    config: { permission: 'quote:update' },
    preValidation: emptyBodyIsObject,
  }, async (req, reply) => withEtag(req, reply, await service.accept(req.actor, req.params.id)));
  app.post('/quotes/:id/reject', {
    schema: { operationId: 'rejectQuote', tags, summary: 'Record that the client rejected a sent or expired quote, with its reason', params: IdParams, querystring: NoQuery, body: RejectQuoteBody, response: { 200: QuoteResponse } },
    config: { permission: 'quote:update' },
    preValidation: emptyBodyIsObject,
  }, async (req, reply) => withEtag(req, reply, await service.reject(req.actor, req.params.id, req.body)));
  app.post('/quotes/:id/convert', {
    schema: {
      operationId: 'convertQuote',
      tags,
      summary: 'Turn an accepted quote into a draft contract for its client (a fixed line per recurring item), once',
      params: IdParams,
      querystring: NoQuery,
      body: ConvertQuoteBody,
      response: { 200: ConvertQuoteResponse },
    },
    config: { permission: ['quote:update', 'contract:create'] },
    preValidation: emptyBodyIsObject,
  }, (req) => service.convert(req.actor, req.params.id, req.body).then((data) => ({ data })));

  app.get('/quotes/:id/pdf', {
    schema: {
      operationId: 'getQuotePdf',
      tags,
      summary: 'The quote as a PDF document',
      params: IdParams,
      querystring: NoQuery,
      response: { 200: PdfResponse },
    },
    config: { permission: 'quote:read' },
  }, async (req, reply) => {
    const { fileName, bytes } = await service.pdf(req.actor, req.params.id);
    return sendPdf(reply, bytes, fileName);
  });
};
