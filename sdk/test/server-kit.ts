/**
 * A real API over HTTP for the SDK's end-to-end suites: the repository's test app (PGlite, or PostgreSQL
 * with TEST_DATABASE_URL) listening on a free loopback port, one tenant, and its admin API key.
 */
import { buildTestApp, type TestApp, type TestAppOptions } from '../../test/harness.ts';
import { makeTenant, type TenantFixture } from '../../test/factories.ts';
import { createPsaClient, type PsaClient, type PsaClientOptions } from '../src/client.ts';

export interface LiveServer {
  t: TestApp;
  tenant: TenantFixture;
  baseUrl: string;
  apiKey: string;
  client(options?: Partial<PsaClientOptions>): PsaClient;
  close(): Promise<void>;
}

export async function startServer(options: TestAppOptions = {}): Promise<LiveServer> {
  const t = await buildTestApp(options);
  const tenant = await makeTenant(t);
  const baseUrl = await t.app.listen({ port: 0, host: '127.0.0.1' });
  return {
    t,
    tenant,
    baseUrl,
    apiKey: tenant.admin.key,
    client: (overrides = {}) => createPsaClient({ baseUrl, apiKey: tenant.admin.key, ...overrides }),
    close: () => t.close(),
  };
}

/** A fetch that counts what it sends and can answer some calls itself (before or instead of the server). */
export function spyFetch(intercept?: (call: number, request: Request) => Promise<Response | undefined>) {
  const calls: { method: string; url: string; idempotencyKey: string | null; status: number; retryAfter: string | null; at: number }[] = [];
  const fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    const res = (await intercept?.(calls.length, request.clone())) ?? (await globalThis.fetch(request));
    calls.push({
      method: request.method,
      url: request.url,
      idempotencyKey: request.headers.get('idempotency-key'),
      status: res.status,
      retryAfter: res.headers.get('retry-after'),
      at: Date.now(),
    });
    return res;
  };
  return { fetch: fetch as typeof globalThis.fetch, calls };
}

let counter = 0;
/** A word no other test (or run) uses, for names and search terms (letters and digits only). */
export const uniqueWord = (prefix: string) => `${prefix}${process.pid}${Date.now().toString(36)}${counter++}`;
