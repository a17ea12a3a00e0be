import type { Executor } from '../../platform/db/executor.ts';
import type { ApiKeysTable } from '../../platform/db/schema.ts';
import type { Selectable } from 'kysely';

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

export async function listActiveApiKeys(
  db: Executor,
  tenant: string,
  filter: { userId?: string; createdSince?: Date; order: 'asc' | 'desc'; limit: number; offset: number },
): Promise<{ rows: ApiKeyRow[]; total: number }> {
  let q = db.selectFrom('api_keys').where('tenant', '=', tenant).where('revoked_at', 'is', null);
  if (filter.userId) q = q.where('user_id', '=', filter.userId);
  if (filter.createdSince) q = q.where('created_at', '>=', filter.createdSince);
  const [rows, count] = await Promise.all([
    q.selectAll().orderBy('created_at', filter.order).orderBy('api_key_id', filter.order).limit(filter.limit).offset(filter.offset).execute(),
    q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.n) };
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
