import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Kysely } from 'kysely';
import type { DB } from '../../platform/db/schema.ts';
import { CRUD } from '../../platform/auth/permissions.ts';
import { defineModule, V1 } from '../deps.ts';
import { billingAnalyticsRoutes } from './analytics/analytics.routes.ts';
import { createBillingAnalyticsService } from './analytics/analytics.service.ts';
import type { ClientsApi } from '../clients/index.ts';
import { BILLING_EVENT_TYPES } from './billing.events.ts';
import { billingMergeParticipant } from './billing.merge.ts';
import { productsRoutes, servicesRoutes } from './catalog/catalog.routes.ts';
import { serviceCatalogSearchIndexer } from './catalog/catalog.search.ts';
import { createCatalogService } from './catalog/catalog.service.ts';
import { contractLinesRoutes } from './contract-lines/lines.routes.ts';
import { createContractLinesService } from './contract-lines/lines.service.ts';
import { contractsRoutes } from './contracts/contracts.routes.ts';
import { clientContractSearchIndexer, contractSearchIndexer } from './contracts/contracts.search.ts';
import { createContractsService } from './contracts/contracts.service.ts';
import { invoiceGenerationRoutes } from './invoices/generate/generate.routes.ts';
import { invoicesRoutes } from './invoices/invoices.routes.ts';
import { invoiceAnnotationSearchIndexer, invoiceItemSearchIndexer, invoiceSearchIndexer } from './invoices/invoices.search.ts';
import { createInvoicesService } from './invoices/invoices.service.ts';
import { paymentsRoutes } from './payments/payments.routes.ts';
import { createPaymentsService } from './payments/payments.service.ts';
import { createInvoiceGenerationService } from './invoices/generate/generate.service.ts';
import { billingSettingsRoutes, createBillingSettingsService } from './settings/settings.ts';
import { taxRoutes } from './tax/tax.routes.ts';
import { createTaxService } from './tax/tax.service.ts';
import { quotesRoutes } from './quotes/quotes.routes.ts';
import { createQuotesService } from './quotes/quotes.service.ts';
import { QuoteHooks } from './quotes/quotes.hooks.ts';
import { usageRoutes } from './usage/usage.routes.ts';
import { createUsageService } from './usage/usage.service.ts';
import { serviceTypesRoutes } from './service-types/types.routes.ts';
import { createServiceTypesService } from './service-types/types.service.ts';

export { seedServiceTypes } from './service-types/types.defaults.ts';
export { currencyCode, Cents, CurrencyCode } from './money.ts';
export { roundHalfEven } from './rounding.ts';
export { PAYMENT_METHODS } from './invoices/invoices.schemas.ts';
export { recordPaymentInTrx, reversePaymentInTrx } from './payments/payments.service.ts';
export type { RecordPaymentBody } from './payments/payments.schemas.ts';
export { convertQuoteIn, quoteSummaryOf } from './quotes/quotes.service.ts';
export type { QuoteHooks, QuoteChange } from './quotes/quotes.hooks.ts';
export type { QuoteSummary } from './quotes/quotes.schemas.ts';

export type BillingApi = ReturnType<typeof createBillingModule>;

/** Billing: settings, tax, recorded usage, service types, the catalogue of services and products, contracts and their lines, analytics. */
export function createBillingModule(deps: { db: Kysely<DB> }) {
  const quoteHooks = new QuoteHooks();
  const serviceTypes = createServiceTypesService(deps);
  const services = createCatalogService(deps, 'service');
  const products = createCatalogService(deps, 'product');
  const contracts = createContractsService(deps);
  const contractLines = createContractLinesService(deps);
  const analytics = createBillingAnalyticsService(deps);
  const settings = createBillingSettingsService(deps);
  const tax = createTaxService(deps);
  const usage = createUsageService(deps);
  const invoices = createInvoicesService(deps);
  const payments = createPaymentsService(deps);
  const invoiceGeneration = createInvoiceGenerationService(deps);
  const quotes = createQuotesService({ ...deps, hooks: quoteHooks });
  const routes: FastifyPluginAsyncTypebox = async (app) => {
    await app.register(serviceTypesRoutes(serviceTypes));
    await app.register(servicesRoutes(services));
    await app.register(productsRoutes(products));
    await app.register(contractsRoutes(contracts));
    await app.register(contractLinesRoutes(contractLines));
    await app.register(billingAnalyticsRoutes(analytics));
    await app.register(billingSettingsRoutes(settings));
    await app.register(taxRoutes(tax));
    await app.register(usageRoutes(usage));
    await app.register(invoiceGenerationRoutes(invoiceGeneration));
    await app.register(invoicesRoutes(invoices));
    await app.register(paymentsRoutes(payments));
    await app.register(quotesRoutes(quotes));
  };
  return { serviceTypes, services, products, contracts, contractLines, analytics, settings, tax, usage, invoices, payments, invoiceGeneration, quotes, quoteHooks, routes };
}

export const billingModule = defineModule({
  name: 'billing',
  permissions: [
    { resource: 'service', actions: CRUD, roles: { Manager: CRUD, Technician: ['read'], Finance: CRUD } },
    // A client-portal admin reads its own client's contracts (and the lines on them), nothing else.
    { resource: 'contract', actions: CRUD, roles: { Manager: CRUD, Finance: CRUD, 'Client Admin': ['read'] } },
    { resource: 'billing', actions: CRUD, roles: { Manager: ['read'], Finance: CRUD } },
    // A client-portal admin reads its own client's finalized invoices and its quotes (client-visible notes only).
    { resource: 'invoice', actions: CRUD, roles: { Manager: ['read'], Finance: CRUD, 'Client Admin': ['read'] } },
    { resource: 'quote', actions: CRUD, roles: { Manager: CRUD, Finance: CRUD, 'Client Admin': ['read'] } },
  ],
  events: { types: BILLING_EVENT_TYPES },
  searchIndexers: [serviceCatalogSearchIndexer, contractSearchIndexer, clientContractSearchIndexer, invoiceSearchIndexer, invoiceItemSearchIndexer, invoiceAnnotationSearchIndexer],
  build: (deps) => {
    deps.services<ClientsApi>('clients').merges.participate(billingMergeParticipant());
    const billing = createBillingModule(deps);
    return { api: billing, routes: [{ prefix: V1, plugin: billing.routes }] };
  },
});
