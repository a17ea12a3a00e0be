import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Kysely, Selectable } from 'kysely';
import { Type, type Static } from 'typebox';
import type { Actor } from '../../../platform/auth/context.ts';
import { withTransaction, type Executor } from '../../../platform/db/executor.ts';
import type { DB } from '../../../platform/db/schema.ts';
import type { BillingSettingsTable } from '../../../platform/db/schema.billing.ts';
import { unprocessable } from '../../../platform/http/errors.ts';
import { dataOf } from '../../../platform/http/schemas.ts';
import { emit } from '../../../platform/events/outbox.ts';
import { CurrencyCode, currencyCode } from '../money.ts';

const Prefix = (what: string) => Type.String({ pattern: '^[A-Za-z0-9/_.#-]{0,16}$', maxLength: 16, description: `Prefix of ${what} numbers (letters, digits and / _ . # -; may be empty)` });
const NextNumber = (what: string) => Type.Integer({ minimum: 1, maximum: 999_999_999, description: `The number the next ${what} takes; it may only move forward` });

const BillingSettings = Type.Object({
  default_currency_code: Type.String({ description: 'ISO 4217: the currency of new catalogue items and contract lines that name none' }),
  invoice_number_prefix: Type.String(),
  next_invoice_number: Type.Integer({ description: 'Taken by the next invoice finalized (numbers are gapless: drafts have none)' }),
  credit_note_number_prefix: Type.String(),
  next_credit_note_number: Type.Integer(),
  quote_number_prefix: Type.String(),
  next_quote_number: Type.Integer(),
  default_payment_terms_days: Type.Integer({ description: "Days from issue to due when a client's payment_terms name no number of days" }),
});
type BillingSettings = Static<typeof BillingSettings>;

const PutBillingSettingsBody = Type.Object(
  {
    default_currency_code: Type.Optional(CurrencyCode),
    invoice_number_prefix: Type.Optional(Prefix('invoice')),
    next_invoice_number: Type.Optional(NextNumber('invoice')),
    credit_note_number_prefix: Type.Optional(Prefix('credit note')),
    next_credit_note_number: Type.Optional(NextNumber('credit note')),
    quote_number_prefix: Type.Optional(Prefix('quote')),
    next_quote_number: Type.Optional(NextNumber('quote')),
    default_payment_terms_days: Type.Optional(Type.Integer({ minimum: 0, maximum: 365 })),
  },
  { additionalProperties: false, minProperties: 1, description: 'The settings to change; the others keep their values' },
);
const NoQuery = Type.Object({}, { additionalProperties: false });

const DEFAULTS: BillingSettings = {
  default_currency_code: 'USD',
  invoice_number_prefix: 'INV-',
  next_invoice_number: 1,
  credit_note_number_prefix: 'CN-',
  next_credit_note_number: 1,
  quote_number_prefix: 'Q-',
  next_quote_number: 1,
  default_payment_terms_days: 30,
};

const toSettings = (r: Selectable<BillingSettingsTable> | undefined): BillingSettings => {
  if (!r) return { ...DEFAULTS };
  const { tenant: _t, updated_at: _u, ...settings } = r;
  return settings;
};

/** The tenant's billing settings (the defaults until first set). */
export async function billingSettingsOf(db: Executor, tenant: string): Promise<BillingSettings> {
  return toSettings(await db.selectFrom('billing_settings').selectAll().where('tenant', '=', tenant).executeTakeFirst());
}

/** The tenant's billing settings: default currency, document numbering, default payment terms. */
export function createBillingSettingsService(deps: { db: Kysely<DB> }) {
  const { db } = deps;
  return {
    get: (actor: Actor): Promise<BillingSettings> => billingSettingsOf(db, actor.tenant),

    /**
     * Existing records keep their currency and numbers; only later ones follow the new settings. A
     * sequence may move forward (to continue another system's numbering) but never back, which would
     * issue a number twice.
     */
    async put(actor: Actor, body: Static<typeof PutBillingSettingsBody>): Promise<BillingSettings> {
      const set = { ...body, ...(body.default_currency_code ? { default_currency_code: currencyCode(body.default_currency_code, 'body.default_currency_code') } : {}) };
      return withTransaction(db, async (trx) => {
        await trx.insertInto('billing_settings').values({ tenant: actor.tenant, updated_at: new Date() }).onConflict((oc) => oc.column('tenant').doNothing()).execute();
        const current = toSettings(await trx.selectFrom('billing_settings').selectAll().where('tenant', '=', actor.tenant).forUpdate().executeTakeFirst());
        for (const key of ['next_invoice_number', 'next_credit_note_number', 'next_quote_number'] as const) {
          const next = set[key];
          if (next !== undefined && next < current[key]) {
            throw unprocessable(`${key} may only move forward: ${current[key] - 1} has already been issued`, { [key]: current[key] });
          }
        }
        await trx.updateTable('billing_settings').set({ ...set, updated_at: new Date() }).where('tenant', '=', actor.tenant).execute();
        await emit(trx, { tenant: actor.tenant, event_type: 'billing_settings.updated', aggregate_type: 'billing_settings', aggregate_id: actor.tenant, payload: { ...set, changed_fields: Object.keys(set).sort() } });
        return { ...current, ...set };
      });
    },
  };
}

export type BillingSettingsService = ReturnType<typeof createBillingSettingsService>;

export const billingSettingsRoutes = (service: BillingSettingsService): FastifyPluginAsyncTypebox => async (app) => {
  const tags = ['Billing settings'];
  app.get('/billing-settings', {
    schema: { operationId: 'getBillingSettings', tags, summary: "The tenant's billing settings (default currency, numbering, payment terms)", querystring: NoQuery, response: { 200: dataOf(BillingSettings) } },
    config: { permission: 'billing:read' },
  }, async (req) => ({ data: await service.get(req.actor) }));
  app.put('/billing-settings', {
    schema: { operationId: 'updateBillingSettings', tags, summary: 'Change billing settings (the fields given)', querystring: NoQuery, body: PutBillingSettingsBody, response: { 200: dataOf(BillingSettings) } },
    config: { permission: 'billing:update' },
  }, async (req) => ({ data: await service.put(req.actor, req.body) }));
};
