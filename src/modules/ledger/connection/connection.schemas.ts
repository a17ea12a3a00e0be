import { Type, type Static } from 'typebox';
import { dataOf, Id, Nullable, Timestamp } from '../../../platform/http/schemas.ts';

export const ConnectionView = Type.Object({
  connection_id: Id,
  provider: Type.String({ description: 'quickbooks_online' }),
  realm_id: Type.String({ description: 'The QuickBooks company id' }),
  display_name: Nullable(Type.String()),
  country: Nullable(Type.String()),
  currency_code: Nullable(Type.String({ description: "The company's home currency" })),
  status: Type.Enum(['active', 'expired', 'error', 'disconnected'], { description: 'expired: the ledger refused the refresh token (connect again); error: the last call failed' }),
  is_default: Type.Boolean({ description: 'The company a request acts on when it names no realm_id' }),
  access_token_expires_at: Nullable(Timestamp),
  refresh_token_expires_at: Nullable(Timestamp),
  last_validated_at: Nullable(Timestamp),
  last_refreshed_at: Nullable(Timestamp),
  last_error: Nullable(Type.String()),
  connected_at: Timestamp,
});
export type ConnectionView = Static<typeof ConnectionView>;

export const ConnectionStatus = Type.Object({
  connected: Type.Boolean({ description: 'At least one company is connected with working tokens' }),
  provider: Type.String(),
  default_realm_id: Nullable(Type.String()),
  connections: Type.Array(ConnectionView),
});
export type ConnectionStatus = Static<typeof ConnectionStatus>;

export const InitiateBody = Type.Object(
  {
    redirect_uri: Type.Optional(Type.String({ minLength: 1, maxLength: 2000, description: 'Where the ledger sends the browser back (registered with the app); default: this server’s GET …/oauth/callback' })),
  },
  { additionalProperties: false },
);
export type InitiateBody = Static<typeof InitiateBody>;

export const InitiateResponse = dataOf(Type.Object({
  authorization_url: Type.String({ description: 'Open it in a browser (popup) to let the user pick and authorize a company' }),
  state: Type.String({ description: 'Signed base64url JSON (tenant, providerId, redirectUri, timestamp, nonce) and its MAC; single use, valid 10 minutes' }),
  redirect_uri: Type.String(),
  expires_at: Timestamp,
}));

const callbackFields = {
  code: Type.Optional(Type.String({ minLength: 1, maxLength: 2000, description: 'The authorization code (required unless error)' })),
  state: Type.String({ minLength: 1, maxLength: 4096 }),
  realmId: Type.Optional(Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$', description: 'The company the user picked (required unless error)' })),
  error: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  error_description: Type.Optional(Type.String({ maxLength: 2000 })),
};
export const CallbackBody = Type.Object(callbackFields, { additionalProperties: false });
export type CallbackBody = Static<typeof CallbackBody>;
/** The browser redirect's query: the same fields, all optional so that every outcome is answered with the popup page. */
export const CallbackQuery = Type.Object(
  {
    code: Type.Optional(callbackFields.code),
    state: Type.Optional(callbackFields.state),
    realmId: Type.Optional(callbackFields.realmId),
    error: callbackFields.error,
    error_description: callbackFields.error_description,
  },
  { additionalProperties: false },
);

export const CallbackResponse = dataOf(Type.Object({ ...ConnectionStatus.properties, realm_id: Type.String({ description: 'The company just connected' }) }));
export const StatusResponse = dataOf(ConnectionStatus);
export const ConnectionResponse = dataOf(ConnectionView);

export const TestBody = Type.Object(
  {
    test_type: Type.Optional(Type.Enum(['clientInfo', 'items', 'customers', 'full'], { default: 'clientInfo', description: 'clientInfo reads the company; items and customers also count those; full does all' })),
    force_refresh: Type.Optional(Type.Boolean({ default: false, description: 'Refresh the tokens first' })),
  },
  { additionalProperties: false },
);
export type TestBody = Static<typeof TestBody>;
export const TestResponse = dataOf(Type.Object({
  success: Type.Boolean(),
  message: Type.String(),
  response_time_ms: Type.Integer(),
  details: Type.Object({}, { additionalProperties: true }),
}));

export const DisconnectResponse = dataOf(Type.Object({
  realm_id: Type.String(),
  disconnected: Type.Boolean(),
  revoked: Type.Boolean({ description: 'false when the ledger could not be reached to revoke: the tokens are deleted here and expire there' }),
  revoke_error: Nullable(Type.String()),
}));
