import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Kysely } from 'kysely';
import { Type, type Static } from 'typebox';
import type { Actor } from '../../../platform/auth/context.ts';
import { withTransaction } from '../../../platform/db/executor.ts';
import type { DB } from '../../../platform/db/schema.ts';
import { dataOf } from '../../../platform/http/schemas.ts';
import { emit } from '../../../platform/events/outbox.ts';
import { CurrencyCode, currencyCode, tenantCurrency } from '../money.ts';

const BillingSettings = Type.Object({
  default_currency_code: Type.String({ description: 'ISO 4217: the currency of new catalogue items and contract lines that name none' }),
});
type BillingSettings = Static<typeof BillingSettings>;

const PutBillingSettingsBody = Type.Object({ default_currency_code: CurrencyCode }, { additionalProperties: false });
const NoQuery = Type.Object({}, { additionalProperties: false });

/** The tenant's billing settings: today its default currency (USD until set). */
export function createBillingSettingsService(deps: { db: Kysely<DB> }) {
  const { db } = deps;
  return {
    get: async (actor: Actor): Promise<BillingSettings> => ({ default_currency_code: await tenantCurrency(db, actor.tenant) }),

    /** Existing items and lines keep their own currency; only records created later default to the new one. */
    async put(actor: Actor, body: Static<typeof PutBillingSettingsBody>): Promise<BillingSettings> {
      const code = currencyCode(body.default_currency_code, 'body.default_currency_code');
      return withTransaction(db, async (trx) => {
        await trx
          .insertInto('billing_settings')
          .values({ tenant: actor.tenant, default_currency_code: code, updated_at: new Date() })
          .onConflict((oc) => oc.column('tenant').doUpdateSet({ default_currency_code: code, updated_at: new Date() }))
          .execute();
        await emit(trx, { tenant: actor.tenant, event_type: 'billing_settings.updated', aggregate_type: 'billing_settings', aggregate_id: actor.tenant, payload: { default_currency_code: code } });
        return { default_currency_code: code };
      });
    },
  };
}

export type BillingSettingsService = ReturnType<typeof createBillingSettingsService>;

export const billingSettingsRoutes = (service: BillingSettingsService): FastifyPluginAsyncTypebox => async (app) => {
  const tags = ['Billing settings'];
  app.get('/billing-settings', {
    schema: { operationId: 'getBillingSettings', tags, summary: "The tenant's billing settings (its default currency)", querystring: NoQuery, response: { 200: dataOf(BillingSettings) } },
    config: { permission: 'billing:read' },
  }, async (req) => ({ data: await service.get(req.actor) }));
  app.put('/billing-settings', {
    schema: { operationId: 'updateBillingSettings', tags, summary: 'Set the default currency of new catalogue items and contract lines', querystring: NoQuery, body: PutBillingSettingsBody, response: { 200: dataOf(BillingSettings) } },
    config: { permission: 'billing:update' },
  }, async (req) => ({ data: await service.put(req.actor, req.body) }));
};
