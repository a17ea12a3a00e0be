import FindMyWay from 'find-my-way';
import type { FastifyInstance } from 'fastify';

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
import { AppError } from './errors.ts';
import { sendError } from './error-handler.ts';

const METHODS: Method[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/**
 * Unknown path → 404; known path with another method → 405 with an Allow header. Fastify does not
 * tell the two apart, so the route table is mirrored into a router used only for that question.
 */
export function registerNotFound(app: FastifyInstance): void {
  const mirror = FindMyWay({ ignoreTrailingSlash: false });
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const m of methods) {
      if (m === 'HEAD' || m === 'OPTIONS') continue;
      try {
        mirror.on(m as Method, route.url, () => undefined);
      } catch {
        // duplicate registrations (HEAD twins) are fine to skip
      }
    }
  });
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '/';
    const allowed: string[] = METHODS.filter((m) => m !== request.method && mirror.find(m, path) !== null);
    if (allowed.length > 0 && request.method !== 'OPTIONS') {
      if (allowed.includes('GET')) allowed.push('HEAD');
      return sendError(
        reply,
        new AppError('METHOD_NOT_ALLOWED', `${request.method} is not allowed on ${path}`, { allowed }, { Allow: allowed.join(', ') }),
      );
    }
    return sendError(reply, new AppError('NOT_FOUND', `No route ${request.method} ${path}`));
  });
}
