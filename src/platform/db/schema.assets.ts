/** Kysely table types of migration 0009_assets; kept apart from schema.ts so each area edits only its own file. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface AssetTables {}
