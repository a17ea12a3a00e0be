import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import { AppError } from '../../../platform/http/errors.ts';
import { LEDGER_ERRORS, RealmQuery, tags } from '../ledger.openapi.ts';
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
import { popupPage } from './popup.ts';

const NoQuery = Type.Object({}, { additionalProperties: false });
const HtmlPage = { description: 'A popup page that posts {type: "ledger_oauth_callback", provider, success, realm_id, error} to its opener (target origin: this server’s public URL) and closes itself', content: { 'text/html': { schema: { type: 'string' } } } };

export const connectionRoutes = (service: ConnectionsService, opts: { publicUrl: string; provider: string }): FastifyPluginAsyncTypebox => async (app) => {
  app.post('/quickbooks/oauth/initiate', {
    schema: { operationId: 'initiateLedgerOAuth', tags, summary: 'Start connecting QuickBooks Online: the authorization URL to open and its signed, single-use state', querystring: NoQuery, body: InitiateBody, response: { 200: InitiateResponse, ...LEDGER_ERRORS } },
    config: { permission: 'ledger:write' },
  }, async (req) => ({ data: await service.initiate(req.actor, req.body ?? {}) }));

  app.post('/quickbooks/oauth/callback', {
    schema: { operationId: 'completeLedgerOAuth', tags, summary: 'Complete the connection with the code, state and realmId the ledger returned (JSON answer)', querystring: NoQuery, body: CallbackBody, response: { 200: CallbackResponse, ...LEDGER_ERRORS } },
    config: { permission: 'ledger:write' },
  }, async (req) => ({ data: await service.callback(req.actor, req.body) }));

  // The browser lands here from the ledger, with no API key: the signed state names the tenant.
  app.get('/quickbooks/oauth/callback', {
    schema: { operationId: 'ledgerOAuthRedirect', tags, summary: 'The ledger’s browser redirect target: completes the connection and answers the popup page', querystring: CallbackQuery, response: { 200: HtmlPage } },
    config: { public: true },
  }, async (req, reply) => {
    const q = req.query;
    let message;
    let status = 200;
    try {
      const result = await service.callback(null, { ...q, state: q.state ?? '' });
      message = { type: 'ledger_oauth_callback' as const, provider: opts.provider, success: true, realm_id: result.realm_id, error: null };
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      status = err.statusCode;
      const reason = (err.details as { reason?: string } | undefined)?.reason;
      message = { type: 'ledger_oauth_callback' as const, provider: opts.provider, success: false, realm_id: null, error: { code: reason ?? err.code, message: err.message } };
    }
    const page = popupPage(message, opts.publicUrl);
    const out = reply as FastifyReply;
    out.code(status);
    out.header('Content-Security-Policy', page.csp);
    out.header('Cache-Control', 'no-store');
    out.header('Referrer-Policy', 'no-referrer');
    return out.type('text/html; charset=utf-8').send(page.html);
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
    schema: { operationId: 'testLedgerConnection', tags, summary: 'Call the ledger with the stored tokens; a refusal is success: false with the reason', querystring: RealmQuery, body: Type.Optional(TestBody), response: { 200: TestResponse, ...LEDGER_ERRORS } },
    config: { permission: 'ledger:read' },
  }, async (req) => ({ data: await service.test(req.actor, req.query.realm_id, req.body ?? {}) }));

  app.post('/quickbooks/connection/refresh', {
    schema: { operationId: 'refreshLedgerConnection', tags, summary: 'Refresh the tokens now (they are otherwise refreshed when near expiry)', querystring: RealmQuery, response: { 200: ConnectionResponse, ...LEDGER_ERRORS } },
    config: { permission: 'ledger:write' },
  }, async (req) => ({ data: await service.refresh(req.actor, req.query.realm_id) }));
};
