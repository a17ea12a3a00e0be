import type { Actor } from '../../platform/auth/context.ts';
import { AppError } from '../../platform/http/errors.ts';
import { recordPaymentInTrx, reversePaymentInTrx, type BillingApi } from '../billing/index.ts';
import type { ClientsApi } from '../clients/index.ts';
import type { OurBooks, OurClient } from './books.ts';

const PAGE = 100;

const toClient = (c: { client_id: string; client_name: string; email: string | null; phone_no: string | null; default_currency_code: string; is_inactive: boolean; updated_at: string }): OurClient => ({
  client_id: c.client_id, client_name: c.client_name, email: c.email, phone_no: c.phone_no, default_currency_code: c.default_currency_code, is_inactive: c.is_inactive, updated_at: c.updated_at,
});

/** Follows a paged list of another area to its end. */
async function all<T>(page: (n: number) => Promise<{ data: T[]; pagination: { hasNext: boolean } }>): Promise<T[]> {
  const out: T[] = [];
  for (let n = 1; ; n++) {
    const p = await page(n);
    out.push(...p.data);
    if (!p.pagination.hasNext) return out;
  }
}

/** OurBooks over the clients and billing services (the same wiring in the api process and the worker). */
export function ourBooks(clients: ClientsApi, billing: BillingApi): OurBooks {
  return {
    client: async (actor, id) => toClient(await clients.service.get(actor, id)),
    clients: async (actor, opts) => (await all((page) => clients.service.list(actor, { page, limit: PAGE, ...(opts.includeInactive ? {} : { is_inactive: false }) }))).map(toClient),
    invoice: async (actor, id) => billing.invoices.get(actor, id),
    invoiceIds: async (actor, f) => (await all(async (page) => billing.invoices.list(actor, { page, limit: PAGE, ...f } as Parameters<BillingApi['invoices']['list']>[1]))).map((i) => i.invoice_id),
    payment: async (actor, id) => {
      const p = await billing.payments.get(actor, id);
      return { name: p.reference ?? p.payment_id };
    },
    async catalogItem(actor: Actor, id: string) {
      for (const catalog of [billing.services, billing.products]) {
        try {
          const item = await catalog.get(actor, id);
          return { name: item.service_name, description: item.description };
        } catch (err) {
          if (!(err instanceof AppError && err.code === 'NOT_FOUND')) throw err;
        }
      }
      throw new AppError('NOT_FOUND', `Catalogue service or product '${id}' not found`);
    },
    taxRegion: async (actor, id) => (await billing.tax.get(actor, id)).region,
    async invoiceByNumber(actor, number) {
      const page = await billing.invoices.list(actor, { page: 1, limit: 100, search: number } as Parameters<BillingApi['invoices']['list']>[1]);
      const hit = page.data.find((i) => i.invoice_number === number);
      return hit ? billing.invoices.get(actor, hit.invoice_id) : undefined;
    },
    recordPayment: async (trx, actor, invoiceId, body) => ({ payment_id: (await recordPaymentInTrx(trx, actor, invoiceId, body)).payment.payment_id }),
    reversePayment: async (trx, actor, paymentId, reason) => {
      await reversePaymentInTrx(trx, actor, paymentId, reason);
    },
  };
}
