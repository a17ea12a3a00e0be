import { Type, type Static } from 'typebox';
import { Id, Nullable, Timestamp, dataOf, listOf, listQuery } from '../../../platform/http/schemas.ts';

export const Category = Type.Object({
  category_id: Id,
  category_name: Type.String(),
  parent_category_id: Nullable(Type.String({ format: 'uuid', description: 'Set on subcategories (one level deep)' })),
  board_id: Nullable(Type.String({ format: 'uuid', description: 'The board the category is for; null: any board. A subcategory has its parent\'s board' })),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type Category = Static<typeof Category>;

const categoryName = Type.String({ minLength: 1, maxLength: 100, description: 'Trimmed; unique among its siblings (same board and parent) regardless of case' });
const parentId = Nullable(Type.String({ format: 'uuid', description: 'A top-level category: makes this one of its subcategories' }));
const boardId = Nullable(Type.String({ format: 'uuid', description: 'Limit the category to one board; a subcategory takes its parent\'s board' }));

export const CreateCategoryBody = Type.Object(
  { category_name: categoryName, parent_category_id: Type.Optional(parentId), board_id: Type.Optional(boardId) },
  { additionalProperties: false },
);
export type CreateCategoryBody = Static<typeof CreateCategoryBody>;

export const UpdateCategoryBody = Type.Object(
  { category_name: Type.Optional(categoryName), parent_category_id: Type.Optional(parentId), board_id: Type.Optional(boardId) },
  {
    additionalProperties: false,
    minProperties: 1,
    description: 'Partial update; parent and board cannot change while tickets use the category or its subcategories',
  },
);
export type UpdateCategoryBody = Static<typeof UpdateCategoryBody>;

export const CATEGORY_SORT_FIELDS = ['category_name', 'created_at', 'updated_at'] as const;
export type CategorySortField = (typeof CATEGORY_SORT_FIELDS)[number];
export const ListCategoriesQuery = listQuery(CATEGORY_SORT_FIELDS, {
  board_id: Type.Optional(Type.String({ format: 'uuid', description: 'Categories of this board (unscoped ones excluded)' })),
  parent_category_id: Type.Optional(Type.String({ format: 'uuid', description: 'The subcategories of this category' })),
  top_level: Type.Optional(Type.Boolean({ description: 'true: only top-level categories; false: only subcategories' })),
  search: Type.Optional(Type.String({ maxLength: 100, description: 'Case-insensitive substring of the name; blank means no search' })),
});
export type ListCategoriesQuery = Static<typeof ListCategoriesQuery>;

export const CategoryParams = Type.Object({ categoryId: Id }, { additionalProperties: false });
export const CategoryResponse = dataOf(Category);
export const CategoryListResponse = listOf(Category);
