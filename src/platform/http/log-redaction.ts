import type { FastifyRequest } from 'fastify';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Log this route's URL without its query values (a public receiver whose query may carry a credential). */
    redactQuery?: boolean;
  }
}

/** Query parameters whose values never reach the logs (one-time codes, tokens, secrets). */
const SENSITIVE = /^(code|state|token|csrftoken|api_key|apikey|key|secret|password|id_token|access_token)$/i;

export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const params = new URLSearchParams(url.slice(q + 1));
  let changed = false;
  for (const name of new Set(params.keys())) {
    if (SENSITIVE.test(name)) {
      params.set(name, '[redacted]');
      changed = true;
    }
  }
  return changed ? `${url.slice(0, q)}?${params.toString()}` : url;
}

/** Every query value replaced by `[redacted]` (names kept). */
export function redactQueryValues(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const params = new URLSearchParams(url.slice(q + 1));
  for (const name of new Set(params.keys())) params.set(name, '[redacted]');
  return `${url.slice(0, q)}?${params.toString()}`;
}

/** pino serializers for request logs: Fastify's usual fields, with the URL redacted. */
export const logSerializers = {
  req(request: FastifyRequest) {
    const url = request.routeOptions?.config?.redactQuery ? redactQueryValues(request.url) : redactUrl(request.url);
    return { method: request.method, url, host: request.host, remoteAddress: request.ip, remotePort: request.socket?.remotePort };
  },
};
