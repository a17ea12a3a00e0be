import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import { NoQuery } from '../../../platform/http/schemas.ts';
import { AppError } from '../../../platform/http/errors.ts';
import { prefersHtml } from '../../../platform/http/accept.ts';
import { emptyBodyIsObject } from '../../../platform/http/empty-body.ts';
import { errorBody, LEDGER_ERRORS, RealmQuery, tags } from '../ledger.openapi.ts';
import {
  CallbackBody,
  CallbackQuery,
  CallbackResponse,
  DisconnectResponse,
  InitiateBody,
  InitiateResponse,
  StatusResponse,
  TestBody,
  TestResponse,
  ConnectionResponse,
} from './connection.schemas.ts';
import type { ConnectionsService } from './connections.service.ts';
import { popupPage, type PopupMessage } from './popup.ts';
import type { TakeResult } from '../../../platform/http/rate-limit/token-bucket.ts';

const HTML = { 'text/html': { schema: { type: 'string' } } };

/**
 * How the redirect reports a failed completion: a state that cannot be trusted (forged, foreign, expired, used)
 * is 401 and counts against the address like a failed API key (429 past the budget); the user's refusal is 403.
 */
async function refusal(err: AppError, providerError: string | undefined, limit: () => Promise<TakeResult>): Promise<AppError> {
  const reason = Array.isArray(err.details) ? undefined : (err.details as { reason?: string } | undefined)?.reason;
  const badState = Array.isArray(err.details) && (err.details as { path?: string }[]).some((d) => d.path === 'body.state');
  const untrusted = badState || reason === 'state_expired' || reason === 'state_used';
  if (untrusted) {
    const r = await limit().catch(() => undefined);
    if (r && !r.allowed) {
      return new AppError('RATE_LIMITED', 'Too many refused callbacks from this address; try again later', undefined, { 'Retry-After': String(Math.max(1, Math.ceil(r.retryAfterMs / 1000))) });
    }
    return new AppError('UNAUTHORIZED', err.message, { reason: reason ?? 'state_invalid' });
  }
  if (reason === 'provider_error' && providerError === 'access_denied') return new AppError('FORBIDDEN', err.message, err.details);
  return err;
}

function sendPopup(out: FastifyReply, message: PopupMessage, publicUrl: string) {
  const page = popupPage(message, publicUrl);
  out.header('Content-Security-Policy', page.csp);
  out.header('Cache-Control', 'no-store');
  out.header('Referrer-Policy', 'no-referrer');
  return out.type('text/html; charset=utf-8').send(page.html);
}

export interface ConnectionRouteOptions {
  publicUrl: string;
  provider: string;
  /** Counts one refused callback against the client address (the API's failed-authentication budget). */
  limitFailures: (ip: string) => Promise<TakeResult>;
}

export const connectionRoutes = (service: ConnectionsService, opts: ConnectionRouteOptions): FastifyPluginAsyncTypebox => async (app) => {
  app.post('/quickbooks/oauth/initiate', {
    schema: { operationId: 'initiateLedgerOAuth', tags, summary: 'Start connecting QuickBooks Online: the authorization URL to open and its signed, single-use state', querystring: NoQuery, body: InitiateBody, response: { 200: InitiateResponse, ...LEDGER_ERRORS } },
    config: { permission: 'ledger:write' },
    preValidation: emptyBodyIsObject,
  }, async (req) => ({ data: await service.initiate(req.actor, req.body) }));

  app.post('/quickbooks/oauth/callback', {
    schema: { operationId: 'completeLedgerOAuth', tags, summary: 'Complete the connection with the code, state and realmId the ledger returned (JSON answer)', querystring: NoQuery, body: CallbackBody, response: { 200: CallbackResponse, ...LEDGER_ERRORS } },
    config: { permission: 'ledger:write' },
  }, async (req) => ({ data: await service.callback(req.actor, req.body) }));

  // The browser lands here from the ledger, with no API key: the signed state names the tenant. A browser
  // (Accept preferring text/html) gets the popup page whatever the outcome; any other client gets JSON.
  app.get('/quickbooks/oauth/callback', {
    schema: {
      operationId: 'ledgerOAuthRedirect', tags,
      summary: 'The ledger’s browser redirect target: completes the connection; answers the popup page to a browser, JSON otherwise',
      querystring: CallbackQuery,
      response: {
        200: { description: 'Connected. A browser gets a popup page that posts {type: "ledger_oauth_callback", provider, success, realm_id, error} to its opener (target origin: this server’s public URL, never *) and closes itself; on failure the same page with success false', content: { 'application/json': { schema: CallbackResponse }, ...HTML } },
        401: { description: 'The state is forged, of another flow, expired or already used (UNAUTHORIZED; details.reason)', content: { 'application/json': { schema: errorBody }, ...HTML } },
        403: { description: 'The user refused access at the ledger (FORBIDDEN, details.reason provider_error)', content: { 'application/json': { schema: errorBody }, ...HTML } },
        429: { description: 'Too many refused callbacks from this address; see Retry-After', content: { 'application/json': { schema: errorBody }, ...HTML } },
      },
    },
    config: { public: true },
  }, async (req, reply) => {
    const out = reply as FastifyReply;
    const html = prefersHtml(req.headers.accept);
    let message: PopupMessage;
    try {
      const result = await service.callback(null, { ...req.query, state: req.query.state ?? '' });
      if (!html) return { data: result };
      message = { type: 'ledger_oauth_callback', provider: opts.provider, success: true, realm_id: result.realm_id, error: null };
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      const refused = await refusal(err, req.query.error, () => opts.limitFailures(req.ip));
      if (!html) throw refused;
      out.code(refused.statusCode);
      for (const [k, v] of Object.entries(refused.headers ?? {})) out.header(k, v);
      const reason = Array.isArray(refused.details) ? undefined : (refused.details as { reason?: string } | undefined)?.reason;
      message = { type: 'ledger_oauth_callback', provider: opts.provider, success: false, realm_id: null, error: { code: reason ?? refused.code, message: refused.message } };
    }
    return sendPopup(out, message, opts.publicUrl);
  });

  app.delete('/quickbooks/oauth/disconnect', {
    schema: { operationId: 'disconnectLedger', tags, summary: 'Disconnect a company: revoke its tokens at the ledger and delete them (mappings are kept for a reconnect)', querystring: RealmQuery, response: { 200: DisconnectResponse, ...LEDGER_ERRORS } },
    config: { permission: 'ledger:admin' },
  }, async (req) => ({ data: await service.disconnect(req.actor, req.query.realm_id) }));

  app.get('/quickbooks/connection/status', {
    schema: { operationId: 'getLedgerConnectionStatus', tags, summary: 'Connected companies, their token expiry and last validation', querystring: NoQuery, response: { 200: StatusResponse, ...LEDGER_ERRORS } },
    config: { permission: 'ledger:read' },
  }, async (req) => ({ data: await service.status(req.actor) }));

  app.post('/quickbooks/connection/test', {
    schema: { operationId: 'testLedgerConnection', tags, summary: 'Call the ledger with the stored tokens; a refusal is success: false with the reason', querystring: RealmQuery, body: TestBody, response: { 200: TestResponse, ...LEDGER_ERRORS } },
    config: { permission: 'ledger:read' },
    preValidation: emptyBodyIsObject,
  }, async (req) => ({ data: await service.test(req.actor, req.query.realm_id, req.body) }));

  app.post('/quickbooks/connection/refresh', {
    schema: { operationId: 'refreshLedgerConnection', tags, summary: 'Refresh the tokens now (they are otherwise refreshed when near expiry)', querystring: RealmQuery, response: { 200: ConnectionResponse, ...LEDGER_ERRORS } },
    config: { permission: 'ledger:write' },
  }, async (req) => ({ data: await service.refresh(req.actor, req.query.realm_id) }));
};
