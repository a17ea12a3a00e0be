import { Type, type Static } from 'typebox';
import { DateOnly, Id, Nullable, Timestamp, dataOf, listOf, listQuery } from '../../../platform/http/schemas.ts';
import { CurrencyCode } from '../../billing/index.ts';

export const GENERATOR_KEYS = ['renewal', 'tm_conversion', 'whitespace', 'asset_aging', 'inbound-lead'] as const;
export const SUGGESTION_STATUSES = ['pending', 'accepted', 'dismissed', 'snoozed'] as const;
export const SCHEDULED_GENERATORS = ['renewal', 'tm_conversion', 'whitespace', 'asset_aging'] as const;

const Money = (what: string) => Type.Integer({ minimum: 0, maximum: 1_000_000_000_000, description: `${what}, integer cents in currency_code` });

export const Suggestion = Type.Object({
  suggestion_id: Id,
  generator_key: Type.Enum([...GENERATOR_KEYS], { description: 'What proposed it: renewal, tm_conversion, whitespace, asset_aging or inbound-lead' }),
  client_id: Id,
  client_name: Type.String(),
  title: Type.String(),
  evidence: Type.Record(Type.String(), Type.Unknown(), { description: 'What fired and why (becomes the generator_context of the deal an accept creates)' }),
  mrr_cents: Money('Suggested monthly recurring value'),
  nrr_cents: Money('Suggested one-off value'),
  currency_code: Type.String({ description: 'ISO 4217' }),
  status: Type.Enum([...SUGGESTION_STATUSES], { description: 'A snoozed suggestion whose snoozed_until has passed is pending again' }),
  snoozed_until: Nullable(Type.String({ format: 'date-time', description: 'When the snooze ends (set while snoozed; a past value means the snooze has ended)' })),
  dedupe_key: Type.String({ description: 'Stable per tenant and subject; a key that exists (even dismissed) is never generated again' }),
  created_opportunity_id: Nullable(Type.Unsafe<string>({ ...Id, description: 'The deal an accept created' })),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type Suggestion = Static<typeof Suggestion>;

export const SuggestionResponse = dataOf(Suggestion);
export const SuggestionListResponse = listOf(Suggestion);

export const ListSuggestionsQuery = listQuery(['created_at'], {
  status: Type.Optional(Type.Enum([...SUGGESTION_STATUSES], { description: 'Default pending: pending ones and snoozed ones whose snooze has ended. snoozed: only those still snoozed' })),
  client_id: Type.Optional(Id),
  generator_key: Type.Optional(Type.Enum([...GENERATOR_KEYS])),
});
export type ListSuggestionsQuery = Static<typeof ListSuggestionsQuery>;

export const SuggestionParams = Type.Object({ suggestionId: Id }, { additionalProperties: false });

export const AcceptSuggestionBody = Type.Object(
  {
    title: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: "Default: the suggestion's title" })),
    contact_id: Type.Optional(Nullable(Type.Unsafe<string>({ ...Id, description: 'A contact of the client' }))),
    owner_id: Type.Optional(Type.Unsafe<string>({ ...Id, description: 'An active internal user (default: the caller)' })),
    mrr_cents: Type.Optional(Money("Default: the suggestion's")),
    nrr_cents: Type.Optional(Money("Default: the suggestion's")),
    hardware_cents: Type.Optional(Money('Default 0')),
    currency_code: Type.Optional(Type.Unsafe<string>({ ...CurrencyCode, description: "Default: the suggestion's" })),
    expected_close_date: Type.Optional(Nullable(DateOnly)),
    next_action: Type.Optional(Type.String({ minLength: 1, maxLength: 300, description: "Default: the generator's first step (e.g. 'Start the renewal conversation')" })),
    next_action_due: Type.Optional(Type.String({ format: 'date-time', description: 'Default: 7 days from now' })),
  },
  { additionalProperties: false, description: 'Every field optional: what to change from the suggestion when creating the deal' },
);
export type AcceptSuggestionBody = Static<typeof AcceptSuggestionBody>;

export const SnoozeSuggestionBody = Type.Object(
  { snoozed_until: Type.String({ format: 'date-time', description: 'When the suggestion returns to the pending list; must be in the future' }) },
  { additionalProperties: false },
);
export type SnoozeSuggestionBody = Static<typeof SnoozeSuggestionBody>;

export const NoBody = Type.Object({}, { additionalProperties: false, description: 'No body (an empty object is accepted)' });

const ByGenerator = Type.Object(
  Object.fromEntries(SCHEDULED_GENERATORS.map((k) => [k, Type.Integer({ minimum: 0 })])) as Record<(typeof SCHEDULED_GENERATORS)[number], ReturnType<typeof Type.Integer>>,
  { description: 'New suggestions per generator' },
);

export const GenerateSuggestionsResponse = dataOf(Type.Object({
  created: Type.Integer({ minimum: 0, description: 'Suggestions created by this run (existing and dismissed keys are skipped)' }),
  by_generator: ByGenerator,
  qbr_triggers_recorded: Type.Integer({ minimum: 0, description: 'QBR triggers seen firing for the first time (counted by the QBR yield)' }),
}));
