import { Type, type Static } from 'typebox';
import { Id, Name, Nullable, Timestamp, dataOf, listOf, listQuery } from '../../../platform/http/schemas.ts';
import { ArticleType } from '../kb.shared.ts';

export const KbTemplate = Type.Object({
  template_id: Id,
  name: Type.String({ description: 'Unique per tenant, regardless of case' }),
  description: Nullable(Type.String()),
  article_type: ArticleType,
  content: Type.String({ description: 'Markdown an article made from the template starts with' }),
  is_builtin: Type.Boolean({ description: 'Every tenant has the built-in templates (one per article type); they can be edited, not deleted' }),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type KbTemplate = Static<typeof KbTemplate>;

const Description = Nullable(Type.String({ maxLength: 2000 }));
const content = (extra: { default?: string } = {}) =>
  Type.String({ maxLength: 200_000, description: 'Markdown skeleton (at most 200,000 characters)', ...extra });

export const CreateKbTemplateBody = Type.Object(
  {
    name: Name,
    description: Type.Optional(Description),
    article_type: ArticleType,
    content: Type.Optional(content({ default: '' })),
  },
  { additionalProperties: false },
);
export type CreateKbTemplateBody = Static<typeof CreateKbTemplateBody>;

export const UpdateKbTemplateBody = Type.Object(
  {
    name: Type.Optional(Name),
    description: Type.Optional(Description),
    article_type: Type.Optional(ArticleType),
    content: Type.Optional(content()),
  },
  { additionalProperties: false, minProperties: 1, description: 'Partial update' },
);
export type UpdateKbTemplateBody = Static<typeof UpdateKbTemplateBody>;

export const KB_TEMPLATE_SORT_FIELDS = ['name', 'created_at', 'updated_at'] as const;
export const ListKbTemplatesQuery = listQuery(KB_TEMPLATE_SORT_FIELDS, {
  article_type: Type.Optional(ArticleType),
  is_builtin: Type.Optional(Type.Boolean()),
  search: Type.Optional(Type.String({ maxLength: 255, description: 'Part of the name, any case' })),
});
export type ListKbTemplatesQuery = Static<typeof ListKbTemplatesQuery>;

export const KbTemplateParams = Type.Object({ templateId: Id }, { additionalProperties: false });

export const KbTemplateResponse = dataOf(KbTemplate);
export const KbTemplateListResponse = listOf(KbTemplate);
