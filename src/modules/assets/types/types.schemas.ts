import { Type, type Static } from 'typebox';
import { Nullable, Timestamp, dataOf } from '../../../platform/http/schemas.ts';

export const FIELD_KINDS = ['string', 'number', 'integer', 'boolean', 'date', 'enum'] as const;
export const SLUG_PATTERN = '^[a-z][a-z0-9_]{0,62}$';
export const MAX_FIELDS = 100;
/** Longest value a string attribute may hold when its definition names no max_length. */
export const DEFAULT_STRING_MAX = 1000;

export const Slug = Type.String({ pattern: SLUG_PATTERN, minLength: 1, maxLength: 63, description: 'Lower-case letters, digits and underscores, starting with a letter' });
export const SlugParams = Type.Object({ slug: Slug }, { additionalProperties: false });

export const FieldDefinitionSchema = Type.Object(
  {
    key: Type.String({ pattern: SLUG_PATTERN, minLength: 1, maxLength: 63, description: 'The key in the asset\'s `attributes`' }),
    label: Type.String({ minLength: 1, maxLength: 255 }),
    type: Type.Enum([...FIELD_KINDS]),
    required: Type.Boolean({ default: false }),
    enum_values: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 255 }), { minItems: 1, maxItems: 100, description: 'The allowed values; only (and required) for type enum' })),
    max_length: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000, description: `Only for type string; default ${DEFAULT_STRING_MAX}` })),
  },
  { additionalProperties: false },
);

const FieldSchemaList = Type.Array(FieldDefinitionSchema, { maxItems: MAX_FIELDS, description: 'The attributes assets of this type carry; keys unique' });

export const AssetType = Type.Object({
  slug: Type.String(),
  type_name: Type.String(),
  description: Nullable(Type.String()),
  is_builtin: Type.Boolean(),
  field_schema: Type.Array(
    Type.Object({
      key: Type.String(),
      label: Type.String(),
      type: Type.Enum([...FIELD_KINDS]),
      required: Type.Boolean(),
      enum_values: Type.Optional(Type.Array(Type.String())),
      max_length: Type.Optional(Type.Integer()),
    }),
  ),
  asset_count: Type.Integer({ description: 'Assets of this type' }),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type AssetType = Static<typeof AssetType>;

export const CreateAssetTypeBody = Type.Object(
  {
    slug: Slug,
    type_name: Type.String({ minLength: 1, maxLength: 255 }),
    description: Type.Optional(Nullable(Type.String({ maxLength: 2000 }))),
    field_schema: Type.Optional(FieldSchemaList),
  },
  { additionalProperties: false },
);
export type CreateAssetTypeBody = Static<typeof CreateAssetTypeBody>;

export const UpdateAssetTypeBody = Type.Object(
  {
    type_name: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    description: Type.Optional(Nullable(Type.String({ maxLength: 2000 }))),
    field_schema: Type.Optional(FieldSchemaList),
  },
  { additionalProperties: false, minProperties: 1, description: 'Partial update; field_schema replaces the whole list and cannot change on built-in types' },
);
export type UpdateAssetTypeBody = Static<typeof UpdateAssetTypeBody>;

export const AssetTypeResponse = dataOf(AssetType);
export const AssetTypeListResponse = Type.Object({ data: Type.Array(AssetType) });
