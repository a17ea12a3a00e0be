import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError, notFound, validation, type ErrorCode } from '../../platform/http/errors.ts';
import type { AuthContext } from './auth.context.ts';
import {
  AuthActionBody, AuthActionQuery, CallbackQuery, GetActionResponse, NextAuthParams, PostActionResponse, ProviderParams, Redirect,
  UrlResponse, type ProviderInfo,
} from './auth.schemas.ts';
import { clearSessionCookie, clearStateCookie, readSessionCookie, readStateCookie, setSessionCookie, setStateCookie } from './cookies.ts';
import type { CredentialsError } from './credentials.service.ts';
import { FLOW_TTL_MS, OidcFailure } from './oidc.service.ts';
import { errorInfo, sendPage, wantsJson } from './pages.ts';
import { safeCallbackUrl } from './redirects.ts';
import { emptyBodyIsObject } from '../../platform/http/empty-body.ts';
import { metaOf, rawQueryOf } from './request.ts';
import { toSessionUser } from './session-user.mapper.ts';

const tags = ['Authentication'];

const methodNotAllowed = (req: FastifyRequest, allowed: string[]) =>
  new AppError('METHOD_NOT_ALLOWED', `${req.method} is not allowed on ${req.url.split('?')[0]}`, { allowed }, { Allow: allowed.join(', ') });

/** Honest answers for sign-in methods this service does not offer (no fake options). */
const notEnabled = (what: string) =>
  new AppError('NOT_FOUND', `${what} is not enabled on this service`, { enabled: false });

const GET_ONLY = new Set(['csrf', 'providers', 'error', 'validate-token']);
/** JSON answers to a failed credentials sign-in; `details.error` carries the sign-in error code. */
const CREDENTIAL_ERRORS: Record<CredentialsError, { code: ErrorCode; message: string }> = {
  CredentialsSignin: { code: 'UNAUTHORIZED', message: 'Invalid credentials' },
  totp_required: { code: 'UNAUTHORIZED', message: 'A two-factor code is required: send totp (or a recovery code)' },
  invalid_totp: { code: 'UNAUTHORIZED', message: 'The two-factor code is invalid or was already used' },
  tenant_required: { code: 'BAD_REQUEST', message: 'This login exists in several tenants: send tenant (the tenant slug)' },
};
const OIDC_STATUS: Record<number, ErrorCode> = { 400: 'BAD_REQUEST', 403: 'FORBIDDEN', 502: 'UPSTREAM_ERROR' };

/**
 * The sign-in framework's endpoints: the catch-all `/api/auth/{nextauth}` (csrf, providers, signin,
 * signout, session, error, verify-request, webauthn-options), identity-provider sign-in and the
 * callbacks. Mutating POSTs carry the CSRF token; sign-in attempts are rate limited per client IP.
 */
export const signInRoutes = (ctx: AuthContext): FastifyPluginAsyncTypebox => async (app) => {
  const { config, csrf, sessions, credentials, oidc, limiter } = ctx;
  const base = `${config.publicUrl}/api/auth`;

  const providers = (): ProviderInfo[] => [
    { id: 'credentials', name: 'Credentials', type: 'credentials', signinUrl: `${base}/signin/credentials`, callbackUrl: `${base}/callback/credentials` },
    ...oidc.providers().map((p) => ({ id: p.id, name: p.name, type: 'oidc' as const, signinUrl: `${base}/signin/${p.id}`, callbackUrl: `${base}/callback/${p.id}` })),
  ];

  const sessionObject = async (req: FastifyRequest) => {
    const session = await sessions.resolve(readSessionCookie(req));
    return session ? toSessionUser(session) : {};
  };

  const go = (reply: FastifyReply, url: string, json: boolean) => (json ? reply.send({ url }) : reply.redirect(url, 302));

  app.get('/:nextauth', {
    schema: {
      operationId: 'getAuthAction',
      tags,
      summary: 'Sign-in actions: csrf → {csrfToken}; providers → provider map; signin, signout, error → page (JSON, or HTML for browsers)',
      params: NextAuthParams,
      querystring: AuthActionQuery,
      response: { 200: GetActionResponse },
    },
    config: { public: true },
  }, async (req, reply) => {
    const { query } = req;
    switch (req.params.nextauth) {
      case 'csrf':
        return { csrfToken: csrf.issue(req, reply) };
      case 'providers':
        return Object.fromEntries(providers().map((p) => [p.id, p]));
      case 'signin': {
        const error = errorInfo(query.error);
        return sendPage(req, reply, {
          page: 'signin', message: 'Choose how to sign in.', error, providers: providers(),
          csrfToken: csrf.issue(req, reply), callbackUrl: safeCallbackUrl(config.publicUrl, query.callbackUrl),
          askTotp: error?.code === 'totp_required' || error?.code === 'invalid_totp',
        });
      }
      case 'signout':
        return sendPage(req, reply, {
          page: 'signout', message: 'POST /api/auth/signout with csrfToken to sign out.', error: null,
          csrfToken: csrf.issue(req, reply), callbackUrl: safeCallbackUrl(config.publicUrl, query.callbackUrl),
        });
      case 'error': {
        const error = errorInfo(query.error) ?? errorInfo('Default')!;
        return sendPage(req, reply, { page: 'error', message: error.message, error });
      }
      case 'verify-request':
        throw notEnabled('Email sign-in (verify-request)');
      case 'webauthn-options':
        throw notEnabled('WebAuthn (passkey) sign-in');
      case 'validate-key':
        throw methodNotAllowed(req, ['POST']);
      default:
        throw new AppError('NOT_FOUND', `No sign-in action '${req.params.nextauth}'`);
    }
  });

  app.post('/:nextauth', {
    schema: {
      operationId: 'postAuthAction',
      tags,
      summary: 'Sign-in actions that change state (csrfToken required): signout → revokes the session and clears the cookie; session → the session object',
      params: NextAuthParams,
      body: AuthActionBody,
      response: { 200: PostActionResponse, 302: Redirect },
    },
    config: { public: true },
    preValidation: emptyBodyIsObject,
  }, async (req, reply) => {
    const { body } = req;
    const action = req.params.nextauth;
    if (action === 'signout') {
      csrf.verify(req, body.csrfToken);
      await sessions.signOut(readSessionCookie(req), metaOf(req));
      clearSessionCookie(reply);
      return go(reply, safeCallbackUrl(config.publicUrl, body.callbackUrl), wantsJson(req, body.json));
    }
    if (action === 'session') {
      csrf.verify(req, body.csrfToken);
      return sessionObject(req);
    }
    if (action === 'signin') throw new AppError('BAD_REQUEST', 'Name the provider: POST /api/auth/signin/{provider}; credentials post to /api/auth/callback/credentials');
    if (action === 'webauthn-options') throw notEnabled('WebAuthn (passkey) sign-in');
    if (action === 'verify-request') throw notEnabled('Email sign-in (verify-request)');
    if (GET_ONLY.has(action)) throw methodNotAllowed(req, ['GET']);
    throw new AppError('NOT_FOUND', `No sign-in action '${action}'`);
  });

  app.post('/signin/:provider', {
    schema: {
      operationId: 'startProviderSignIn',
      tags,
      summary: 'Start signing in with an OpenID Connect provider (csrfToken and tenant required): 302 to the provider, or {url} for JSON clients',
      params: ProviderParams,
      body: AuthActionBody,
      response: { 200: UrlResponse, 302: Redirect },
    },
    config: { public: true },
    preValidation: emptyBodyIsObject,
  }, async (req, reply) => {
    await limiter.signIn(req);
    const { body } = req;
    if (req.params.provider === 'credentials') {
      throw new AppError('BAD_REQUEST', 'Credentials are posted to /api/auth/callback/credentials');
    }
    const provider = oidc.provider(req.params.provider);
    if (!provider) throw notFound('Sign-in provider', req.params.provider);
    csrf.verify(req, body.csrfToken);
    const { url, state } = await oidc.start(provider, { tenantSlug: body.tenant, callbackUrl: body.callbackUrl }, req.log);
    setStateCookie(reply, state, FLOW_TTL_MS / 1000);
    return go(reply, url, wantsJson(req, body.json));
  });

  app.get('/callback/:provider', {
    schema: {
      operationId: 'completeProviderSignIn',
      tags,
      summary: 'Where an OpenID Connect provider sends the browser back: creates the session and redirects (JSON clients: {url}); failures redirect to the error page (JSON errors for JSON clients)',
      params: ProviderParams,
      querystring: CallbackQuery,
      response: { 200: UrlResponse, 302: Redirect },
    },
    config: { public: true },
  }, async (req, reply) => {
    await limiter.signIn(req);
    if (req.params.provider === 'credentials') throw methodNotAllowed(req, ['POST']);
    const provider = oidc.provider(req.params.provider);
    if (!provider) throw notFound('Sign-in provider', req.params.provider);
    clearStateCookie(reply);
    try {
      const { session, redirectTo } = await oidc.callback(provider, req.query, rawQueryOf(req), readStateCookie(req), metaOf(req), req.log);
      setSessionCookie(reply, session.token, session.expires_at);
      return go(reply, redirectTo, wantsJson(req));
    } catch (err) {
      if (!(err instanceof OidcFailure)) throw err;
      req.log.info({ provider: provider.id, reason: err.reason }, 'identity-provider sign-in failed');
      const info = errorInfo(err.code)!;
      if (wantsJson(req)) throw new AppError(OIDC_STATUS[err.status]!, `${info.message} (${err.reason})`, { error: err.code });
      return reply.redirect(`${base}/error?error=${err.code}`, 302);
    }
  });

  app.post('/callback/:provider', {
    schema: {
      operationId: 'signInWithCredentials',
      tags,
      summary: 'Sign in with email (or username) and password, plus a two-factor code when enabled (csrfToken required): sets the session cookie; 302 to callbackUrl, or {url} for JSON clients',
      params: ProviderParams,
      body: AuthActionBody,
      response: { 200: UrlResponse, 302: Redirect },
    },
    config: { public: true },
    preValidation: emptyBodyIsObject,
  }, async (req, reply) => {
    await limiter.signIn(req);
    const { body } = req;
    if (req.params.provider !== 'credentials') {
      if (!oidc.provider(req.params.provider)) throw notFound('Sign-in provider', req.params.provider);
      throw methodNotAllowed(req, ['GET']);
    }
    csrf.verify(req, body.csrfToken);
    const login = body.username ?? body.email;
    if (!login) throw validation('body.email', 'is required (or username)');
    if (!body.password) throw validation('body.password', 'is required');
    const json = wantsJson(req, body.json);
    const callbackUrl = safeCallbackUrl(config.publicUrl, body.callbackUrl);
    const outcome = await credentials(
      { login, byUsername: body.username !== undefined, password: body.password, tenantSlug: body.tenant || undefined, code: body.totp ?? body.token },
      metaOf(req),
    );
    if (outcome.ok) {
      setSessionCookie(reply, outcome.session.token, outcome.session.expires_at);
      return go(reply, callbackUrl, json);
    }
    const failure = CREDENTIAL_ERRORS[outcome.error];
    if (json) throw new AppError(failure.code, failure.message, { error: outcome.error });
    return reply.redirect(`${base}/signin?${new URLSearchParams({ error: outcome.error, callbackUrl })}`, 302);
  });
};
