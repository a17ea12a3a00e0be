import { afterEach, describe, expect, it, vi } from 'vitest';
import { buildUrl, createTransport, createTransportFetch, PsaApiError, retryAfterMs } from '../src/http.ts';
import { errorBody, fakeFetch } from './fake-fetch.ts';

const BASE = 'http://api.test';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

afterEach(() => {
  vi.useRealTimers();
});

describe('buildUrl', () => {
  it('fills and encodes path parameters, repeats arrays, writes dates as ISO and leaves out null and undefined', () => {
    const url = buildUrl(BASE, '/api/v1/clients/{id}/notes', { id: 'a b/c' }, { tag: ['x', 'y'], since: new Date('2024-01-02T03:04:05.000Z'), skip: undefined, none: null, n: 3 });
    expect(url.toString()).toBe('http://api.test/api/v1/clients/a%20b%2Fc/notes?tag=x&tag=y&since=2024-01-02T03%3A04%3A05.000Z&n=3');
  });

  it('keeps a path prefix of the base URL, with or without its trailing slash', () => {
    expect(buildUrl('https://host.test/psa', '/api/v1/clients').toString()).toBe('https://host.test/psa/api/v1/clients');
    expect(buildUrl('https://host.test/psa/', '/api/v1/clients').toString()).toBe('https://host.test/psa/api/v1/clients');
  });

  it('refuses a missing path parameter', () => {
    expect(() => buildUrl(BASE, '/api/v1/tickets/{ticketId}')).toThrow(/missing path parameter 'ticketId'/);
  });
});

describe('retryAfterMs', () => {
  it('reads delta-seconds and HTTP dates, and nothing else', () => {
    expect(retryAfterMs('3')).toBe(3000);
    expect(retryAfterMs(new Date(10_000).toUTCString(), 4_000)).toBe(6000);
    expect(retryAfterMs(new Date(1_000).toUTCString(), 4_000)).toBe(0);
    expect(retryAfterMs(null)).toBeUndefined();
    expect(retryAfterMs(' ')).toBeUndefined();
    expect(retryAfterMs('soon')).toBeUndefined();
  });
});

describe('createTransport', () => {
  it('sends the API key and user agent on every request, JSON bodies, and an Idempotency-Key only on POST', async () => {
    const { fetch, sent } = fakeFetch({ status: 200, body: { data: [] } }, { status: 201, body: { data: { id: 1 } } });
    const api = createTransport({ baseUrl: BASE, apiKey: 'k1', fetch, userAgent: 'sdk-test/1' });
    const list = await api.request({ method: 'GET', path: '/api/v1/clients', query: { page: 2 } });
    expect(list).toMatchObject({ status: 200, body: { data: [] } });
    await api.request({ method: 'POST', path: '/api/v1/clients', body: { client_name: 'Acme' } });
    expect(sent[0]).toMatchObject({ url: `${BASE}/api/v1/clients?page=2`, method: 'GET', headers: { 'x-api-key': 'k1', 'user-agent': 'sdk-test/1', accept: 'application/json' } });
    expect(sent[0]!.headers['idempotency-key']).toBeUndefined();
    expect(sent[1]).toMatchObject({ method: 'POST', body: '{"client_name":"Acme"}', headers: { 'x-api-key': 'k1', 'content-type': 'application/json' } });
    expect(sent[1]!.headers['idempotency-key']).toMatch(UUID);
  });

  it('uses a given Idempotency-Key (as an option or a header in any case) instead of adding one, and sends none when told', async () => {
    const { fetch, sent } = fakeFetch({ status: 201 }, { status: 201 }, { status: 201 });
    const api = createTransport({ baseUrl: BASE, apiKey: 'k', fetch });
    await api.request({ method: 'POST', path: '/x', idempotencyKey: 'mine-1' });
    await api.request({ method: 'POST', path: '/x', headers: { 'Idempotency-Key': 'mine-2' } });
    await api.request({ method: 'POST', path: '/x', idempotencyKey: false });
    expect(sent.map((r) => r.headers['idempotency-key'])).toEqual(['mine-1', 'mine-2', undefined]);
  });

  it('retries a 503 with the same Idempotency-Key, so the retried create is the same request', async () => {
    vi.useFakeTimers();
    const { fetch, sent } = fakeFetch({ status: 503, body: errorBody('UNAVAILABLE', 'busy') }, { status: 201, body: { data: { id: 7 } } });
    const api = createTransport({ baseUrl: BASE, apiKey: 'k', fetch });
    const done = api.request({ method: 'POST', path: '/api/v1/tickets', body: { title: 'x' } });
    await vi.runAllTimersAsync();
    expect((await done).body).toEqual({ data: { id: 7 } });
    expect(sent).toHaveLength(2);
    expect(sent[0]!.headers['idempotency-key']).toMatch(UUID);
    expect(sent[1]!.headers['idempotency-key']).toBe(sent[0]!.headers['idempotency-key']);
    expect(sent[1]!.body).toBe(sent[0]!.body);
  });

  it('waits the Retry-After of a 429 before trying again', async () => {
    vi.useFakeTimers();
    const { fetch, sent } = fakeFetch({ status: 429, headers: { 'retry-after': '2' }, body: errorBody('RATE_LIMITED', 'slow down') }, { status: 200, body: { ok: true } });
    const api = createTransport({ baseUrl: BASE, apiKey: 'k', fetch });
    const done = api.request({ method: 'GET', path: '/api/v1/clients' });
    await vi.advanceTimersByTimeAsync(1999);
    expect(sent).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    await expect(done).resolves.toMatchObject({ body: { ok: true } });
    expect(sent[1]!.at - sent[0]!.at).toBeGreaterThanOrEqual(2000);
  });

  it('backs off exponentially without Retry-After and gives up after maxRetries with the last error', async () => {
    vi.useFakeTimers();
    const { fetch, sent } = fakeFetch({ status: 503 }, { status: 503 }, { status: 503, body: errorBody('UNAVAILABLE', 'down') });
    const api = createTransport({ baseUrl: BASE, apiKey: 'k', fetch, maxRetries: 2 });
    const done = api.request({ method: 'GET', path: '/x' }).catch((err: unknown) => err);
    await vi.runAllTimersAsync();
    const err = await done;
    expect(err).toBeInstanceOf(PsaApiError);
    expect(err).toMatchObject({ status: 503, code: 'UNAVAILABLE', message: 'down' });
    expect(sent.map((r) => r.at - sent[0]!.at)).toEqual([0, 500, 1500]);
  });

  it('fails at once when Retry-After is longer than maxRetryDelayMs, and never retries other errors', async () => {
    const { fetch, sent } = fakeFetch({ status: 429, headers: { 'retry-after': '60' } }, { status: 500, body: errorBody('INTERNAL', 'oops') });
    const api = createTransport({ baseUrl: BASE, apiKey: 'k', fetch, maxRetryDelayMs: 1000 });
    await expect(api.request({ method: 'GET', path: '/x' })).rejects.toMatchObject({ status: 429, code: 'HTTP_429' });
    await expect(api.request({ method: 'GET', path: '/x' })).rejects.toMatchObject({ status: 500, code: 'INTERNAL' });
    expect(sent).toHaveLength(2);
  });

  it('stops waiting for a retry when the signal aborts', async () => {
    const { fetch } = fakeFetch({ status: 503, headers: { 'retry-after': '20' } });
    const api = createTransport({ baseUrl: BASE, apiKey: 'k', fetch });
    const controller = new AbortController();
    const done = api.request({ method: 'GET', path: '/x', signal: controller.signal });
    setTimeout(() => controller.abort(new Error('stop')), 10);
    await expect(done).rejects.toThrow('stop');
  });
});

describe('PsaApiError', () => {
  it('takes the envelope apart: code, message, details and request_id as requestId', async () => {
    const body = errorBody('VALIDATION_ERROR', 'bad body', { details: [{ path: '/title' }], request_id: 'req-1' });
    const { fetch } = fakeFetch({ status: 400, body });
    const err = await createTransport({ baseUrl: BASE, apiKey: 'k', fetch }).request({ method: 'GET', path: '/x' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PsaApiError);
    expect(err).toMatchObject({ name: 'PsaApiError', status: 400, code: 'VALIDATION_ERROR', message: 'bad body', details: [{ path: '/title' }], requestId: 'req-1', body });
  });

  it('falls back to the X-Request-Id header and HTTP_<status> for a body that is not the envelope', async () => {
    const { fetch } = fakeFetch({ status: 502, body: 'Bad Gateway', headers: { 'x-request-id': 'req-2' } });
    const err = await createTransport({ baseUrl: BASE, apiKey: 'k', fetch }).request({ method: 'GET', path: '/x' }).catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 502, code: 'HTTP_502', message: 'HTTP 502', requestId: 'req-2', body: 'Bad Gateway', details: undefined });
  });
});

describe('createTransportFetch', () => {
  const post = (body: string, headers: Record<string, string> = {}) =>
    new Request(`${BASE}/api/v1/clients`, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } });

  it('adds the transport headers and hands a 2xx Response back unread', async () => {
    const { fetch, sent } = fakeFetch({ status: 201, body: { data: { id: 1 } } });
    const res = await createTransportFetch({ baseUrl: BASE, apiKey: 'k', fetch })(post('{"a":1}', { 'X-Extra': 'y' }));
    expect(res.status).toBe(201);
    expect(await res.json()).toEqual({ data: { id: 1 } });
    expect(sent[0]).toMatchObject({ method: 'POST', body: '{"a":1}', headers: { 'x-api-key': 'k', 'x-extra': 'y', 'content-type': 'application/json' } });
    expect(sent[0]!.headers['idempotency-key']).toMatch(UUID);
  });

  it('sends the body and Idempotency-Key again on a retry, and honours a key set on the Request', async () => {
    vi.useFakeTimers();
    const { fetch, sent } = fakeFetch({ status: 503 }, { status: 201, body: {} });
    const request = Object.assign(post('{"b":2}'), { idempotencyKey: 'set-on-request' });
    const done = createTransportFetch({ baseUrl: BASE, apiKey: 'k', fetch })(request);
    await vi.runAllTimersAsync();
    expect((await done).status).toBe(201);
    expect(sent.map((r) => [r.body, r.headers['idempotency-key']])).toEqual([['{"b":2}', 'set-on-request'], ['{"b":2}', 'set-on-request']]);
  });

  it('throws a non-2xx answer as PsaApiError', async () => {
    const { fetch } = fakeFetch({ status: 404, body: errorBody('NOT_FOUND', 'no such client', { request_id: 'r-9' }) });
    const call = createTransportFetch({ baseUrl: BASE, apiKey: 'k', fetch })(new Request(`${BASE}/api/v1/clients/1`));
    await expect(call).rejects.toMatchObject({ name: 'PsaApiError', status: 404, code: 'NOT_FOUND', requestId: 'r-9' });
  });
});
