import { Type, type Static } from 'typebox';
import { listOf, Nullable } from '../../../platform/http/schemas.ts';
import { RealmId } from '../ledger.openapi.ts';

const RefId = Type.String({ description: "The ledger's id" });

export const LedgerAccountView = Type.Object({
  id: RefId, name: Type.String(), full_name: Type.String(),
  classification: Nullable(Type.String({ description: 'Asset | Liability | Equity | Revenue | Expense' })),
  account_type: Nullable(Type.String()), sub_type: Nullable(Type.String()), active: Type.Boolean(), currency_code: Nullable(Type.String()),
});
export const LedgerItemView = Type.Object({
  id: RefId, name: Type.String(), type: Nullable(Type.String()), active: Type.Boolean(), description: Nullable(Type.String()),
  unit_price_cents: Nullable(Type.Integer({ description: "The item's price, in integer cents of the company's currency" })), income_account_id: Nullable(Type.String()),
});
export const LedgerTaxCodeView = Type.Object({ id: RefId, name: Type.String(), description: Nullable(Type.String()), active: Type.Boolean(), taxable: Nullable(Type.Boolean()) });
export const LedgerTermView = Type.Object({ id: RefId, name: Type.String(), type: Nullable(Type.String({ description: 'STANDARD | DATE_DRIVEN' })), due_days: Nullable(Type.Integer()), active: Type.Boolean() });
export const LedgerPaymentMethodView = Type.Object({ id: RefId, name: Type.String(), type: Nullable(Type.String()), active: Type.Boolean() });

export const ReferenceQuery = Type.Object(
  {
    realm_id: Type.Optional(RealmId),
    page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 25 })),
    active: Type.Optional(Type.Boolean({ description: 'Only active (true) or inactive (false) records' })),
    search: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'Part of the name, any case' })),
    refresh: Type.Optional(Type.Boolean({ default: false, description: 'Read the ledger now instead of the copy kept for up to a minute' })),
  },
  { additionalProperties: false },
);
export type ReferenceQuery = Static<typeof ReferenceQuery>;

export const AccountListResponse = listOf(LedgerAccountView);
export const ItemListResponse = listOf(LedgerItemView);
export const TaxCodeListResponse = listOf(LedgerTaxCodeView);
export const TermListResponse = listOf(LedgerTermView);
export const PaymentMethodListResponse = listOf(LedgerPaymentMethodView);
