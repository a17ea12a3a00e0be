import type { FastifyRequest } from 'fastify';
import { AppError } from '../../platform/http/errors.ts';
import type { BucketStore, Limit } from '../../platform/http/rate-limit/token-bucket.ts';

/**
 * Per-client-IP limits of the sign-in endpoints, in the app's bucket store (memory, or Redis shared by
 * every api process). Like the API-key hook, a store outage fails open and is logged.
 */
export function createLimiter(buckets: BucketStore, limits: { signIn: Limit; authFailure: Limit }) {
  async function take(req: FastifyRequest, key: string, limit: Limit): Promise<void> {
    let r;
    try {
      r = await buckets.take(key, limit);
    } catch (err) {
      req.log.error({ err }, 'rate-limit store unavailable; request not limited');
      return;
    }
    if (!r.allowed) {
      const seconds = Math.max(1, Math.ceil(r.retryAfterMs / 1000));
      throw new AppError('RATE_LIMITED', `Too many attempts; retry in ${seconds} s`, { retry_after_ms: r.retryAfterMs }, { 'Retry-After': String(seconds) });
    }
  }
  return {
    /** Every sign-in attempt (credentials, identity-provider start and callback). */
    signIn: (req: FastifyRequest) => take(req, `signin:${req.ip}`, limits.signIn),
    /** A failed key or token validation: the same budget the API-key hook spends on failed keys. */
    authFailure: (req: FastifyRequest) => take(req, `authfail:${req.ip}`, limits.authFailure),
  };
}

export type Limiter = ReturnType<typeof createLimiter>;
