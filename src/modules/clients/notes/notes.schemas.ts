import { Type, type Static } from 'typebox';
import { Markdown, Nullable, Timestamp, dataOf } from '../../../platform/http/schemas.ts';

export const ClientNotes = Type.Object({
  notes: Nullable(Type.String({ description: 'Markdown; null when there are none' })),
  updated_at: Nullable(Timestamp),
});
export type ClientNotes = Static<typeof ClientNotes>;

export const PutNotesBody = Type.Object({ notes: Markdown }, { additionalProperties: false });
export type PutNotesBody = Static<typeof PutNotesBody>;

export const ClientNotesResponse = dataOf(ClientNotes);
