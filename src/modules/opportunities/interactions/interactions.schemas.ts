import { Type, type Static } from 'typebox';
import { Id, Name, Nullable, Timestamp, dataOf, listOf, listQuery } from '../../../platform/http/schemas.ts';

export const INTERACTION_TYPES = ['call', 'email', 'meeting', 'note'] as const;
const InteractionType = Type.Enum([...INTERACTION_TYPES], { description: 'call, email, meeting or note' });

/** A logged contact with a client: a call, an e-mail, a meeting or a note, optionally on one of its deals. */
export const Interaction = Type.Object({
  interaction_id: Id,
  client_id: Id,
  client_name: Type.String(),
  contact_id: Nullable(Type.String({ format: 'uuid', description: 'A contact of the client' })),
  contact_name: Nullable(Type.String()),
  opportunity_id: Nullable(Type.String({ format: 'uuid', description: "One of the client's opportunities: the interaction shows on its timeline" })),
  opportunity_number: Nullable(Type.String()),
  interaction_type: InteractionType,
  title: Type.String(),
  notes: Nullable(Type.String()),
  interaction_date: Timestamp,
  duration_minutes: Nullable(Type.Integer({ minimum: 0, maximum: 1440 })),
  user_id: Nullable(Type.String({ format: 'uuid', description: 'The internal user who had the interaction' })),
  user_name: Nullable(Type.String()),
  created_by: Nullable(Type.String({ format: 'uuid' })),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type Interaction = Static<typeof Interaction>;

const Notes = Nullable(Type.String({ maxLength: 20_000, description: 'Free text (blank = none)' }));
const Duration = Nullable(Type.Integer({ minimum: 0, maximum: 1440, description: 'Minutes, 0–1440' }));

export const CreateInteractionBody = Type.Object(
  {
    client_id: Type.Unsafe<string>({ ...Id, description: 'A client the caller may see (not a merged one)' }),
    contact_id: Type.Optional(Nullable(Type.String({ format: 'uuid', description: 'A contact of that client' }))),
    opportunity_id: Type.Optional(Nullable(Type.String({ format: 'uuid', description: 'An opportunity of that client' }))),
    interaction_type: InteractionType,
    title: Name,
    notes: Type.Optional(Notes),
    interaction_date: Type.Optional(Type.String({ format: 'date-time', description: 'When it happened (default now)' })),
    duration_minutes: Type.Optional(Duration),
    user_id: Type.Optional(Nullable(Type.String({ format: 'uuid', description: 'An active internal user (default the caller when internal)' }))),
  },
  { additionalProperties: false },
);
export type CreateInteractionBody = Static<typeof CreateInteractionBody>;

export const UpdateInteractionBody = Type.Object(
  {
    client_id: Type.Optional(Type.Unsafe<string>({ ...Id, description: "Moves the interaction to another client; its contact and opportunity must belong to that client (send them too, or null)" })),
    contact_id: Type.Optional(Nullable(Type.String({ format: 'uuid', description: "A contact of the interaction's client, or null" }))),
    opportunity_id: Type.Optional(Nullable(Type.String({ format: 'uuid', description: "An opportunity of the interaction's client, or null" }))),
    interaction_type: Type.Optional(InteractionType),
    title: Type.Optional(Name),
    notes: Type.Optional(Notes),
    interaction_date: Type.Optional(Type.String({ format: 'date-time' })),
    duration_minutes: Type.Optional(Duration),
    user_id: Type.Optional(Nullable(Type.String({ format: 'uuid', description: 'An active internal user, or null' }))),
  },
  { additionalProperties: false, minProperties: 1, description: 'Partial update' },
);
export type UpdateInteractionBody = Static<typeof UpdateInteractionBody>;

export const INTERACTION_SORT_FIELDS = ['interaction_date', 'created_at', 'updated_at', 'title'] as const;
export const ListInteractionsQuery = listQuery(INTERACTION_SORT_FIELDS, {
  client_id: Type.Optional(Id),
  contact_id: Type.Optional(Id),
  opportunity_id: Type.Optional(Id),
  interaction_type: Type.Optional(InteractionType),
  user_id: Type.Optional(Id),
  from: Type.Optional(Type.String({ format: 'date-time', description: 'Only interactions on or after this time' })),
  to: Type.Optional(Type.String({ format: 'date-time', description: 'Only interactions on or before this time' })),
  search: Type.Optional(Type.String({ maxLength: 255, description: 'Part of the title or notes, any case' })),
});
export type ListInteractionsQuery = Static<typeof ListInteractionsQuery>;

export const InteractionParams = Type.Object({ interactionId: Id }, { additionalProperties: false });

export const InteractionResponse = dataOf(Interaction);
export const InteractionListResponse = listOf(Interaction);

/** One entry of a deal's timeline: an interaction linked to it. */
export const TimelineEntry = Type.Object({
  interaction_id: Id,
  interaction_type: InteractionType,
  title: Type.String(),
  notes: Nullable(Type.String()),
  interaction_date: Timestamp,
  user_id: Nullable(Type.String({ format: 'uuid' })),
  user_name: Nullable(Type.String()),
});
export type TimelineEntry = Static<typeof TimelineEntry>;

export const TimelineQuery = listQuery(['interaction_date'] as const, {});
export type TimelineQuery = Static<typeof TimelineQuery>;

export const TimelineResponse = listOf(TimelineEntry);
