import { randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { SecretBox } from '../../platform/crypto/secret-box.ts';
import { AppError } from '../../platform/http/errors.ts';
import { readCsrfCookie, setCsrfCookie } from './cookies.ts';

const COOKIE_VALUE_RE = /^[A-Za-z0-9_-]{43}$/;
const macInput = (cookieValue: string) => `csrf:${cookieValue}`;

/**
 * Signed double-submit CSRF protection: a random value sits in an HttpOnly cookie and the client sends
 * its MAC (keyed by the server secret) as `csrfToken` in the body of every mutating POST. Another site
 * can make the browser send the cookie but can neither read it nor compute the MAC; a cookie planted
 * by a sibling domain is useless without its MAC.
 */
export function createCsrf(box: SecretBox) {
  return {
    /** The token for this browser, creating the cookie when it has none (an existing one is kept, so open tabs stay valid). */
    issue(req: FastifyRequest, reply: FastifyReply): string {
      let value = readCsrfCookie(req);
      if (!value || !COOKIE_VALUE_RE.test(value)) {
        value = randomBytes(32).toString('base64url');
        setCsrfCookie(reply, value);
      }
      return box.mac(macInput(value));
    },

    /** Throws 403 unless the body's csrfToken is the MAC of this browser's CSRF cookie. */
    verify(req: FastifyRequest, csrfToken: string | undefined): void {
      const value = readCsrfCookie(req);
      if (!value || !csrfToken || !COOKIE_VALUE_RE.test(value) || !box.verifyMac(macInput(value), csrfToken)) {
        throw new AppError('FORBIDDEN', 'Missing or invalid CSRF token: GET /api/auth/csrf and send its csrfToken in the body (the csrf-token cookie must come along)');
      }
    },
  };
}

export type Csrf = ReturnType<typeof createCsrf>;
