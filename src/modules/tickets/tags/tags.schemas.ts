import { Type, type Static } from 'typebox';
import { Id, dataOf } from '../../../platform/http/schemas.ts';
import { Tag, Tags, suppressFields } from '../tickets.schemas.ts';

export const MAX_TAGS = 50;

export const TagListResponse = dataOf(Type.Array(Type.String(), { description: 'The ticket\'s tags, alphabetically regardless of case' }));

export const ReplaceTagsBody = Type.Object(
  { tags: Tags, ...suppressFields },
  { additionalProperties: false, description: 'The ticket\'s complete new tag list (an empty list removes all)' },
);
export type ReplaceTagsBody = Static<typeof ReplaceTagsBody>;

export const AddTagBody = Type.Object({ tag: Tag, ...suppressFields }, { additionalProperties: false });
export type AddTagBody = Static<typeof AddTagBody>;

export const TagParams = Type.Object({ ticketId: Id, tag: Type.String({ minLength: 1, maxLength: 64, description: 'The tag, URL-encoded; matched regardless of case' }) }, { additionalProperties: false });
