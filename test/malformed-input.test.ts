import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from './harness.ts';
import { makeTenant, type TenantFixture } from './factories.ts';

/**
 * Bad input never causes a 500: every registered route is sent malformed ids, bodies, query strings
 * and headers, and must answer with a 4xx in the error envelope (or a 2xx where the input is valid after all).
 */
let t: TestApp;
let tenant: TenantFixture;
beforeAll(async () => {
  t = await buildTestApp();
  tenant = await makeTenant(t);
});
afterAll(async () => t.close());

/** Bad values per path parameter: ids must be UUIDs; storage namespaces and keys have their own rules. */
const BAD_PARAMS: Record<string, string[]> = {
  namespace: ['Bad!', '.starts-with-dot', 'x'.repeat(65), '%00', 'UPPER'],
  key: ['a%2Fb', 'x'.repeat(300), '%00'],
  tag: ['x'.repeat(65), '%00', '%20', '%E0%A4%A', '..%2F..%2Fetc'],
  slug: ['Bad!', 'UPPER', '1starts_with_digit', 'x'.repeat(70), '%00', '%E0%A4%A', '..%2F..%2Fetc'],
};
const BAD_IDS = ['not-a-uuid', '00000000-0000-0000-0000-00000000000g', '%E0%A4%A', '..%2F..%2Fetc', "1'--", '%00', 'x'.repeat(300)];
const BAD_QUERIES = ['?search=%00', '?limit=1&limit=2', '?page=-1', '?limit=1e3', '?sort[]=x', '?updated_since=2026-13-45T99:00:00Z', '?search=%', `?search=${'%25'.repeat(100)}`, '?__proto__[x]=1', '?constructor=1'];
const BAD_BODIES: (string | undefined)[] = ['', 'null', '"text"', '42', '[]', '{', '{"a":}', '{"client_name":null}', '{"__proto__":{"x":1}}', JSON.stringify({ deep: JSON.parse('['.repeat(50) + ']'.repeat(50)) }), JSON.stringify({ client_name: 'x'.repeat(5000), billing_cycle: 'monthly' }), '{"billing_cycle":"monthly","client_name":"\\u0000nul"}'];
const BAD_HEADERS: Record<string, string>[] = [
  { 'if-match': '\u00ff\u00fe' },
  { 'if-match': '"' },
  { 'if-none-match': 'W/' },
  { 'idempotency-key': '' },
  { 'content-type': 'application/json; charset=utf-16' },
  { 'content-type': 'application/x-www-form-urlencoded' },
  { 'x-request-id': '../../etc/passwd' },
];

function paths(): { method: string; url: string }[] {
  return t.app.routeTable
    .filter((r) => (r.url.startsWith('/api/v1/') || r.url.startsWith('/api/projects')) && r.method !== 'HEAD')
    .map((r) => ({ method: String(r.method), url: r.url.replace(/:([A-Za-z]+)/g, '01890000-0000-7000-8000-000000000001') }));
}

describe('malformed input never causes a 500', () => {
  it('malformed path ids', async () => {
    const bad: string[] = [];
    for (const r of t.app.routeTable.filter((x) => x.url.includes(':') && (x.url.startsWith('/api/v1/') || x.url.startsWith('/api/projects/')) && x.method !== 'HEAD')) {
      const names = [...r.url.matchAll(/:([A-Za-z]+)/g)].map((m) => m[1]!);
      for (const name of names) for (const id of BAD_PARAMS[name] ?? BAD_IDS) {
        const url = r.url.replace(/:([A-Za-z]+)/g, (_, n: string) => (n === name ? id : n === 'namespace' ? 'ns' : n === 'key' ? 'k' : '01890000-0000-7000-8000-000000000001'));
        const res = await tenant.admin.request({ method: String(r.method) as 'GET', url, payload: ['POST', 'PUT', 'PATCH'].includes(String(r.method)) ? {} : undefined });
        if (res.statusCode >= 500 || res.statusCode < 400) bad.push(`${r.method} ${url} → ${res.statusCode} ${res.body.slice(0, 120)}`);
      }
    }
    expect(bad, bad.join('\n')).toEqual([]);
  });

  it('malformed query strings, bodies and headers', async () => {
    const bad: string[] = [];
    for (const { method, url } of paths()) {
      const withBody = method === 'POST' || method === 'PUT' || method === 'PATCH';
      const attempts: { url: string; payload?: string; headers?: Record<string, string> }[] = [
        ...BAD_QUERIES.map((q) => ({ url: url + q })),
        ...(withBody ? BAD_BODIES.map((b) => ({ url, payload: b, headers: { 'content-type': 'application/json' } })) : []),
        ...BAD_HEADERS.map((h) => ({ url, headers: h, payload: withBody ? '{}' : undefined })),
      ];
      for (const a of attempts) {
        const res = await tenant.admin.request({ method: method as 'GET', url: a.url, payload: a.payload, headers: a.headers });
        if (res.statusCode >= 500) bad.push(`${method} ${a.url} ${JSON.stringify(a.headers ?? {})} ${a.payload?.slice(0, 40) ?? ''} → ${res.statusCode} ${res.body.slice(0, 160)}`);
        else if (res.statusCode >= 400 && res.json().error?.code === undefined) bad.push(`${method} ${a.url}: ${res.statusCode} without the error envelope`);
      }
    }
    expect(bad, bad.join('\n')).toEqual([]);
  });

  it('the public inbound receiver: malformed slugs, query strings, bodies and headers', async () => {
    const created = await tenant.admin.post('/api/v1/inbound-webhooks', { name: 'Malformed', slug: 'malformed-in', auth_type: 'path_token', handler_type: 'workflow', handler_config: {} });
    expect(created.statusCode, created.body).toBe(201);
    const token = created.json().data.secret as string;
    const base = `/api/inbound/${tenant.slug}/malformed-in`;
    const urls = [`${base}?token=${token}`, `${base}?token=${token}&token=${token}`, `${base}?token[]=${token}`, `${base}?__proto__[x]=1&token=${token}`, '/api/inbound/%00/x', `/api/inbound/${'x'.repeat(300)}/y`, `/api/inbound/${tenant.slug}/%E0%A4%A`, `/api/inbound/${tenant.slug}/..%2F..%2Fetc`];
    const bad: string[] = [];
    for (const url of urls) {
      const attempts = [
        ...BAD_BODIES.map((b) => ({ payload: b, headers: { 'content-type': 'application/json' } })),
        ...BAD_HEADERS.map((h) => ({ payload: '{}', headers: { 'content-type': 'application/json', ...h } })),
        { payload: '{}', headers: { 'content-type': 'application/json', authorization: 'Bearer \u00ff' } },
      ];
      for (const a of attempts) {
        const res = await t.app.inject({ method: 'POST', url, payload: a.payload, headers: a.headers });
        if (res.statusCode >= 500) bad.push(`POST ${url} ${JSON.stringify(a.headers)} ${a.payload?.slice(0, 40) ?? ''} → ${res.statusCode} ${res.body.slice(0, 160)}`);
        // (An undecodable path is answered by the router itself, like on every other route.)
        else if (res.statusCode >= 400 && !url.includes('%E0%A4%A') && res.json().error?.code === undefined) bad.push(`POST ${url}: ${res.statusCode} without the error envelope`);
      }
    }
    expect(bad, bad.join('\n')).toEqual([]);
  });

  it('a NUL character in text is a 400 that says so', async () => {
    const res = await tenant.admin.post('/api/v1/clients', { client_name: 'a\u0000b', billing_cycle: 'monthly' });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().error.message).toContain('NUL');
  });

  it('responses never leak SQL or stack traces', async () => {
    const res = await tenant.admin.post('/api/v1/clients', { client_name: 'Dup', billing_cycle: 'monthly' });
    expect(res.statusCode).toBe(201);
    const dup = await tenant.admin.post('/api/v1/clients', { client_name: 'dup', billing_cycle: 'monthly' });
    expect(dup.statusCode).toBe(409);
    expect(dup.body).not.toMatch(/select|insert|constraint|violates|at .*\.ts/i);
  });
});
