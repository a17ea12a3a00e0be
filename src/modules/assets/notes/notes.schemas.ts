import { Type, type Static } from 'typebox';
import { Markdown, Nullable, Timestamp, dataOf } from '../../../platform/http/schemas.ts';

export const AssetNotes = Type.Object({
  notes: Nullable(Type.String({ description: 'Markdown; null when there are none' })),
  updated_at: Nullable(Timestamp),
});
export type AssetNotes = Static<typeof AssetNotes>;

export const PutAssetNotesBody = Type.Object({ notes: Markdown }, { additionalProperties: false });
export const AssetNotesResponse = dataOf(AssetNotes);
