import { Type, type Static, type TSchema } from 'typebox';
import { DateOnly, Id, Nullable, Timestamp, dataOf, listOf, listQuery } from '../../platform/http/schemas.ts';
import type { AssetStatus } from '../../platform/db/schema.assets.ts';
import { SLUG_PATTERN, Slug } from './types/types.schemas.ts';

/**
 * A fixed set rather than free text, so lists, stats and bulk changes agree on what a status means:
 * in use (active), not in use but kept (inactive, in_stock), away for repair, and gone (retired, lost).
 */
export const ASSET_STATUSES: readonly AssetStatus[] = ['active', 'inactive', 'in_repair', 'in_stock', 'retired', 'lost'];
export const WARRANTY_STATUSES = ['none', 'active', 'expiring_soon', 'expired'] as const;
export type WarrantyStatus = (typeof WARRANTY_STATUSES)[number];

export const AssetStatusSchema = Type.Enum([...ASSET_STATUSES], { description: 'active | inactive | in_repair | in_stock | retired | lost' });
export const WarrantyStatusSchema = Type.Enum([...WARRANTY_STATUSES], {
  description: 'none (no warranty date), expired (before today), expiring_soon (today to 30 days ahead), active (later)',
});

export const Attributes = Type.Unsafe<Record<string, string | number | boolean | null>>({
  type: 'object',
  patternProperties: { [SLUG_PATTERN]: { type: ['string', 'number', 'boolean', 'null'], maxLength: 10_000 } },
  additionalProperties: false,
  maxProperties: 100,
  description: 'Values for the asset type\'s field schema; unknown keys and wrong types are a 400 naming the attribute; null clears a value',
});

export const Asset = Type.Object({
  asset_id: Id,
  client_id: Id,
  client_name: Type.String(),
  asset_type: Type.String(),
  asset_tag: Type.String(),
  name: Type.String(),
  status: AssetStatusSchema,
  serial_number: Nullable(Type.String()),
  location: Nullable(Type.String()),
  manufacturer: Nullable(Type.String()),
  model: Nullable(Type.String()),
  purchase_date: Nullable(DateOnly),
  warranty_end_date: Nullable(DateOnly),
  warranty_status: WarrantyStatusSchema,
  attributes: Type.Record(Type.String(), Type.Unknown()),
  notes_updated_at: Nullable(Timestamp),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type Asset = Static<typeof Asset>;

const writable = {
  client_id: Id,
  asset_type: Slug,
  asset_tag: Type.String({ minLength: 1, maxLength: 255, description: 'Assigned by the caller; unique per tenant regardless of case' }),
  name: Type.String({ minLength: 1, maxLength: 255 }),
  status: AssetStatusSchema,
  serial_number: Nullable(Type.String({ maxLength: 255 })),
  location: Nullable(Type.String({ maxLength: 255 })),
  manufacturer: Nullable(Type.String({ maxLength: 255 })),
  model: Nullable(Type.String({ maxLength: 255 })),
  purchase_date: Nullable(DateOnly),
  warranty_end_date: Nullable(DateOnly),
  attributes: Attributes,
};

const optional = <P extends Record<string, TSchema>>(props: P) =>
  Object.fromEntries(Object.entries(props).map(([k, v]) => [k, Type.Optional(v)])) as { [K in keyof P]: ReturnType<typeof Type.Optional<P[K]>> };

const { client_id, asset_type, asset_tag, name, status, ...rest } = writable;

export const CreateAssetBody = Type.Object({ client_id, asset_type, asset_tag, name, status, ...optional(rest) }, { additionalProperties: false });
export type CreateAssetBody = Static<typeof CreateAssetBody>;

export const UpdateAssetBody = Type.Object(optional(writable), {
  additionalProperties: false,
  minProperties: 1,
  description: 'Partial update; `attributes`, when sent, replaces the whole set and is validated against the (new) type',
});
export type UpdateAssetBody = Static<typeof UpdateAssetBody>;

export const ASSET_SORT_FIELDS = ['name', 'asset_tag', 'status', 'asset_type', 'client_name', 'warranty_end_date', 'purchase_date', 'created_at', 'updated_at'] as const;
export type AssetSortField = (typeof ASSET_SORT_FIELDS)[number];

/** The filters shared by list, export and stats. */
export const assetFilters = {
  client_id: Type.Optional(Id),
  asset_type: Type.Optional(Slug),
  status: Type.Optional(AssetStatusSchema),
  warranty_status: Type.Optional(WarrantyStatusSchema),
  search: Type.Optional(Type.String({ maxLength: 200, description: 'Case-insensitive substring of name, tag, serial number, location or client name; blank means no search' })),
};

export const ListAssetsQuery = listQuery(ASSET_SORT_FIELDS, assetFilters);
export type ListAssetsQuery = Static<typeof ListAssetsQuery>;

export const NoQuery = Type.Object({}, { additionalProperties: false });
export const AssetResponse = dataOf(Asset);
export const AssetListResponse = listOf(Asset);
