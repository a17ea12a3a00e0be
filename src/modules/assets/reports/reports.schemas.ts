import { Type, type Static } from 'typebox';
import { DateOnly, Id, Nullable, Timestamp, dataOf } from '../../../platform/http/schemas.ts';
import { ASSET_SORT_FIELDS, ASSET_STATUSES, Asset, AssetStatusSchema, WARRANTY_STATUSES, WarrantyStatusSchema, assetFilters } from '../assets.schemas.ts';
import { Slug } from '../types/types.schemas.ts';

export const HEALTH_STATUSES = ['healthy', 'warning', 'critical', 'unknown'] as const;

export const AssetSummary = Type.Object({
  asset_id: Id,
  health_status: Type.Enum([...HEALTH_STATUSES]),
  health_reasons: Type.Array(Type.String(), { description: 'Why the health is what it is' }),
  agent_status: Nullable(Type.Enum(['online', 'offline', 'overdue', 'unknown'], { description: 'From the RMM link; null when the asset has none' })),
  open_tickets_count: Type.Integer({ description: 'Linked tickets whose status is not closed' }),
  warranty_end_date: Nullable(DateOnly),
  warranty_status: WarrantyStatusSchema,
  warranty_days_remaining: Nullable(Type.Integer({ description: 'Negative once expired; null without a warranty' })),
  overdue_maintenance_count: Type.Integer({ description: 'Active schedules whose next_due is before today' }),
  next_maintenance_due: Nullable(DateOnly),
  last_maintenance_at: Nullable(Timestamp),
});
export type AssetSummary = Static<typeof AssetSummary>;

export const ExportQuery = Type.Object(
  {
    format: Type.Optional(Type.Enum(['csv', 'json'], { default: 'csv' })),
    sort: Type.Optional(Type.Enum([...ASSET_SORT_FIELDS])),
    order: Type.Optional(Type.Enum(['asc', 'desc'])),
    updated_since: Type.Optional(Timestamp),
    ...assetFilters,
  },
  { additionalProperties: false },
);
export type ExportQuery = Static<typeof ExportQuery>;

export const SearchAssetsQuery = Type.Object(
  {
    query: Type.String({ minLength: 1, maxLength: 200, description: 'Matched case-insensitively against name, tag, serial number, location and client name' }),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 25 })),
    client_id: Type.Optional(Id),
    asset_type: Type.Optional(Slug),
    status: Type.Optional(AssetStatusSchema),
  },
  { additionalProperties: false },
);
export type SearchAssetsQuery = Static<typeof SearchAssetsQuery>;

export const StatsQuery = Type.Object({ updated_since: Type.Optional(Timestamp), ...assetFilters }, { additionalProperties: false });
export type StatsQuery = Static<typeof StatsQuery>;

const counts = (keys: readonly string[]) => Type.Object(Object.fromEntries(keys.map((k) => [k, Type.Integer({ minimum: 0 })])));

export const AssetStats = Type.Object({
  total_assets: Type.Integer(),
  assets_by_status: counts(ASSET_STATUSES),
  assets_by_type: Type.Record(Type.String(), Type.Integer(), { description: 'Type slug → count (types without assets omitted)' }),
  assets_by_warranty_status: counts(WARRANTY_STATUSES),
  assets_by_client: Type.Array(Type.Object({ client_id: Id, client_name: Type.String(), count: Type.Integer() }), { description: 'Most assets first; at most 100 clients' }),
  clients_truncated: Type.Boolean({ description: 'More than 100 clients have matching assets' }),
  maintenance_overdue_assets: Type.Integer({ description: 'Assets with at least one overdue active schedule' }),
  warranty_expiring_soon_days: Type.Integer({ description: 'The window behind expiring_soon' }),
});
export type AssetStats = Static<typeof AssetStats>;

export const AssetSummaryResponse = dataOf(AssetSummary);
export const AssetStatsResponse = dataOf(AssetStats);
export const AssetSearchResponse = Type.Object({ data: Type.Array(Asset, { description: 'Best matches first: exact tag, then tag or name prefix, then the rest by name' }) });
