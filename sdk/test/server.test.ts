import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { makeUser } from '../../test/factories.ts';
import { PsaApiError } from '../src/index.ts';
import { spyFetch, startServer, uniqueWord, type LiveServer } from './server-kit.ts';

let server: LiveServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => server?.close());

async function newClient(name = uniqueWord('Acme')) {
  const { data } = await server.client().POST('/api/v1/clients', { body: { client_name: name, billing_cycle: 'monthly' } });
  return data.data;
}

async function caught(promise: Promise<unknown>): Promise<PsaApiError> {
  const err = await promise.then(() => undefined, (e: unknown) => e);
  expect(err).toBeInstanceOf(PsaApiError);
  return err as PsaApiError;
}

describe('the typed client against a running server', () => {
  it('creates a client and a ticket and reads the ticket back, typed by path and method', async () => {
    const psa = server.client();
    const name = uniqueWord('Acme');
    const { data: created, response } = await psa.POST('/api/v1/clients', { body: { client_name: name, billing_cycle: 'monthly' } });
    expect(response.status).toBe(201);
    expect(created.data).toMatchObject({ client_name: name, billing_cycle: 'monthly', is_inactive: false });
    expectTypeOf(created.data.client_name).toEqualTypeOf<string>();

    const { data: ticket } = await psa.POST('/api/v1/tickets', { body: { title: 'Printer on fire', client_id: created.data.client_id } });
    expect(ticket.data).toMatchObject({ title: 'Printer on fire', client_id: created.data.client_id, ticket_number: expect.stringMatching(/^T-\d+$/) });

    const { data: fetched } = await psa.GET('/api/v1/tickets/{ticketId}', { params: { path: { ticketId: ticket.data.ticket_id } } });
    expect(fetched.data).toMatchObject({ ticket_id: ticket.data.ticket_id, title: 'Printer on fire' });
    expectTypeOf(fetched.data.ticket_id).toEqualTypeOf<string>();

    const { data: renamed } = await psa.PUT('/api/v1/tickets/{ticketId}', { params: { path: { ticketId: ticket.data.ticket_id } }, body: { title: 'Printer fixed' } });
    expect(renamed.data.title).toBe('Printer fixed');
  });

  it('throws a 404 as PsaApiError with the envelope code and request id', async () => {
    const err = await caught(server.client().GET('/api/v1/tickets/{ticketId}', { params: { path: { ticketId: randomUUID() } } }));
    expect(err).toMatchObject({ status: 404, code: 'NOT_FOUND', requestId: expect.any(String) });
    expect(err.requestId!.length).toBeGreaterThan(0);
  });

  it('throws a 400 with the validation details; the types refuse the same body before it is sent', async () => {
    const client = await newClient();
    // @ts-expect-error title is required by POST /api/v1/tickets
    const err = await caught(server.client().POST('/api/v1/tickets', { body: { client_id: client.client_id } }));
    expect(err).toMatchObject({ status: 400, code: 'VALIDATION_ERROR', requestId: expect.any(String) });
    expect(JSON.stringify(err.details)).toContain('title');
  });

  it('creates once for the same explicit Idempotency-Key (as an option or a header), and refuses it for another body', async () => {
    const psa = server.client();
    const key = `sdk-${randomUUID()}`;
    const body = { client_name: uniqueWord('Idem'), billing_cycle: 'monthly' as const };
    const first = await psa.POST('/api/v1/clients', { body, idempotencyKey: key });
    const again = await psa.POST('/api/v1/clients', { body, headers: { 'Idempotency-Key': key } });
    expect(again.data.data.client_id).toBe(first.data.data.client_id);
    expect(again.response.headers.get('idempotent-replayed')).toBe('true');
    const { data: list } = await psa.GET('/api/v1/clients', { params: { query: { search: body.client_name } } });
    expect(list.pagination.total).toBe(1);
    const conflict = await caught(psa.POST('/api/v1/clients', { body: { ...body, client_name: `${body.client_name}x` }, idempotencyKey: key }));
    expect(conflict).toMatchObject({ status: 409, code: 'CONFLICT' });
  });

  it('makes a retried create safe: the answer lost to a 503 is replayed under the same default key, not made twice', async () => {
    // The first try reaches the server and creates the client, but its caller sees a 503 instead.
    const { fetch, calls } = spyFetch(async (call, request) => {
      if (call > 0) return undefined;
      await (await globalThis.fetch(request)).arrayBuffer();
      return new Response(JSON.stringify({ error: { code: 'UNAVAILABLE', message: 'gateway lost the answer' } }), { status: 503, headers: { 'retry-after': '0' } });
    });
    const name = uniqueWord('Lost');
    const { data, response } = await server.client({ fetch }).POST('/api/v1/clients', { body: { client_name: name, billing_cycle: 'weekly' } });
    expect(calls.map((c) => c.status)).toEqual([503, 201]);
    expect(calls[0]!.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
    expect(calls[1]!.idempotencyKey).toBe(calls[0]!.idempotencyKey);
    expect(response.headers.get('idempotent-replayed')).toBe('true');
    const { data: list } = await server.client().GET('/api/v1/clients', { params: { query: { search: name } } });
    expect(list.data.map((c) => c.client_id)).toEqual([data.data.client_id]);
  });

  it('waits out a real 429 for its Retry-After and then succeeds', async () => {
    const slow = await makeUser(server.t, server.tenant.tenant, { role: 'Viewer', rateLimit: { burst: 1, per_minute: 60 } });
    const { fetch, calls } = spyFetch();
    const psa = server.client({ apiKey: slow.api.key, fetch });
    await psa.GET('/api/v1/countries');
    const { data } = await psa.GET('/api/v1/countries');
    expect(Array.isArray(data.data)).toBe(true);
    expect(calls.map((c) => c.status)).toEqual([200, 429, 200]);
    const retryAfter = Number(calls[1]!.retryAfter);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(calls[2]!.at - calls[1]!.at).toBeGreaterThanOrEqual(retryAfter * 1000);
  });

  it('searches', async () => {
    const word = uniqueWord('zebra');
    const client = await newClient();
    const { data: ticket } = await server.client().POST('/api/v1/tickets', { body: { title: `Badge reader ${word}`, client_id: client.client_id } });
    const { data } = await server.client().GET('/api/v1/search', { params: { query: { query: word, types: 'ticket' } } });
    expect(data.data.results.map((r) => r.id)).toEqual([ticket.data.ticket_id]);
    expect(data.data.totalCount).toBe(1);
  });
});
