import type { FastifyRequest } from 'fastify';

/** A `preValidation` hook: "without a body" means an empty object to the schema (for action routes like send or accept). */
export const emptyBodyIsObject = async (req: FastifyRequest): Promise<void> => {
  if (req.body === undefined || req.body === null) req.body = {};
};
