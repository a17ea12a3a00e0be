import { Type, type Static } from 'typebox';
import { Id, Nullable, Timestamp, listQuery, dataOf, listOf } from '../../platform/http/schemas.ts';

const Permission = Type.String({ pattern: '^[a-z_]+:[a-z_]+$', maxLength: 64, description: 'resource:action' });

export const RateLimit = Type.Object(
  {
    burst: Type.Integer({ minimum: 1, maximum: 1_000_000 }),
    per_minute: Type.Integer({ minimum: 1, maximum: 1_000_000 }),
  },
  { additionalProperties: false },
);

export const ApiKey = Type.Object({
  id: Id,
  api_key_id: Id,
  name: Type.String(),
  prefix: Type.String({ description: 'First 8 characters of the key, to recognise it' }),
  user_id: Id,
  scopes: Nullable(Type.Array(Type.String())),
  expires_at: Nullable(Timestamp),
  rate_limit: Nullable(RateLimit),
  last_used_at: Nullable(Timestamp),
  created_at: Timestamp,
});
export type ApiKey = Static<typeof ApiKey>;

export const CreatedApiKey = Type.Intersect([
  ApiKey,
  Type.Object({ api_key: Type.String({ description: 'The plaintext key. Shown only in this response.' }) }),
]);

export const CreateApiKeyBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100 }),
    user_id: Type.Optional(Id),
    expires_at: Type.Optional(Nullable(Timestamp)),
    scopes: Type.Optional(Nullable(Type.Array(Permission, { minItems: 1, maxItems: 200, uniqueItems: true }))),
    rate_limit: Type.Optional(Nullable(RateLimit)),
  },
  { additionalProperties: false },
);
export type CreateApiKeyBody = Static<typeof CreateApiKeyBody>;

export const ListApiKeysQuery = listQuery(['created_at'] as const, { user_id: Type.Optional(Id) });
export type ListApiKeysQuery = Static<typeof ListApiKeysQuery>;

export const ApiKeyResponse = dataOf(ApiKey);
export const CreatedApiKeyResponse = dataOf(CreatedApiKey);
export const ApiKeyListResponse = listOf(ApiKey);
