import { Type, type Static } from 'typebox';
import { Id, Nullable, Timestamp, dataOf } from '../../../platform/http/schemas.ts';
import type { AssetTicketRelationship } from '../../../platform/db/schema.assets.ts';

export const TICKET_RELATIONSHIPS: readonly AssetTicketRelationship[] = ['affected', 'caused_by', 'related'];

export const TicketLink = Type.Object({
  asset_id: Id,
  ticket_id: Id,
  ticket_number: Type.String(),
  title: Type.String(),
  status_id: Id,
  status_name: Type.String(),
  is_closed: Type.Boolean(),
  client_id: Id,
  relationship_type: Type.Enum([...TICKET_RELATIONSHIPS]),
  notes: Nullable(Type.String()),
  linked_by: Nullable(Id),
  linked_at: Timestamp,
});
export type TicketLink = Static<typeof TicketLink>;

export const CreateTicketLinkBody = Type.Object(
  {
    ticket_id: Id,
    relationship_type: Type.Optional(Type.Enum([...TICKET_RELATIONSHIPS], { default: 'affected', description: 'affected (default): the ticket is about a problem of this asset; caused_by: the asset caused it; related' })),
    notes: Type.Optional(Nullable(Type.String({ maxLength: 2000 }))),
  },
  { additionalProperties: false },
);
export type CreateTicketLinkBody = Static<typeof CreateTicketLinkBody>;

export const ListTicketLinksQuery = Type.Object(
  { is_closed: Type.Optional(Type.Boolean({ description: 'true: only closed tickets; false: only open ones' })) },
  { additionalProperties: false },
);
export type ListTicketLinksQuery = Static<typeof ListTicketLinksQuery>;

export const TicketLinkParams = Type.Object({ id: Id, ticketId: Id }, { additionalProperties: false });
export const TicketLinkResponse = dataOf(TicketLink);
export const TicketLinkListResponse = Type.Object({ data: Type.Array(TicketLink, { description: 'Most recently linked first' }) });
