import { hash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from './errors.ts';

/**
 * Strong ETag of a resource's API representation. Computed from the mapped object (not the wire bytes)
 * so a service can recompute it from the current row when checking If-Match.
 */
export const etagOf = (resource: unknown): string => `"${hash('sha1', JSON.stringify(resource), 'base64url')}"`;

const tagsOf = (header: string) => header.split(',').map((t) => t.trim().replace(/^W\//, ''));

/** Throws 412 unless If-Match is absent, `*`, or names the current representation. */
export function assertIfMatch(ifMatch: string | undefined, current: unknown): void {
  if (ifMatch === undefined || ifMatch.trim() === '*') return;
  if (!tagsOf(ifMatch).includes(etagOf(current))) {
    throw new AppError('PRECONDITION_FAILED', 'If-Match does not match the current ETag; fetch the resource again', {
      current_etag: etagOf(current),
    });
  }
}

export const ifMatchOf = (request: FastifyRequest): string | undefined => {
  const h = request.headers['if-match'];
  return typeof h === 'string' ? h : undefined;
};

/** For single-resource responses: sets ETag, and answers 304 when If-None-Match already has it. */
export function withEtag<T>(request: FastifyRequest, reply: FastifyReply, resource: T): { data: T } {
  const tag = etagOf(resource);
  reply.header('ETag', tag);
  const inm = request.headers['if-none-match'];
  if (request.method === 'GET' && typeof inm === 'string' && (inm.trim() === '*' || tagsOf(inm).includes(tag))) {
    reply.code(304);
  }
  return { data: resource };
}
