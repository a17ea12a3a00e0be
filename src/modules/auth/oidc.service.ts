import * as client from 'openid-client';
import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { DB } from '../../platform/db/schema.ts';
import type { OidcProviderConfig } from '../../config.ts';
import { withTransaction } from '../../platform/db/executor.ts';
import type { SecretBox } from '../../platform/crypto/secret-box.ts';
import { AppError, validation } from '../../platform/http/errors.ts';
import { recordActivity, recordLoginSuccess } from '../users/index.ts';
import type { RequestMeta } from './credentials.service.ts';
import { findUserByTenantEmail, insertAuthFlow, purgeExpiredAuthFlows, takeAuthFlow } from './oidc.repo.ts';
import { safeCallbackUrl } from './redirects.ts';
import type { IssuedSession, Sessions } from './sessions.service.ts';

/** How long a started identity-provider sign-in may take. */
export const FLOW_TTL_MS = 10 * 60 * 1000;
const SCOPE = 'openid email profile';

export type OidcErrorCode = 'OAuthSignin' | 'OAuthCallback' | 'AccessDenied';

/** A failed callback: the code shown to the user, the status for JSON clients, and a log-only reason. */
export class OidcFailure extends Error {
  constructor(readonly code: OidcErrorCode, readonly status: 400 | 403 | 502, readonly reason: string) {
    super(reason);
  }
}

const isVerified = (v: unknown) => v === true || v === 'true';

/**
 * OpenID Connect sign-in (authorization code flow with PKCE S256, state and nonce). A flow is stored in
 * auth_flows and bound to the browser by a cookie holding its state; the callback consumes it once,
 * exchanges the code, and signs in the active user of the chosen tenant whose email the provider has
 * verified. Nobody is provisioned here: the account must exist.
 */
export function createOidc(deps: {
  db: Kysely<DB>;
  secretBox: SecretBox;
  sessions: Sessions;
  providers: readonly OidcProviderConfig[];
  publicUrl: string;
}) {
  const { db, secretBox, sessions, publicUrl } = deps;
  const byId = new Map(deps.providers.map((p) => [p.id, p]));
  const discovered = new Map<string, Promise<client.Configuration>>();
  const redirectUri = (p: OidcProviderConfig) => `${publicUrl}/api/auth/callback/${p.id}`;

  /** Discovery once per provider and process; a failure is not cached, so the next sign-in retries. */
  function configOf(p: OidcProviderConfig): Promise<client.Configuration> {
    let pending = discovered.get(p.id);
    if (!pending) {
      const insecure = new URL(p.issuer).protocol === 'http:'; // loopback only (config.ts enforces it)
      pending = client.discovery(
        new URL(p.issuer),
        p.clientId,
        p.clientSecret,
        p.clientSecret ? client.ClientSecretBasic(p.clientSecret) : client.None(),
        { timeout: 10, ...(insecure ? { execute: [client.allowInsecureRequests] } : {}) },
      );
      pending.catch(() => discovered.delete(p.id));
      discovered.set(p.id, pending);
    }
    return pending;
  }

  async function reachable(p: OidcProviderConfig, log: FastifyBaseLogger): Promise<client.Configuration> {
    try {
      return await configOf(p);
    } catch (err) {
      log.warn({ err, provider: p.id }, 'OpenID Connect discovery failed');
      throw new AppError('UPSTREAM_ERROR', `The identity provider '${p.name}' could not be reached; try again later`);
    }
  }

  async function exchange(
    p: OidcProviderConfig,
    config: client.Configuration,
    rawQuery: string,
    flow: { state: string; nonce: string; code_verifier: string },
    log: FastifyBaseLogger,
  ) {
    try {
      const tokens = await client.authorizationCodeGrant(config, new URL(`${redirectUri(p)}?${rawQuery}`), {
        pkceCodeVerifier: secretBox.decrypt(flow.code_verifier),
        expectedState: flow.state,
        expectedNonce: flow.nonce,
        idTokenExpected: true,
      });
      const claims = tokens.claims()!;
      let email = typeof claims.email === 'string' ? claims.email : undefined;
      let verified = isVerified(claims.email_verified);
      if (email === undefined) {
        // Some providers put profile claims only in the UserInfo response.
        const info = await client.fetchUserInfo(config, tokens.access_token, claims.sub);
        email = typeof info.email === 'string' ? info.email : undefined;
        verified = isVerified(info.email_verified);
      }
      return { email, verified, subject: claims.sub };
    } catch (err) {
      const rejected = err instanceof client.ClientError || err instanceof client.AuthorizationResponseError || err instanceof client.ResponseBodyError;
      log.warn({ err, provider: p.id }, 'OpenID Connect code exchange failed');
      throw new OidcFailure('OAuthCallback', rejected ? 400 : 502, rejected ? 'the provider’s response was rejected' : 'the provider could not be reached');
    }
  }

  return {
    provider: (id: string): OidcProviderConfig | undefined => byId.get(id),
    providers: (): readonly OidcProviderConfig[] => deps.providers,

    /** Starts a sign-in: stores the flow and returns the provider's authorization URL and the state for the browser cookie. */
    async start(p: OidcProviderConfig, input: { tenantSlug?: string; callbackUrl?: string }, log: FastifyBaseLogger): Promise<{ url: string; state: string }> {
      if (!input.tenantSlug) throw validation('body.tenant', 'is required: the slug of the tenant to sign in to');
      const config = await reachable(p, log);
      const state = client.randomState();
      const nonce = client.randomNonce();
      const verifier = client.randomPKCECodeVerifier();
      await purgeExpiredAuthFlows(db);
      await insertAuthFlow(db, {
        state,
        provider: p.id,
        nonce,
        code_verifier: secretBox.encrypt(verifier),
        callback_url: safeCallbackUrl(publicUrl, input.callbackUrl),
        tenant_slug: input.tenantSlug.toLowerCase(),
        expires_at: new Date(Date.now() + FLOW_TTL_MS),
      });
      const url = client.buildAuthorizationUrl(config, {
        redirect_uri: redirectUri(p),
        scope: SCOPE,
        code_challenge: await client.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
        state,
        nonce,
      });
      return { url: url.href, state };
    },

    /** Completes a sign-in from the provider's redirect; throws OidcFailure for anything but success. */
    async callback(
      p: OidcProviderConfig,
      query: { state?: string; error?: string },
      rawQuery: string,
      stateCookie: string | undefined,
      meta: RequestMeta,
      log: FastifyBaseLogger,
    ): Promise<{ session: IssuedSession; redirectTo: string }> {
      if (query.error) {
        if (query.state && query.state === stateCookie) await takeAuthFlow(db, query.state, p.id);
        throw new OidcFailure(query.error === 'access_denied' ? 'AccessDenied' : 'OAuthCallback', query.error === 'access_denied' ? 403 : 400, `the provider answered ${query.error}`);
      }
      if (!query.state) throw new OidcFailure('OAuthCallback', 400, 'no state in the callback');
      // The flow must have been started by this browser: a callback link forwarded to someone else fails.
      if (stateCookie !== query.state) throw new OidcFailure('OAuthCallback', 400, 'the state does not match this browser’s sign-in');
      const flow = await takeAuthFlow(db, query.state, p.id);
      if (!flow || flow.expires_at.getTime() <= Date.now()) throw new OidcFailure('OAuthCallback', 400, 'unknown, expired or already used state');

      const config = await reachable(p, log);
      const identity = await exchange(p, config, rawQuery, flow, log);
      if (!identity.email || !identity.verified) throw new OidcFailure('AccessDenied', 403, 'the provider did not vouch for the email address');
      const user = await findUserByTenantEmail(db, flow.tenant_slug ?? '', identity.email);
      if (!user) throw new OidcFailure('AccessDenied', 403, 'no account with this email in the chosen tenant');

      const session = await withTransaction(db, async (trx) => {
        const allowed = !(user.user_type === 'client' && !user.client_id) && (await recordLoginSuccess(trx, user.tenant, user.user_id, false));
        if (!allowed) {
          await recordActivity(trx, {
            tenant: user.tenant, user_id: user.user_id, activity_type: 'login_failed',
            details: { method: p.id, reason: user.is_inactive ? 'inactive' : 'portal_without_client' }, ip: meta.ip, user_agent: meta.userAgent,
          });
          return null;
        }
        const issued = await sessions.issue(trx, { tenant: user.tenant, userId: user.user_id, loginMethod: p.id, ip: meta.ip, userAgent: meta.userAgent });
        await recordActivity(trx, {
          tenant: user.tenant, user_id: user.user_id, activity_type: 'login',
          details: { method: p.id, session_id: issued.session_id }, ip: meta.ip, user_agent: meta.userAgent,
        });
        return issued;
      });
      if (!session) throw new OidcFailure('AccessDenied', 403, 'the account is inactive or cannot sign in');
      return { session, redirectTo: flow.callback_url ?? `${publicUrl}/` };
    },
  };
}

export type Oidc = ReturnType<typeof createOidc>;
