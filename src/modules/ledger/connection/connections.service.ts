import type { Kysely } from 'kysely';
import type { Actor } from '../../../platform/auth/context.ts';
import type { SecretBox } from '../../../platform/crypto/secret-box.ts';
import { withTransaction } from '../../../platform/db/executor.ts';
import type { DB } from '../../../platform/db/schema.ts';
import { AppError, unprocessable, validation } from '../../../platform/http/errors.ts';
import { newId } from '../../../platform/ids.ts';
import { iso } from '../../../platform/time.ts';
import { failureText, notConfigured, notConnected, toApiError } from '../ledger.errors.ts';
import { emitLedgerEvent } from '../ledger.events.ts';
import { LedgerProviderError, type LedgerProvider, type LedgerSession } from '../providers/provider.ts';
import {
  connectionsOf,
  consumeOAuthState,
  findConnectionByRealm,
  insertConnection,
  insertOAuthState,
  updateConnection,
  type ConnectionRow,
} from './connections.repo.ts';
import { readState, signState, STATE_TTL_MS } from './oauth-state.ts';
import { openTokens, refreshTokens, tokenColumns, tokenSource } from './tokens.ts';
import type { CallbackBody, ConnectionStatus, ConnectionView, InitiateBody, TestBody } from './connection.schemas.ts';

export interface LedgerDeps {
  db: Kysely<DB>;
  secretBox: SecretBox;
  /** Absent when the server has no ledger app configured (PSA_QBO_CLIENT_ID…): every route then answers 409. */
  provider: LedgerProvider | undefined;
  publicUrl: string;
}

/** A connected company and an adapter session for it. */
export interface Connected {
  connection: ConnectionRow;
  provider: LedgerProvider;
  session: LedgerSession;
}

const view = (r: ConnectionRow): ConnectionView => ({
  connection_id: r.connection_id,
  provider: r.provider,
  realm_id: r.realm_id,
  display_name: r.display_name,
  country: r.country,
  currency_code: r.currency_code,
  status: r.status,
  is_default: r.is_default,
  access_token_expires_at: r.access_token_expires_at ? iso(r.access_token_expires_at) : null,
  refresh_token_expires_at: r.refresh_token_expires_at ? iso(r.refresh_token_expires_at) : null,
  last_validated_at: r.last_validated_at ? iso(r.last_validated_at) : null,
  last_refreshed_at: r.last_refreshed_at ? iso(r.last_refreshed_at) : null,
  last_error: r.last_error,
  connected_at: iso(r.created_at),
});

/** A redirect URI must be absolute http(s) without credentials or a fragment (the ledger checks it against the app's list). */
function redirectUriOf(raw: string | undefined, fallback: string): string {
  if (raw === undefined) return fallback;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw validation('body.redirect_uri', 'must be an absolute URL');
  }
  if (!['http:', 'https:'].includes(url.protocol) || url.username || url.password || url.hash) {
    throw validation('body.redirect_uri', 'must be an http(s) URL without credentials or a fragment');
  }
  return url.href;
}

/**
 * Connections to the ledger: the OAuth flow (a signed, single-use, ten-minute state; tokens sealed at rest),
 * status, test, refresh and disconnect. Other ledger services reach a company through `connected()`.
 */
export function createConnectionsService(deps: LedgerDeps) {
  const { db, secretBox, publicUrl } = deps;
  const defaultRedirect = `${publicUrl}/api/v1/quickbooks/oauth/callback`;

  function providerOrFail(): LedgerProvider {
    if (!deps.provider) throw notConfigured();
    return deps.provider;
  }

  async function pick(tenant: string, realmId: string | undefined): Promise<ConnectionRow> {
    const provider = providerOrFail();
    const rows = (await connectionsOf(db, tenant, provider.name)).filter((r) => r.status !== 'disconnected');
    const row = realmId === undefined ? rows[0] : rows.find((r) => r.realm_id === realmId);
    if (!row) throw notConnected(realmId);
    return row;
  }

  function sessionOf(tenant: string, row: ConnectionRow): Connected {
    const provider = providerOrFail();
    return { connection: row, provider, session: { realmId: row.realm_id, tokens: tokenSource({ db, secretBox, provider }, tenant, row.connection_id) } };
  }

  /** Calls the ledger and turns its failure into the API's 502 (the connection's last_error records it). */
  async function call<T>(tenant: string, row: ConnectionRow, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      if (err instanceof LedgerProviderError && err.reason !== 'auth_failed') {
        await updateConnection(db, tenant, row.connection_id, { last_error: failureText(err) });
      }
      throw toApiError(err, row.provider);
    }
  }

  async function status(tenant: string): Promise<ConnectionStatus> {
    const provider = providerOrFail();
    const rows = await connectionsOf(db, tenant, provider.name);
    const live = rows.filter((r) => r.status !== 'disconnected');
    return {
      connected: live.some((r) => r.status === 'active'),
      provider: provider.name,
      default_realm_id: live[0]?.realm_id ?? null,
      connections: rows.map(view),
    };
  }

  return {
    connected: async (tenant: string, realmId?: string): Promise<Connected> => sessionOf(tenant, await pick(tenant, realmId)),
    call,

    async initiate(actor: Actor, body: InitiateBody) {
      const provider = providerOrFail();
      const redirectUri = redirectUriOf(body.redirect_uri, defaultRedirect);
      const now = Date.now();
      const nonce = newId();
      const state = signState(secretBox, { tenantId: actor.tenant, providerId: provider.name, redirectUri, timestamp: now, nonce });
      await insertOAuthState(db, { tenant: actor.tenant, nonce, provider: provider.name, redirect_uri: redirectUri, user_id: actor.userId, expires_at: new Date(now + STATE_TTL_MS) });
      return { authorization_url: provider.authorizationUrl({ state, redirectUri }), state, redirect_uri: redirectUri, expires_at: iso(new Date(now + STATE_TTL_MS)) };
    },

    /**
     * Completes a flow: the state must be ours (MAC), unexpired, unused, and — when an API key calls — of the
     * key's tenant. The code is exchanged, the company read, and the connection created or renewed.
     * `actor` is null for the browser redirect (GET), whose tenant is the state's.
     */
    async callback(actor: Actor | null, body: CallbackBody): Promise<ConnectionStatus & { realm_id: string }> {
      const provider = providerOrFail();
      const now = new Date();
      const state = readState(secretBox, body.state, now.getTime());
      if (state === 'malformed' || state === 'bad_signature' || (actor && state !== 'expired' && state.tenantId !== actor.tenant)) {
        throw validation('body.state', 'is not a state this server issued for this tenant (start again with POST /api/v1/quickbooks/oauth/initiate)');
      }
      if (state === 'expired') throw unprocessable('The connection took longer than 10 minutes; start again', { reason: 'state_expired' });
      if (state.providerId !== provider.name) throw validation('body.state', 'was issued for another ledger');
      const tenant = state.tenantId;
      if (!(await consumeOAuthState(db, tenant, state.nonce, now))) throw unprocessable('This connection attempt was already completed or is unknown; start again', { reason: 'state_used' });
      if (body.error) {
        throw unprocessable(`The ledger refused the connection: ${body.error}${body.error_description ? ` (${body.error_description.slice(0, 300)})` : ''}`, {
          reason: 'provider_error', error: body.error, error_description: body.error_description ?? null,
        });
      }
      if (!body.code) throw validation('body.code', 'is required unless error is given');
      if (!body.realmId) throw validation('body.realmId', 'is required unless error is given');
      const realmId = body.realmId;
      const callbackUrl = new URL(state.redirectUri);
      callbackUrl.search = new URLSearchParams({ code: body.code, state: body.state, realmId }).toString();
      let tokens;
      try {
        tokens = await provider.exchangeCode({ callbackUrl, expectedState: body.state });
      } catch (err) {
        if (err instanceof LedgerProviderError && err.reason === 'auth_failed') throw unprocessable(`The ledger refused the authorization code: ${err.message}`, { reason: 'code_rejected' });
        throw toApiError(err, provider.name);
      }
      const access = tokens.accessToken;
      let company;
      try {
        company = await provider.companyInfo({ realmId, tokens: { current: async () => access, renew: async () => access } });
      } catch (err) {
        throw toApiError(err, provider.name);
      }
      const sealed = tokenColumns(secretBox, tokens, now);
      await withTransaction(db, async (trx) => {
        const existing = await findConnectionByRealm(trx, tenant, provider.name, realmId);
        const hasDefault = (await connectionsOf(trx, tenant, provider.name)).some((r) => r.is_default && r.status !== 'disconnected' && r.realm_id !== realmId);
        const fields = {
          ...sealed,
          display_name: company.name,
          country: company.country,
          currency_code: company.currency,
          status: 'active' as const,
          is_default: !hasDefault,
          last_validated_at: now,
          last_error: null,
          connected_by: actor?.userId ?? null,
        };
        if (!hasDefault) await trx.updateTable('ledger_connections').set({ is_default: false }).where('tenant', '=', tenant).where('is_default', '=', true).execute();
        let connectionId: string;
        if (existing) {
          connectionId = existing.connection_id;
          await updateConnection(trx, tenant, connectionId, fields);
        } else {
          connectionId = newId();
          await insertConnection(trx, { tenant, connection_id: connectionId, provider: provider.name, realm_id: realmId, ...fields });
        }
        await emitLedgerEvent(trx, tenant, 'ledger.connection.connected', { type: 'ledger_connection', id: connectionId }, { realm_id: realmId, display_name: company.name, reconnected: existing !== undefined });
      });
      return { ...(await status(tenant)), realm_id: realmId };
    },

    status: (actor: Actor) => status(actor.tenant),

    /** A cheap authenticated read (company info), or more with testType; a refused call is `success: false` with the reason. */
    async test(actor: Actor, realmId: string | undefined, body: TestBody) {
      const c = sessionOf(actor.tenant, await pick(actor.tenant, realmId));
      const started = Date.now();
      try {
        if (body.force_refresh) await refreshTokens({ db, secretBox, provider: c.provider }, actor.tenant, c.connection.connection_id);
        const company = await c.provider.companyInfo(c.session);
        const details: Record<string, unknown> = { realm_id: company.realmId, company_name: company.name, country: company.country, currency_code: company.currency };
        if (body.test_type === 'items' || body.test_type === 'full') details.item_count = (await c.provider.listItems(c.session)).length;
        if (body.test_type === 'customers' || body.test_type === 'full') details.customer_count = (await c.provider.listCustomers(c.session)).length;
        await updateConnection(db, actor.tenant, c.connection.connection_id, { last_validated_at: new Date(), last_error: null, ...(c.connection.status === 'error' ? { status: 'active' as const } : {}) });
        return { success: true, message: 'Connection test successful', response_time_ms: Date.now() - started, details };
      } catch (err) {
        if (!(err instanceof LedgerProviderError)) throw err;
        await updateConnection(db, actor.tenant, c.connection.connection_id, { last_error: failureText(err), ...(err.reason === 'auth_failed' ? {} : { status: 'error' as const }) });
        return { success: false, message: err.message, response_time_ms: Date.now() - started, details: { reason: err.reason, upstream_status: err.upstreamStatus ?? null, upstream_code: err.upstreamCode ?? null } };
      }
    },

    /** Refreshes the tokens now (they are otherwise refreshed when near expiry or refused). */
    async refresh(actor: Actor, realmId: string | undefined) {
      const row = await pick(actor.tenant, realmId);
      const provider = providerOrFail();
      try {
        await refreshTokens({ db, secretBox, provider }, actor.tenant, row.connection_id);
      } catch (err) {
        if (err instanceof LedgerProviderError && err.reason === 'auth_failed') {
          throw new AppError('CONFLICT', `The ledger refused the refresh token of '${row.realm_id}'; connect it again`, { reason: 'expired' });
        }
        throw toApiError(err, provider.name);
      }
      const now = (await connectionsOf(db, actor.tenant, provider.name)).find((r) => r.connection_id === row.connection_id)!;
      await withTransaction(db, (trx) => emitLedgerEvent(trx, actor.tenant, 'ledger.connection.refreshed', { type: 'ledger_connection', id: row.connection_id }, { realm_id: row.realm_id }));
      return view(now);
    },

    /**
     * Revokes the tokens at the ledger and deletes them here. A revocation the ledger cannot take (unreachable)
     * still disconnects: the tokens are gone from this side and `revoked: false` says the ledger may still hold them
     * until they expire.
     */
    async disconnect(actor: Actor, realmId: string | undefined) {
      const row = await pick(actor.tenant, realmId);
      const provider = providerOrFail();
      let revoked = true;
      let revokeError: string | null = null;
      try {
        await provider.revoke(openTokens(secretBox, row).refresh_token);
      } catch (err) {
        revoked = false;
        revokeError = failureText(err);
      }
      await withTransaction(db, async (trx) => {
        await updateConnection(trx, actor.tenant, row.connection_id, { status: 'disconnected', tokens_enc: null, access_token_expires_at: null, refresh_token_expires_at: null, is_default: false, last_error: null });
        const next = (await connectionsOf(trx, actor.tenant, provider.name)).find((r) => r.status !== 'disconnected');
        if (row.is_default && next) await updateConnection(trx, actor.tenant, next.connection_id, { is_default: true });
        await emitLedgerEvent(trx, actor.tenant, 'ledger.connection.disconnected', { type: 'ledger_connection', id: row.connection_id }, { realm_id: row.realm_id, revoked });
      });
      return { realm_id: row.realm_id, disconnected: true, revoked, revoke_error: revokeError };
    },
  };
}

export type ConnectionsService = ReturnType<typeof createConnectionsService>;
