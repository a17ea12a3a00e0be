import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../harness.ts';
import { makeTenant, type TenantFixture } from '../factories.ts';

let t: TestApp;
let tenant: TenantFixture;
beforeAll(async () => {
  t = await buildTestApp({ env: { PSA_CORS_ORIGINS: 'https://portal.example', PSA_BODY_LIMIT_BYTES: '2048' } });
  tenant = await makeTenant(t);
});
afterAll(async () => t.close());

const json = { 'content-type': 'application/json' };

describe('error envelope and HTTP edge cases', () => {
  it('malformed JSON is a 400 BAD_REQUEST in the nested envelope with the request id', async () => {
    const res = await tenant.admin.request({ method: 'POST', url: '/api/v1/api-keys', headers: json, payload: '{"name": ' });
    expect(res.statusCode, res.body).toBe(400);
    const body = res.json();
    expect(body.error.code).toBe('BAD_REQUEST');
    expect(body.error.request_id).toBe(res.headers['x-request-id']);
  });

  it('an unknown body field is a 400 VALIDATION_ERROR naming the field', async () => {
    const res = await tenant.admin.post('/api/v1/api-keys', { name: 'k', colour: 'blue' });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().error.code).toBe('VALIDATION_ERROR');
    expect(res.json().error.details).toContainEqual({ path: 'body.colour', message: 'unknown field' });
  });

  it('a body field of the wrong type is not coerced', async () => {
    const res = await tenant.admin.post('/api/v1/api-keys', { name: 12345 });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().error.details[0].path).toBe('body.name');
  });

  it('an unknown query parameter is a 400 naming it', async () => {
    const res = await tenant.admin.get('/api/v1/api-keys?colour=blue');
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().error.details).toContainEqual({ path: 'querystring.colour', message: 'unknown query parameter' });
  });

  it('out-of-range paging is rejected, never clamped', async () => {
    for (const q of ['limit=0', 'limit=101', 'page=0', 'limit=abc', 'order=sideways']) {
      const res = await tenant.admin.get(`/api/v1/api-keys?${q}`);
      expect(res.statusCode, `${q}: ${res.body}`).toBe(400);
      expect(res.json().error.code).toBe('VALIDATION_ERROR');
    }
  });

  it('a malformed id in the path is a 400, not a 500', async () => {
    for (const id of ['not-a-uuid', "1'%20or%20'1'='1", '%00', 'x'.repeat(400)]) {
      const res = await tenant.admin.get(`/api/v1/api-keys/${id}`);
      expect(res.statusCode, `${id}: ${res.body}`).toBe(400);
    }
  });

  it('an unknown route is a 404 NOT_FOUND', async () => {
    const res = await tenant.admin.get('/api/v1/no-such-thing');
    expect(res.statusCode, res.body).toBe(404);
    expect(res.json().error.code).toBe('NOT_FOUND');
  });

  it('a known path with the wrong method is a 405 with Allow', async () => {
    const res = await tenant.admin.request({ method: 'PATCH', url: '/api/v1/api-keys' });
    expect(res.statusCode, res.body).toBe(405);
    expect(res.json().error.code).toBe('METHOD_NOT_ALLOWED');
    expect(res.headers.allow).toContain('GET');
    expect(res.headers.allow).toContain('POST');
  });

  it('a body over the limit is a 413', async () => {
    const res = await tenant.admin.post('/api/v1/api-keys', { name: 'x'.repeat(5000) });
    expect(res.statusCode, res.body).toBe(413);
    expect(res.json().error.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('a body that is not JSON is a 415', async () => {
    const res = await tenant.admin.request({ method: 'POST', url: '/api/v1/api-keys', headers: { 'content-type': 'text/plain' }, payload: 'name=x' });
    expect(res.statusCode, res.body).toBe(415);
    expect(res.json().error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  it('a POST without a body where one is required is a 400', async () => {
    const res = await tenant.admin.request({ method: 'POST', url: '/api/v1/api-keys' });
    expect(res.statusCode, res.body).toBe(400);
  });

  it('a JSON body that is not an object is a 400', async () => {
    const res = await tenant.admin.request({ method: 'POST', url: '/api/v1/api-keys', headers: json, payload: '[1,2]' });
    expect(res.statusCode, res.body).toBe(400);
  });

  it('prototype-poisoning bodies are rejected with a 400', async () => {
    const res = await tenant.admin.request({ method: 'POST', url: '/api/v1/api-keys', headers: json, payload: '{"name":"k","__proto__":{"admin":true}}' });
    expect(res.statusCode, res.body).toBe(400);
  });
});

describe('request ids', () => {
  it('echoes a caller-supplied X-Request-Id', async () => {
    const res = await tenant.admin.get('/api/v1/countries', { 'x-request-id': 'abc-123' });
    expect(res.headers['x-request-id']).toBe('abc-123');
  });

  it('replaces an unsafe X-Request-Id with a generated one', async () => {
    const res = await tenant.admin.get('/api/v1/countries', { 'x-request-id': 'bad id\nwith newline' });
    expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('generates one when none is sent, also on errors', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/countries' });
    expect(res.statusCode).toBe(401);
    expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.json().error.request_id).toBe(res.headers['x-request-id']);
  });
});

describe('security headers and CORS', () => {
  it('sets the usual security headers on API responses', async () => {
    const res = await tenant.admin.get('/api/v1/countries');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['content-security-policy']).toContain("default-src 'none'");
    expect(res.headers['strict-transport-security']).toBeDefined();
  });

  it('answers CORS for an allowlisted origin without credentials', async () => {
    const res = await t.app.inject({
      method: 'OPTIONS',
      url: '/api/v1/countries',
      headers: { origin: 'https://portal.example', 'access-control-request-method': 'GET', 'access-control-request-headers': 'x-api-key' },
    });
    expect(res.statusCode).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe('https://portal.example');
    expect(res.headers['access-control-allow-credentials']).toBeUndefined();
  });

  it('never reflects an origin that is not on the allowlist', async () => {
    const res = await t.app.inject({
      method: 'OPTIONS',
      url: '/api/v1/countries',
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'GET' },
    });
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    const get = await tenant.admin.get('/api/v1/countries', { origin: 'https://evil.example' });
    expect(get.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe('health', () => {
  it('GET /healthz needs no key', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/healthz' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'ok' });
  });

  it('GET /readyz reports the database reachable', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/readyz' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'ready' });
  });
});

describe('countries', () => {
  it('lists every country with code, name and dialing prefix, the same for every tenant', async () => {
    const other = await makeTenant(t);
    const a = await tenant.admin.get('/api/v1/countries');
    const b = await other.admin.get('/api/v1/countries');
    expect(a.statusCode, a.body).toBe(200);
    expect(a.json()).toEqual(b.json());
    const data = a.json().data as { code: string; name: string; phone_code: string }[];
    expect(data.length).toBeGreaterThanOrEqual(240);
    expect(data).toContainEqual({ code: 'GB', name: 'United Kingdom', phone_code: '+44' });
    expect(data).toContainEqual({ code: 'US', name: 'United States', phone_code: '+1' });
    expect(res_has_no_pagination(a.json())).toBe(true);
  });

  it('rejects query parameters (no filters, no paging)', async () => {
    const res = await tenant.admin.get('/api/v1/countries?page=2');
    expect(res.statusCode, res.body).toBe(400);
  });

  it('needs an API key', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/countries' });
    expect(res.statusCode).toBe(401);
  });
});

function res_has_no_pagination(body: Record<string, unknown>): boolean {
  return !('pagination' in body);
}
