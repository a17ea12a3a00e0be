import type { Executor } from '../../platform/db/executor.ts';
import type { ApiKeysTable } from '../../platform/db/schema.ts';
import type { Selectable } from 'kysely';
import { defineList } from '../../platform/http/list.ts';

export type ApiKeyRow = Selectable<ApiKeysTable>;

export interface NewApiKey {
  api_key_id: string;
  user_id: string;
  name: string;
  key_hash: string;
  prefix: string;
  scopes: string[] | null;
  expires_at: Date | null;
  rate_limit_burst: number | null;
  rate_limit_per_minute: number | null;
}

export async function insertApiKey(db: Executor, tenant: string, key: NewApiKey): Promise<ApiKeyRow> {
  return db.insertInto('api_keys').values({ tenant, ...key }).returningAll().executeTakeFirstOrThrow();
}

export async function findActiveApiKey(db: Executor, tenant: string, apiKeyId: string): Promise<ApiKeyRow | undefined> {
  return db
    .selectFrom('api_keys')
    .selectAll()
    .where('tenant', '=', tenant)
    .where('api_key_id', '=', apiKeyId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
}

/** Active keys, newest first by default; `updated_since` means created since (keys never change). */
export function activeApiKeyList(db: Executor, tenant: string, userId?: string) {
  let q = db.selectFrom('api_keys').where('tenant', '=', tenant).where('revoked_at', 'is', null);
  if (userId) q = q.where('user_id', '=', userId);
  return defineList({
    from: q,
    page: q.selectAll(),
    sorts: { created_at: ['created_at'] },
    defaultSort: 'created_at',
    defaultOrder: 'desc',
    tieBreaker: 'api_key_id',
    updatedAt: 'created_at',
  });
}

export async function revokeApiKey(db: Executor, tenant: string, apiKeyId: string): Promise<boolean> {
  const res = await db
    .updateTable('api_keys')
    .set({ revoked_at: new Date() })
    .where('tenant', '=', tenant)
    .where('api_key_id', '=', apiKeyId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}
