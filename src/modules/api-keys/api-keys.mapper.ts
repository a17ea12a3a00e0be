import type { ApiKeyRow } from './api-keys.repo.ts';
import type { ApiKey } from './api-keys.schemas.ts';

export function toApiKey(row: ApiKeyRow): ApiKey {
  return {
    id: row.api_key_id,
    api_key_id: row.api_key_id,
    name: row.name,
    prefix: row.prefix,
    user_id: row.user_id,
    scopes: row.scopes && row.scopes.length > 0 ? row.scopes : null,
    expires_at: row.expires_at?.toISOString() ?? null,
    rate_limit:
      row.rate_limit_burst && row.rate_limit_per_minute
        ? { burst: row.rate_limit_burst, per_minute: row.rate_limit_per_minute }
        : null,
    last_used_at: row.last_used_at?.toISOString() ?? null,
    created_at: row.created_at.toISOString(),
  };
}
