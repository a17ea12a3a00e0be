import { iso } from '../../../platform/time.ts';
import type { IntegrationRow } from './integrations.repo.ts';
import type { Integration } from './integrations.schemas.ts';

export function toIntegration(row: IntegrationRow): Integration {
  return {
    integration_id: row.integration_id,
    provider: row.provider,
    name: row.name,
    base_url: row.base_url,
    is_active: row.is_active,
    has_credentials: row.credentials_enc !== '',
    api_key_last4: row.api_key_last4,
    linked_asset_count: row.linked_asset_count,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}
