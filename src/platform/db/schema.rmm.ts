/** Kysely table types of migration 0010_asset_rmm; kept apart from schema.ts so each area edits only its own file. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface AssetRmmTables {}
