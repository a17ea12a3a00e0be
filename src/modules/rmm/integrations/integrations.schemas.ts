import { Type, type Static } from 'typebox';
import { Id, Nullable, Timestamp, dataOf, listOf, listQuery } from '../../../platform/http/schemas.ts';
import { PROVIDER_NAMES } from '../providers/registry.ts';

export const NoQuery = Type.Object({}, { additionalProperties: false });

export const IntegrationParams = Type.Object({ integrationId: Id }, { additionalProperties: false });

const Provider = Type.Enum([...PROVIDER_NAMES], { description: 'The RMM product: tactical_rmm (Tactical RMM REST API)' });
const IntegrationName = Type.String({ minLength: 1, maxLength: 255, description: 'Trimmed; unique per tenant (case-insensitive)' });
const BaseUrl = Type.String({
  minLength: 8,
  maxLength: 2048,
  description: "The RMM's API root, e.g. https://api.rmm.example.com (http or https, no credentials, query or fragment). Checked against the outbound address policy when saved.",
});
const ApiKey = Type.String({ minLength: 8, maxLength: 500, description: 'Write-only: stored encrypted, never returned (responses show api_key_last4)' });

export const Integration = Type.Object({
  integration_id: Id,
  provider: Type.String(),
  name: Type.String(),
  base_url: Type.String(),
  is_active: Type.Boolean(),
  has_credentials: Type.Boolean(),
  api_key_last4: Type.String({ description: 'The last four characters of the stored API key' }),
  linked_asset_count: Type.Integer(),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type Integration = Static<typeof Integration>;

export const CreateIntegrationBody = Type.Object(
  { provider: Provider, name: IntegrationName, base_url: BaseUrl, api_key: ApiKey, is_active: Type.Optional(Type.Boolean()) },
  { additionalProperties: false },
);
export type CreateIntegrationBody = Static<typeof CreateIntegrationBody>;

export const UpdateIntegrationBody = Type.Object(
  {
    name: Type.Optional(IntegrationName),
    base_url: Type.Optional(BaseUrl),
    api_key: Type.Optional(ApiKey),
    is_active: Type.Optional(Type.Boolean({ description: 'false: no device calls and no commands through this integration' })),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateIntegrationBody = Static<typeof UpdateIntegrationBody>;

export const ListIntegrationsQuery = listQuery(['name', 'created_at', 'updated_at'] as const, {
  provider: Type.Optional(Provider),
  is_active: Type.Optional(Type.Boolean()),
});
export type ListIntegrationsQuery = Static<typeof ListIntegrationsQuery>;

export const TestOutcome = Type.Object({
  ok: Type.Boolean(),
  latency_ms: Type.Integer(),
  device_count: Nullable(Type.Integer({ description: 'Devices the key can see, when ok' })),
  reason: Nullable(Type.String({ description: 'When not ok: auth_failed | not_found | rejected | unavailable | timeout | unreachable | invalid_response | unsafe_target' })),
  message: Nullable(Type.String()),
  upstream_status: Nullable(Type.Integer()),
});
export type TestOutcome = Static<typeof TestOutcome>;

export const Device = Type.Object({
  device_id: Type.String(),
  hostname: Type.String(),
  description: Nullable(Type.String()),
  status: Type.String({ description: 'online | offline | overdue | unknown' }),
  platform: Nullable(Type.String()),
  last_seen: Nullable(Timestamp),
  client_name: Nullable(Type.String()),
  site_name: Nullable(Type.String()),
  linked_asset_id: Nullable(Id),
});

export const ListDevicesQuery = Type.Object(
  {
    page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000, default: 1 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 25 })),
    search: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Case-insensitive match on hostname, client or site name' })),
    status: Type.Optional(Type.Enum(['online', 'offline', 'overdue', 'unknown'])),
    linked: Type.Optional(Type.Boolean({ description: 'true: only devices linked to an asset; false: only unlinked ones' })),
  },
  { additionalProperties: false },
);
export type ListDevicesQuery = Static<typeof ListDevicesQuery>;

export const IntegrationResponse = dataOf(Integration);
export const IntegrationListResponse = listOf(Integration);
export const TestOutcomeResponse = dataOf(TestOutcome);
export const DeviceListResponse = listOf(Device);
