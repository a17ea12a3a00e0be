import { Type, type Static } from 'typebox';
import { Id, Name, Nullable, Timestamp, dataOf, listOf, listQuery } from '../../../platform/http/schemas.ts';

/** A knowledge-base category: the knowledge base's own tree (not ticket categories). */
export const KbCategory = Type.Object({
  category_id: Id,
  name: Type.String({ description: 'Unique among its siblings (same parent), regardless of case' }),
  description: Nullable(Type.String()),
  parent_id: Nullable(Type.String({ format: 'uuid', description: 'The parent category; null for a top-level category' })),
  display_order: Type.Integer({ description: 'Position among its siblings, lowest first (ties sort by name)' }),
  article_count: Type.Integer({ description: 'Articles filed directly in this category (every status and audience)' }),
  child_count: Type.Integer({ description: 'Categories directly under this one' }),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type KbCategory = Static<typeof KbCategory>;

const Description = Nullable(Type.String({ maxLength: 2000 }));
const parentId = (description: string) => Nullable(Type.String({ format: 'uuid', description }));
const displayOrder = (extra: { default?: number } = {}) =>
  Type.Integer({ minimum: 0, maximum: 100_000, description: 'Position among its siblings, lowest first', ...extra });

export const CreateKbCategoryBody = Type.Object(
  {
    name: Name,
    description: Type.Optional(Description),
    parent_id: Type.Optional(parentId('An existing category of the tenant, or null (the default) for the top level')),
    display_order: Type.Optional(displayOrder({ default: 0 })),
  },
  { additionalProperties: false },
);
export type CreateKbCategoryBody = Static<typeof CreateKbCategoryBody>;

export const UpdateKbCategoryBody = Type.Object(
  {
    name: Type.Optional(Name),
    description: Type.Optional(Description),
    parent_id: Type.Optional(parentId('Moves the category (with its subtree) under an existing category, or to the top level (null); not under itself or one of its descendants (422)')),
    display_order: Type.Optional(displayOrder()),
  },
  { additionalProperties: false, minProperties: 1, description: 'Partial update' },
);
export type UpdateKbCategoryBody = Static<typeof UpdateKbCategoryBody>;

export const KB_CATEGORY_SORT_FIELDS = ['display_order', 'name', 'created_at', 'updated_at'] as const;
export const ListKbCategoriesQuery = listQuery(KB_CATEGORY_SORT_FIELDS, {
  parent_id: Type.Optional(
    Type.Union([Id, Type.Literal('null', { description: 'The literal text null: top-level categories only' })], {
      description: "A category's id (its direct children), or the literal `null` (top-level categories); omit for every category",
    }),
  ),
  search: Type.Optional(Type.String({ maxLength: 255, description: 'Part of the name, any case' })),
});
export type ListKbCategoriesQuery = Static<typeof ListKbCategoriesQuery>;

export const KbCategoryParams = Type.Object({ categoryId: Id }, { additionalProperties: false });

export const KbCategoryResponse = dataOf(KbCategory);
export const KbCategoryListResponse = listOf(KbCategory);
