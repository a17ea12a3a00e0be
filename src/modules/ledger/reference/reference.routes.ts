import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { LEDGER_ERRORS, tags } from '../ledger.openapi.ts';
import { AccountListResponse, ItemListResponse, PaymentMethodListResponse, ReferenceQuery, TaxCodeListResponse, TermListResponse } from './reference.schemas.ts';
import type { ReferenceService } from './reference.service.ts';

const read = { permission: 'ledger:read' };

export const referenceRoutes = (service: ReferenceService): FastifyPluginAsyncTypebox => async (app) => {
  app.get('/quickbooks/accounts', {
    schema: { operationId: 'listLedgerAccounts', tags, summary: "The ledger's chart of accounts (filter by active or name; read through, kept for a minute)", querystring: ReferenceQuery, response: { 200: AccountListResponse, ...LEDGER_ERRORS } },
    config: read,
  }, (req) => service.list(req.actor, 'accounts', req.query));

  app.get('/quickbooks/items', {
    schema: { operationId: 'listLedgerItems', tags, summary: "The ledger's products and services", querystring: ReferenceQuery, response: { 200: ItemListResponse, ...LEDGER_ERRORS } },
    config: read,
  }, (req) => service.list(req.actor, 'items', req.query));

  app.get('/quickbooks/tax-codes', {
    schema: { operationId: 'listLedgerTaxCodes', tags, summary: "The ledger's tax codes", querystring: ReferenceQuery, response: { 200: TaxCodeListResponse, ...LEDGER_ERRORS } },
    config: read,
  }, (req) => service.list(req.actor, 'tax_codes', req.query));

  app.get('/quickbooks/terms', {
    schema: { operationId: 'listLedgerTerms', tags, summary: "The ledger's payment terms", querystring: ReferenceQuery, response: { 200: TermListResponse, ...LEDGER_ERRORS } },
    config: read,
  }, (req) => service.list(req.actor, 'terms', req.query));

  app.get('/quickbooks/payment-methods', {
    schema: { operationId: 'listLedgerPaymentMethods', tags, summary: "The ledger's payment methods", querystring: ReferenceQuery, response: { 200: PaymentMethodListResponse, ...LEDGER_ERRORS } },
    config: read,
  }, (req) => service.list(req.actor, 'payment_methods', req.query));
};
