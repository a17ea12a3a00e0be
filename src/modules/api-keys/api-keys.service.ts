import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../../platform/db/schema.ts';
import { withTransaction } from '../../platform/db/executor.ts';
import { generateApiKey } from '../../platform/auth/api-key-secret.ts';
import { can, requirePermission, type Actor } from '../../platform/auth/context.ts';
import { notifyAuthChange, type KeyCache } from '../../platform/auth/key-cache.ts';
import { isPermission } from '../../platform/auth/permissions.ts';
import { AppError, notFound, validation } from '../../platform/http/errors.ts';
import { listPage } from '../../platform/http/list.ts';
import { assertIfMatch } from '../../platform/http/etag.ts';
import { newId } from '../../platform/ids.ts';
import { findUserById, recordActivity } from '../users/index.ts';
import { activeApiKeyList, findActiveApiKey, insertApiKey, revokeApiKey } from './api-keys.repo.ts';
import { toApiKey } from './api-keys.mapper.ts';
import type { CreateApiKeyBody, ListApiKeysQuery } from './api-keys.schemas.ts';

export interface IssueKeyInput {
  name: string;
  scopes?: string[] | null;
  expires_at?: string | Date | null;
  rate_limit?: { burst: number; per_minute: number } | null;
}

/** Mints a key for a user inside the caller's transaction; the plaintext exists only in the result. */
export async function issueApiKey(trx: Transaction<DB>, tenant: string, userId: string, input: IssueKeyInput) {
  const secret = generateApiKey();
  const row = await insertApiKey(trx, tenant, {
    api_key_id: newId(),
    user_id: userId,
    name: input.name,
    key_hash: secret.hash,
    prefix: secret.prefix,
    scopes: input.scopes ?? null,
    expires_at: input.expires_at ? new Date(input.expires_at) : null,
    rate_limit_burst: input.rate_limit?.burst ?? null,
    rate_limit_per_minute: input.rate_limit?.per_minute ?? null,
  });
  return { ...toApiKey(row), api_key: secret.plaintext };
}

export function createApiKeysService(deps: { db: Kysely<DB>; keyCache: KeyCache }) {
  const { db, keyCache } = deps;

  const assertCanActFor = (actor: Actor, userId: string) => {
    if (userId !== actor.userId) requirePermission(actor, 'api_key:manage');
  };

  return {
    async create(actor: Actor, body: CreateApiKeyBody) {
      const userId = body.user_id ?? actor.userId;
      assertCanActFor(actor, userId);
      if (body.rate_limit) requirePermission(actor, 'api_key:manage');
      const unknown = (body.scopes ?? []).filter((s) => !isPermission(s));
      if (unknown.length > 0) throw validation('body.scopes', `unknown permission(s): ${unknown.join(', ')}`);
      // A narrowed key may mint keys only as narrow as itself.
      if (actor.scopes && (!body.scopes || body.scopes.some((s) => !actor.scopes!.includes(s)))) {
        throw new AppError('FORBIDDEN', 'A scoped key can only create keys whose scopes are a subset of its own', {
          required: (body.scopes ?? ['(unscoped)']).filter((s) => !actor.scopes!.includes(s)),
        });
      }
      if (body.expires_at && new Date(body.expires_at).getTime() <= Date.now()) {
        throw validation('body.expires_at', 'must be in the future');
      }
      return withTransaction(db, async (trx) => {
        const user = await findUserById(trx, actor.tenant, userId);
        if (!user) throw notFound('User', userId);
        if (user.is_inactive) throw new AppError('UNPROCESSABLE', `User '${userId}' is inactive`);
        const key = await issueApiKey(trx, actor.tenant, userId, body);
        await recordActivity(trx, { tenant: actor.tenant, user_id: userId, actor_user_id: actor.userId, activity_type: 'api_key_created', details: { api_key_id: key.id, name: key.name } });
        return key;
      });
    },

    async list(actor: Actor, query: ListApiKeysQuery) {
      const manage = can(actor, 'api_key:manage');
      if (query.user_id) assertCanActFor(actor, query.user_id);
      return listPage(query, activeApiKeyList(db, actor.tenant, query.user_id ?? (manage ? undefined : actor.userId)), (rows) => rows.map(toApiKey));
    },

    async get(actor: Actor, id: string) {
      const row = await findActiveApiKey(db, actor.tenant, id);
      if (!row || (row.user_id !== actor.userId && !can(actor, 'api_key:manage'))) throw notFound('API key', id);
      return toApiKey(row);
    },

    async revoke(actor: Actor, id: string, ifMatch?: string): Promise<void> {
      await withTransaction(db, async (trx) => {
        const row = await findActiveApiKey(trx, actor.tenant, id);
        if (!row || (row.user_id !== actor.userId && !can(actor, 'api_key:manage'))) throw notFound('API key', id);
        assertIfMatch(ifMatch, toApiKey(row));
        await revokeApiKey(trx, actor.tenant, id);
        await recordActivity(trx, { tenant: actor.tenant, user_id: row.user_id, actor_user_id: actor.userId, activity_type: 'api_key_revoked', details: { api_key_id: id, name: row.name } });
        await notifyAuthChange(trx, actor.tenant);
      });
      keyCache.invalidateTenant(actor.tenant);
    },
  };
}

export type ApiKeysService = ReturnType<typeof createApiKeysService>;
