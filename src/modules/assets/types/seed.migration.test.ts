import { Migrator } from 'kysely';
import { describe, expect, it } from 'vitest';
import { openPglite } from '../../../platform/db/database.ts';
import { migrations } from '../../../platform/db/migrations/index.ts';
import { BUILTIN_ASSET_TYPES } from '../../../platform/db/builtin-asset-types.ts';
import { newId } from '../../../platform/ids.ts';

describe('migration 0009', () => {
  it('gives tenants that existed before it the built-in asset types', async () => {
    const database = await openPglite({});
    try {
      const { db } = database;
      const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
      expect((await migrator.migrateTo('2026_11_21_0008_search')).error).toBeUndefined();
      const tenant = newId();
      await db.insertInto('tenants').values({ tenant_id: tenant, slug: 'before-assets', name: 'Before assets' }).execute();
      expect((await migrator.migrateTo('2026_11_21_0009_assets')).error).toBeUndefined();
      const types = await db.selectFrom('asset_types').select(['slug', 'is_builtin', 'field_schema']).where('tenant', '=', tenant).orderBy('slug').execute();
      expect(types.map((x) => x.slug)).toEqual(BUILTIN_ASSET_TYPES.map((b) => b.slug).sort());
      expect(types.every((x) => x.is_builtin)).toBe(true);
      expect(types.find((x) => x.slug === 'printer')!.field_schema).toEqual(BUILTIN_ASSET_TYPES.find((b) => b.slug === 'printer')!.field_schema);
    } finally {
      await database.close();
    }
  }, 120_000);
});
