import { Type, type Static } from 'typebox';
import { Id } from '../../../platform/http/schemas.ts';
import { Asset, AssetStatusSchema, UpdateAssetBody } from '../assets.schemas.ts';

export const BULK_MAX = 100;

export const BulkStatusBody = Type.Object(
  {
    asset_ids: Type.Array(Id, { minItems: 1, maxItems: BULK_MAX, uniqueItems: true }),
    status: AssetStatusSchema,
  },
  { additionalProperties: false, description: `1–${BULK_MAX} distinct ids; all or nothing` },
);
export type BulkStatusBody = Static<typeof BulkStatusBody>;

export const BulkUpdateBody = Type.Object(
  {
    assets: Type.Array(Type.Object({ asset_id: Id, data: UpdateAssetBody }, { additionalProperties: false }), { minItems: 1, maxItems: BULK_MAX }),
  },
  { additionalProperties: false, description: `1–${BULK_MAX} updates, each asset once; all or nothing (an error names the entry, e.g. body.assets[2].data.name)` },
);
export type BulkUpdateBody = Static<typeof BulkUpdateBody>;

export const BulkResponse = Type.Object({
  data: Type.Array(Asset, { description: 'The assets after the change, in request order' }),
  meta: Type.Object({ updated: Type.Integer({ description: 'How many assets actually changed' }) }),
});
