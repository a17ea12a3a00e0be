import { AppError } from '../../platform/http/errors.ts';
import { RmmProviderError } from './providers/provider.ts';

/**
 * A provider failure as the API reports it: 502 UPSTREAM_ERROR naming the provider, the reason and the
 * upstream status (the message is the adapter's, which never carries the API key). A base URL the outbound
 * policy refuses is the tenant's configuration, not the RMM's fault: 422.
 */
export function toApiError(err: unknown, provider: string): unknown {
  if (!(err instanceof RmmProviderError)) return err;
  const details = { provider, reason: err.reason, upstream_status: err.upstreamStatus ?? null };
  if (err.reason === 'unsafe_target') return new AppError('UNPROCESSABLE', err.message, details);
  return new AppError('UPSTREAM_ERROR', err.message, details);
}

/** The short form kept in asset history and test outcomes. */
export function failureOf(err: unknown): { reason: string; message: string; upstream_status: number | null } {
  if (err instanceof RmmProviderError) return { reason: err.reason, message: err.message, upstream_status: err.upstreamStatus ?? null };
  return { reason: 'internal', message: 'The command failed inside the PSA', upstream_status: null };
}
