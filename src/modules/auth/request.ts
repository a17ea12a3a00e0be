import type { FastifyRequest } from 'fastify';
import type { RequestMeta } from './credentials.service.ts';


export const metaOf = (req: FastifyRequest): RequestMeta => ({ ip: req.ip, userAgent: req.headers['user-agent'] ?? null });

/** The raw query string of the request (what an identity provider appended to the callback URL). */
export const rawQueryOf = (req: FastifyRequest): string => {
  const i = req.url.indexOf('?');
  return i === -1 ? '' : req.url.slice(i + 1);
};
