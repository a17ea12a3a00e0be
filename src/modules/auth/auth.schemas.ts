import { Type, type Static } from 'typebox';
import { Id, Nullable, Timestamp } from '../../platform/http/schemas.ts';

const Bool = Type.Union([Type.Boolean(), Type.Enum(['true', 'false'])], { description: 'true/false (form posts send text)' });

/** Fields of every POST under /api/auth (JSON or form-urlencoded). Which ones an action reads is stated per action. */
export const AuthActionBody = Type.Object(
  {
    csrfToken: Type.Optional(Type.String({ maxLength: 128, description: 'From GET /api/auth/csrf; required by every mutating action' })),
    callbackUrl: Type.Optional(Type.String({ maxLength: 2048, description: 'Where to go afterwards: a path or a URL of this service (anything else is ignored)' })),
    json: Type.Optional(Bool),
    redirect: Type.Optional(Bool),
    tenant: Type.Optional(Type.String({ maxLength: 63, description: 'Tenant slug: needed when an email exists in several tenants, and for identity-provider sign-in' })),
    username: Type.Optional(Type.String({ maxLength: 254, description: 'Username or email (credentials)' })),
    email: Type.Optional(Type.String({ maxLength: 254, description: 'Email (credentials)' })),
    password: Type.Optional(Type.String({ maxLength: 1024 })),
    totp: Type.Optional(Type.String({ maxLength: 64, description: 'Two-factor code, or a recovery code (credentials, when two-factor is on)' })),
    token: Type.Optional(Type.String({ maxLength: 64, description: 'Alias of totp' })),
  },
  { additionalProperties: false },
);
export type AuthActionBody = Static<typeof AuthActionBody>;

export const NoBody = Type.Object({}, { additionalProperties: false, description: 'No body' });
export const NoQuery = Type.Object({}, { additionalProperties: false });

export const NextAuthParams = Type.Object(
  {
    nextauth: Type.String({
      maxLength: 64,
      description: 'Action: csrf, providers, signin, signout, session, error, verify-request, webauthn-options (anything else is a 404)',
    }),
  },
  { additionalProperties: false },
);
export type NextAuthParams = Static<typeof NextAuthParams>;

export const ProviderParams = Type.Object(
  { provider: Type.String({ maxLength: 64, description: '`credentials` or a configured OpenID Connect provider id' }) },
  { additionalProperties: false },
);

export const AuthActionQuery = Type.Object(
  {
    callbackUrl: Type.Optional(Type.String({ maxLength: 2048 })),
    error: Type.Optional(Type.String({ maxLength: 64, description: 'An error code to explain (error and signin pages); unknown codes read as Default' })),
    code: Type.Optional(Type.String({ maxLength: 64 })),
    state: Type.Optional(Type.String({ maxLength: 256 })),
    error_description: Type.Optional(Type.String({ maxLength: 512 })),
  },
  { additionalProperties: false },
);
export type AuthActionQuery = Static<typeof AuthActionQuery>;

/** What identity providers append to the redirect URI (RFC 6749, RFC 9207 iss, OIDC session management, Google extras). */
export const CallbackQuery = Type.Object(
  {
    code: Type.Optional(Type.String({ maxLength: 4096 })),
    state: Type.Optional(Type.String({ maxLength: 256 })),
    iss: Type.Optional(Type.String({ maxLength: 2048 })),
    scope: Type.Optional(Type.String({ maxLength: 2048 })),
    session_state: Type.Optional(Type.String({ maxLength: 512 })),
    authuser: Type.Optional(Type.String({ maxLength: 16 })),
    hd: Type.Optional(Type.String({ maxLength: 255 })),
    prompt: Type.Optional(Type.String({ maxLength: 64 })),
    error: Type.Optional(Type.String({ maxLength: 128 })),
    error_description: Type.Optional(Type.String({ maxLength: 1024 })),
    error_uri: Type.Optional(Type.String({ maxLength: 2048 })),
  },
  { additionalProperties: false },
);
export type CallbackQuery = Static<typeof CallbackQuery>;

export const FlatError = Type.Object({ error: Type.String() }, { description: 'Key validation failure (the flat error form)' });

export const ValidateKeyResponse = Type.Object({
  isValid: Type.Literal(true),
  userId: Id,
  tenant: Type.String({ description: 'Tenant UUID' }),
});

export const ValidateTokenResponse = Type.Object({
  isValid: Type.Literal(true),
  userType: Type.Enum(['internal', 'client']),
  tenant: Type.String({ description: 'Tenant UUID' }),
});
export const InvalidToken = Type.Object({ isValid: Type.Literal(false) }, { description: 'No valid session token' });

export const SessionUser = Type.Object(
  {
    session_id: Id,
    login_method: Type.String({ description: '`credentials` or the identity provider id' }),
    user: Type.Object(
      {
        id: Id,
        email: Type.String(),
        name: Type.String(),
        username: Type.String(),
        image: Nullable(Type.String({ description: 'Avatar URL; null without an avatar' })),
        proToken: Type.Optional(Type.String({ description: 'Legacy token; never issued by this service' })),
        tenant: Id,
        tenantSlug: Type.String(),
        user_type: Type.Enum(['client', 'internal']),
        clientId: Type.Optional(Id),
        contactId: Type.Optional(Id),
        plan: Type.String(),
        addons: Type.Array(Type.String()),
        trial_end: Nullable(Timestamp),
        subscription_status: Type.Union([Type.Enum(['active', 'trialing', 'past_due', 'unpaid']), Type.Null()]),
        solo_pro_trial_end: Nullable(Timestamp),
        premium_trial_end: Nullable(Timestamp),
        premium_trial_confirmed: Type.Boolean(),
        premium_trial_effective_date: Nullable(Timestamp),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);
export type SessionUser = Static<typeof SessionUser>;

export const NoSession = Type.Object({}, { additionalProperties: false, description: 'No valid session cookie' });
export const SessionResponse = Type.Union([SessionUser, NoSession]);

export const CsrfResponse = Type.Object({ csrfToken: Type.String() }, { additionalProperties: false });

export const ProviderInfo = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    type: Type.Enum(['oauth', 'oidc', 'credentials', 'email', 'webauthn']),
    signinUrl: Type.String(),
    callbackUrl: Type.String(),
  },
  { additionalProperties: false },
);
export type ProviderInfo = Static<typeof ProviderInfo>;
export const ProvidersResponse = Type.Record(Type.String(), ProviderInfo, { description: 'Provider id → provider' });

const ErrorInfo = Type.Object({ code: Type.String(), message: Type.String() }, { additionalProperties: false });
export type ErrorInfo = Static<typeof ErrorInfo>;

export const PageResponse = Type.Object(
  {
    data: Type.Object(
      {
        page: Type.Enum(['signin', 'signout', 'error']),
        message: Type.String(),
        error: Nullable(ErrorInfo),
        providers: Type.Optional(Type.Array(ProviderInfo)),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false, description: 'The sign-in, sign-out and error pages as JSON (HTML when the client prefers text/html)' },
);
export type PageData = Static<typeof PageResponse>['data'];

export const UrlResponse = Type.Object({ url: Type.String({ description: 'Where the browser should go next' }) }, { additionalProperties: false });

export const GetActionResponse = Type.Union([CsrfResponse, PageResponse, ProvidersResponse]);
export const PostActionResponse = Type.Union([SessionUser, UrlResponse, NoSession]);
export const Redirect = { type: 'null', description: 'Redirect (Location header)' } as const;
