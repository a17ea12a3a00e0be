import { Migrator } from 'kysely';
import { describe, expect, it } from 'vitest';
import { openPglite } from '../../../platform/db/database.ts';
import { migrations } from '../../../platform/db/migrations/index.ts';
import { BUILTIN_KB_TEMPLATES } from '../../../platform/db/builtin-kb-templates.ts';
import { newId } from '../../../platform/ids.ts';

describe('migration 0016', () => {
  it('gives existing tenants the built-in templates and turns kb_article:* grants and key scopes into kb:*', async () => {
    const database = await openPglite({});
    try {
      const { db } = database;
      const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
      expect((await migrator.migrateTo('2026_11_24_0015_billing')).error).toBeUndefined();
      const [tenant, role, user, key] = [newId(), newId(), newId(), newId()];
      await db.insertInto('tenants').values({ tenant_id: tenant, slug: 'before-kb', name: 'Before kb' }).execute();
      await db.insertInto('roles').values({ tenant, role_id: role, role_name: 'Technician', description: null, is_builtin: true, is_client_portal: false }).execute();
      await db.insertInto('role_permissions').values(['kb_article:read', 'kb_article:create', 'ticket:read'].map((permission) => ({ tenant, role_id: role, permission }))).execute();
      await db.insertInto('users').values({ tenant, user_id: user, username: 't@x.example', email: 't@x.example', user_type: 'internal' }).execute();
      await db.insertInto('api_keys').values({ tenant, api_key_id: key, user_id: user, name: 'k', key_hash: 'h', prefix: 'p', scopes: ['kb_article:read', 'ticket:read'] }).execute();
      expect((await migrator.migrateTo('2026_11_24_0016_kb')).error).toBeUndefined();
      const templates = await db.selectFrom('kb_templates').select(['name', 'is_builtin']).where('tenant', '=', tenant).orderBy('name').execute();
      expect(templates.map((x) => x.name)).toEqual(BUILTIN_KB_TEMPLATES.map((b) => b.name).sort());
      expect(templates.every((x) => x.is_builtin)).toBe(true);
      const perms = await db.selectFrom('role_permissions').select('permission').where('role_id', '=', role).orderBy('permission').execute();
      expect(perms.map((p) => p.permission)).toEqual(['kb:create', 'kb:read', 'ticket:read']);
      const scopes = await db.selectFrom('api_keys').select('scopes').where('api_key_id', '=', key).executeTakeFirstOrThrow();
      expect(scopes.scopes).toEqual(['kb:read', 'ticket:read']);
    } finally {
      await database.close();
    }
  }, 120_000);
});
