import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { withEtag } from '../../../platform/http/etag.ts';
import { IdParams } from '../../../platform/http/schemas.ts';
import type { PaymentsService } from './payments.service.ts';
import {
  ApplyCreditBody,
  ApplyCreditResponse,
  CreditBalancesResponse,
  CreditEntryListResponse,
  CreditNoteListResponse,
  CreditNoteResponse,
  CreditNoteResultResponse,
  IssueCreditNoteBody,
  ListCreditEntriesQuery,
  ListCreditNotesQuery,
  ListInvoicePaymentsQuery,
  ListPaymentsQuery,
  PaymentListResponse,
  PaymentResponse,
  PaymentResultResponse,
  RecordPaymentBody,
  ReversePaymentBody,
} from './payments.schemas.ts';

const tags = ['Payments and credit'];
const NoQuery = Type.Object({}, { additionalProperties: false });

/** Payments on invoices, credit notes, and each client's credit per billing profile and currency. */
export const paymentsRoutes = (service: PaymentsService): FastifyPluginAsyncTypebox => async (app) => {
  app.post('/invoices/:id/payments', {
    schema: { operationId: 'recordInvoicePayment', tags, summary: 'Record a payment (finalized, sent or partially paid invoices; an over-payment becomes client credit)', params: IdParams, querystring: NoQuery, body: RecordPaymentBody, response: { 201: PaymentResultResponse } },
    config: { permission: 'invoice:update' },
  }, async (req, reply) => reply.code(201).send({ data: await service.record(req.actor, req.params.id, req.body) }));
  app.get('/invoices/:id/payments', {
    schema: { operationId: 'listInvoicePayments', tags, summary: "An invoice's payments", params: IdParams, querystring: ListInvoicePaymentsQuery, response: { 200: PaymentListResponse } },
    config: { permission: 'invoice:read' },
  }, (req) => service.listOfInvoice(req.actor, req.params.id, req.query));
  app.post('/invoices/:id/credit-notes', {
    schema: { operationId: 'issueCreditNote', tags, summary: 'Issue a credit note against a finalized invoice (beyond its balance it becomes client credit)', params: IdParams, querystring: NoQuery, body: IssueCreditNoteBody, response: { 201: CreditNoteResultResponse } },
    config: { permission: 'invoice:update' },
  }, async (req, reply) => reply.code(201).send({ data: await service.issueCreditNote(req.actor, req.params.id, req.body) }));
  app.post('/invoices/:id/apply-credit', {
    schema: { operationId: 'applyClientCredit', tags, summary: "Apply the billing profile's client credit (same currency) to an open invoice", params: IdParams, querystring: NoQuery, body: ApplyCreditBody, response: { 200: ApplyCreditResponse } },
    config: { permission: 'invoice:update' },
  }, async (req) => ({ data: await service.applyCredit(req.actor, req.params.id, req.body) }));

  app.get('/payments', {
    schema: { operationId: 'listPayments', tags, summary: 'List payments (newest payment_date first)', querystring: ListPaymentsQuery, response: { 200: PaymentListResponse } },
    config: { permission: 'invoice:read' },
  }, (req) => service.list(req.actor, req.query));
  app.get('/payments/:id', {
    schema: { operationId: 'getPayment', tags, summary: 'Get a payment', params: IdParams, querystring: NoQuery, response: { 200: PaymentResponse } },
    config: { permission: 'invoice:read' },
  }, async (req, reply) => withEtag(req, reply, await service.get(req.actor, req.params.id)));
  app.post('/payments/:id/reverse', {
    schema: { operationId: 'reversePayment', tags, summary: 'Reverse a payment (a bounced cheque, a charge-back): its money goes back onto the invoice and off the client credit; the payment stays, marked reversed', params: IdParams, querystring: NoQuery, body: ReversePaymentBody, response: { 200: PaymentResultResponse } },
    config: { permission: 'invoice:update' },
  }, async (req) => ({ data: await service.reverse(req.actor, req.params.id, req.body) }));
  app.get('/credit-notes', {
    schema: { operationId: 'listCreditNotes', tags, summary: 'List credit notes (newest issue_date first)', querystring: ListCreditNotesQuery, response: { 200: CreditNoteListResponse } },
    config: { permission: 'invoice:read' },
  }, (req) => service.listCreditNotes(req.actor, req.query));
  app.get('/credit-notes/:id', {
    schema: { operationId: 'getCreditNote', tags, summary: 'Get a credit note', params: IdParams, querystring: NoQuery, response: { 200: CreditNoteResponse } },
    config: { permission: 'invoice:read' },
  }, async (req, reply) => withEtag(req, reply, await service.getCreditNote(req.actor, req.params.id)));
  app.get('/clients/:id/credit', {
    schema: { operationId: 'getClientCredit', tags, summary: "A client's available credit per billing profile and currency", params: IdParams, querystring: NoQuery, response: { 200: CreditBalancesResponse } },
    config: { permission: 'invoice:read' },
  }, async (req) => ({ data: await service.clientCredit(req.actor, req.params.id) }));
  app.get('/clients/:id/credit/entries', {
    schema: { operationId: 'listClientCreditEntries', tags, summary: "The entries of a client's credit ledger (newest first)", params: IdParams, querystring: ListCreditEntriesQuery, response: { 200: CreditEntryListResponse } },
    config: { permission: 'invoice:read' },
  }, (req) => service.clientCreditEntries(req.actor, req.params.id, req.query));
};
