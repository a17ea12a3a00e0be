import { Migrator } from 'kysely';
import { describe, expect, it } from 'vitest';
import { openPglite } from '../../../platform/db/database.ts';
import { migrations } from '../../../platform/db/migrations/index.ts';
import { BUILTIN_SERVICE_TYPES } from '../../../platform/db/builtin-service-types.ts';
import { newId } from '../../../platform/ids.ts';

describe('migration 0015', () => {
  it('gives existing tenants the built-in service types and turns product:* grants and key scopes into service:*', async () => {
    const database = await openPglite({});
    try {
      const { db } = database;
      const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
      expect((await migrator.migrateTo('2026_11_24_0014_jobs')).error).toBeUndefined();
      const tenant = newId();
      const role = newId();
      const user = newId();
      const key = newId();
      await db.insertInto('tenants').values({ tenant_id: tenant, slug: 'before-billing', name: 'Before billing' }).execute();
      await db.insertInto('roles').values({ tenant, role_id: role, role_name: 'Finance', description: null, is_builtin: true, is_client_portal: false }).execute();
      await db.insertInto('role_permissions').values(['product:read', 'product:update', 'client:read'].map((permission) => ({ tenant, role_id: role, permission }))).execute();
      await db.insertInto('users').values({ tenant, user_id: user, username: 'f@x.example', email: 'f@x.example', user_type: 'internal' }).execute();
      await db.insertInto('api_keys').values({ tenant, api_key_id: key, user_id: user, name: 'k', key_hash: 'h', prefix: 'p', scopes: ['product:read', 'ticket:read'] }).execute();
      expect((await migrator.migrateTo('2026_11_24_0015_billing')).error).toBeUndefined();
      const types = await db.selectFrom('service_types').select(['name', 'is_builtin']).where('tenant', '=', tenant).orderBy('name').execute();
      expect(types.map((x) => x.name)).toEqual(BUILTIN_SERVICE_TYPES.map((b) => b.name).sort());
      expect(types.every((x) => x.is_builtin)).toBe(true);
      const perms = await db.selectFrom('role_permissions').select('permission').where('role_id', '=', role).orderBy('permission').execute();
      expect(perms.map((p) => p.permission)).toEqual(['client:read', 'service:read', 'service:update']);
      const scopes = await db.selectFrom('api_keys').select('scopes').where('api_key_id', '=', key).executeTakeFirstOrThrow();
      expect(scopes.scopes).toEqual(['service:read', 'ticket:read']);
    } finally {
      await database.close();
    }
  }, 120_000);
});
