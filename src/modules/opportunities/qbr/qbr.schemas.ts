import { Type, type Static } from 'typebox';
import { Id, Nullable, dataOf, listOf } from '../../../platform/http/schemas.ts';
import { Opportunity, OPPORTUNITY_TYPES } from '../opportunities.schemas.ts';
import { GENERATOR_KEYS } from '../suggestions/suggestions.schemas.ts';

export const QBR_TRIGGER_KINDS = ['renewal', 'asset_aging', 'ticket_trend', 'whitespace'] as const;

const Money = (what: string) => Type.Integer({ minimum: 0, maximum: 1_000_000_000_000, description: `${what}, integer cents in currency_code` });

export const QbrTrigger = Type.Object({
  trigger_key: Type.String({ description: 'Stable per client and subject (renewal:<client_contract_id>:<end_date>, asset_aging:<client>:<year>, ticket_trend:<client>:<YYYY-Qn>, whitespace:<client>:<service_type_id>)' }),
  kind: Type.Enum([...QBR_TRIGGER_KINDS]),
  title: Type.String(),
  evidence: Type.Record(Type.String(), Type.Unknown(), { description: 'What fired and why' }),
  opportunity_type: Type.Enum([...OPPORTUNITY_TYPES], { description: 'The type of the deal acting on it creates' }),
  generator_key: Nullable(Type.Enum([...GENERATOR_KEYS], { description: 'The generator the deal is attributed to (null for a ticket trend)' })),
  mrr_cents: Money('Suggested monthly recurring value'),
  nrr_cents: Money('Suggested one-off value'),
  currency_code: Type.String({ description: 'ISO 4217' }),
  default_next_action: Type.String({ description: 'The first next action of the deal acting on it creates' }),
  opportunity_id: Nullable(Type.Unsafe<string>({ ...Id, description: 'The deal already created from this trigger (null until acted on)' })),
});

export const QbrPack = Type.Object({
  client_id: Id,
  client_name: Type.String(),
  triggers: Type.Array(QbrTrigger, { description: 'Renewals within renewal_lead_days, asset aging, ticket trend, then whitespace' }),
});
export type QbrPack = Static<typeof QbrPack>;
export const QbrPackResponse = dataOf(QbrPack);

export const QbrClientParams = Type.Object({ clientId: Id }, { additionalProperties: false });

export const CreateQbrOpportunitiesBody = Type.Object(
  {
    trigger_keys: Type.Array(Type.String({ minLength: 1, maxLength: 300 }), {
      minItems: 1,
      maxItems: 100,
      description: "Keys of the client's current triggers (a key already acted on returns its deal)",
    }),
  },
  { additionalProperties: false },
);
export type CreateQbrOpportunitiesBody = Static<typeof CreateQbrOpportunitiesBody>;

export const QbrOpportunitiesResponse = dataOf(Type.Array(Opportunity));

export const QbrYieldRow = Type.Object({
  client_id: Id,
  client_name: Type.String(),
  triggers_fired: Type.Integer({ description: 'Distinct triggers seen firing for the client (by the scheduled run or acted on)' }),
  opportunities_created: Type.Integer({ description: 'Triggers acted on whose deal still exists' }),
  opportunities_won: Type.Integer({ description: 'Of those, deals won' }),
});
export type QbrYieldRow = Static<typeof QbrYieldRow>;
export const QbrYieldResponse = listOf(QbrYieldRow);

export const QbrYieldQuery = Type.Object(
  {
    page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 25 })),
    client_id: Type.Optional(Id),
  },
  { additionalProperties: false },
);
export type QbrYieldQuery = Static<typeof QbrYieldQuery>;
