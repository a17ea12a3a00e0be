import { Type, type Static } from 'typebox';
import { Id, Timestamp, dataOf } from '../../../platform/http/schemas.ts';
import type { AssetRelationshipType } from '../../../platform/db/schema.assets.ts';
import { AssetStatusSchema } from '../assets.schemas.ts';

export const RELATIONSHIP_TYPES: readonly AssetRelationshipType[] = ['depends_on', 'connected_to', 'contains', 'runs_on', 'backs_up'];

export const Relationship = Type.Object({
  relationship_id: Id,
  relationship_type: Type.Enum([...RELATIONSHIP_TYPES]),
  direction: Type.Enum(['outgoing', 'incoming'], { description: 'outgoing: this asset <type> the related one; incoming: the related asset <type> this one' }),
  asset_id: Id,
  related_asset_id: Id,
  related_asset_tag: Type.String(),
  related_asset_name: Type.String(),
  related_asset_type: Type.String(),
  related_asset_status: AssetStatusSchema,
  created_at: Timestamp,
});
export type Relationship = Static<typeof Relationship>;

export const CreateRelationshipBody = Type.Object(
  {
    related_asset_id: Id,
    relationship_type: Type.Enum([...RELATIONSHIP_TYPES], { description: 'Read as: this asset <relationship_type> the related asset' }),
  },
  { additionalProperties: false },
);
export type CreateRelationshipBody = Static<typeof CreateRelationshipBody>;

export const ListRelationshipsQuery = Type.Object(
  {
    direction: Type.Optional(Type.Enum(['outgoing', 'incoming'])),
    relationship_type: Type.Optional(Type.Enum([...RELATIONSHIP_TYPES])),
  },
  { additionalProperties: false },
);
export type ListRelationshipsQuery = Static<typeof ListRelationshipsQuery>;

export const RelationshipParams = Type.Object({ relationshipId: Id }, { additionalProperties: false });
export const RelationshipResponse = dataOf(Relationship);
export const RelationshipListResponse = Type.Object({ data: Type.Array(Relationship, { description: 'Both directions, newest first' }) });
