import { AppError } from '../../platform/http/errors.ts';
import { LedgerProviderError } from './providers/provider.ts';

/**
 * A ledger failure as the API reports it: 502 UPSTREAM_ERROR with `details.reason` (the adapter's closed
 * list), the upstream status and the ledger's own error code; the message is the adapter's, which never
 * carries a token.
 */
export function toApiError(err: unknown, provider: string): unknown {
  if (!(err instanceof LedgerProviderError)) return err;
  return new AppError('UPSTREAM_ERROR', err.message, {
    provider,
    reason: err.reason,
    upstream_status: err.upstreamStatus ?? null,
    upstream_code: err.upstreamCode ?? null,
  });
}

/** The short form kept in sync outcomes and health checks. */
export function failureText(err: unknown): string {
  if (err instanceof LedgerProviderError) return `${err.reason}: ${err.message}`;
  if (err instanceof AppError) return err.message;
  return 'The operation failed inside the PSA';
}

export const notConnected = (realmId?: string): AppError =>
  new AppError('CONFLICT', realmId ? `The ledger company '${realmId}' is not connected` : 'No ledger is connected; connect QuickBooks Online first (POST /api/v1/quickbooks/oauth/initiate)', {
    reason: 'not_connected',
  });

export const notConfigured = (): AppError =>
  new AppError('CONFLICT', 'QuickBooks Online is not configured on this server (PSA_QBO_CLIENT_ID and PSA_QBO_CLIENT_SECRET)', { reason: 'not_configured' });
