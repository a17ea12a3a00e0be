import type { Kysely } from 'kysely';
import type { SecretBox } from '../../../platform/crypto/secret-box.ts';
import { withTransaction } from '../../../platform/db/executor.ts';
import type { DB } from '../../../platform/db/schema.ts';
import { AppError } from '../../../platform/http/errors.ts';
import { emitLedgerEvent } from '../ledger.events.ts';
import { LedgerProviderError, type LedgerProvider, type LedgerTokens, type TokenSource } from '../providers/provider.ts';
import { findConnection, updateConnection, type ConnectionRow } from './connections.repo.ts';

/** An access token this close to expiry is refreshed before use rather than sent and refused. */
const EXPIRY_MARGIN_MS = 120_000;

interface Sealed {
  access_token: string;
  refresh_token: string;
}

export const sealTokens = (box: SecretBox, t: LedgerTokens): string => box.encrypt(JSON.stringify({ access_token: t.accessToken, refresh_token: t.refreshToken } satisfies Sealed));

/** Opens a connection's tokens; a value that no longer decrypts (the secret key changed) means: connect again. */
export function openTokens(box: SecretBox, row: ConnectionRow): Sealed {
  try {
    const t = JSON.parse(box.decrypt(row.tokens_enc ?? '')) as Partial<Sealed>;
    if (typeof t.access_token === 'string' && typeof t.refresh_token === 'string') return { access_token: t.access_token, refresh_token: t.refresh_token };
  } catch {
    // fall through
  }
  throw new AppError('CONFLICT', `The tokens of ledger company '${row.realm_id}' cannot be read; connect it again`, { reason: 'not_connected' });
}

export const tokenColumns = (box: SecretBox, t: LedgerTokens, now: Date) => ({
  tokens_enc: sealTokens(box, t),
  access_token_expires_at: t.accessTokenExpiresAt,
  refresh_token_expires_at: t.refreshTokenExpiresAt,
  last_refreshed_at: now,
});

/**
 * Refreshes a connection's tokens under a row lock, so two workers never spend the same refresh token (the
 * ledger rotates it): the second finds the first's new token and uses it. A refused refresh token marks the
 * connection `expired` and announces it; the caller sees `auth_failed`.
 */
export async function refreshTokens(deps: { db: Kysely<DB>; secretBox: SecretBox; provider: LedgerProvider }, tenant: string, connectionId: string, staleAccessToken?: string): Promise<string> {
  const { db, secretBox, provider } = deps;
  try {
    return await withTransaction(db, async (trx) => {
      const row = await findConnection(trx, tenant, connectionId, true);
      if (!row || row.status === 'disconnected' || !row.tokens_enc) throw new AppError('CONFLICT', 'The ledger connection was disconnected', { reason: 'not_connected' });
      const stored = openTokens(secretBox, row);
      const fresh = row.access_token_expires_at && row.access_token_expires_at.getTime() - Date.now() > EXPIRY_MARGIN_MS;
      if (staleAccessToken !== undefined && stored.access_token !== staleAccessToken && fresh) return stored.access_token;
      const now = new Date();
      const tokens = await provider.refresh(stored.refresh_token);
      await updateConnection(trx, tenant, connectionId, { ...tokenColumns(secretBox, tokens, now), status: 'active', last_error: null });
      return tokens.accessToken;
    });
  } catch (err) {
    if (err instanceof LedgerProviderError && err.reason === 'auth_failed') {
      await withTransaction(db, async (trx) => {
        const row = await findConnection(trx, tenant, connectionId, true);
        if (!row || row.status === 'expired') return;
        await updateConnection(trx, tenant, connectionId, { status: 'expired', last_error: err.message });
        await emitLedgerEvent(trx, tenant, 'ledger.connection.expired', { type: 'ledger_connection', id: connectionId }, { realm_id: row.realm_id, reason: err.message });
      });
    }
    throw err;
  }
}

/** The token source an adapter uses for one connection: the stored token, refreshed when near expiry or refused. */
export function tokenSource(deps: { db: Kysely<DB>; secretBox: SecretBox; provider: LedgerProvider }, tenant: string, connectionId: string): TokenSource {
  let last: string | undefined;
  return {
    async current() {
      const row = await findConnection(deps.db, tenant, connectionId);
      if (!row || row.status === 'disconnected' || !row.tokens_enc) throw new AppError('CONFLICT', 'The ledger connection was disconnected', { reason: 'not_connected' });
      const expiresIn = (row.access_token_expires_at?.getTime() ?? 0) - Date.now();
      const stored = openTokens(deps.secretBox, row).access_token;
      // Near expiry: refresh, unless another caller refreshed meanwhile (refreshTokens checks under its lock).
      last = expiresIn > EXPIRY_MARGIN_MS ? stored : await refreshTokens(deps, tenant, connectionId, stored);
      return last;
    },
    async renew() {
      last = await refreshTokens(deps, tenant, connectionId, last);
      return last;
    },
  };
}
