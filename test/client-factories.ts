import { randomUUID } from 'node:crypto';
import type { InjectOptions } from 'light-my-request';
import { expect } from 'vitest';
import type { TestApp } from './harness.ts';
import { unique, type Api, type Res } from './factories.ts';

/** Shared helpers for the clients and contacts suites: records made through the API, and raw look-ups. */

export interface ClientJson {
  client_id: string;
  client_name: string;
  client_type: string;
  billing_cycle: string;
  email: string | null;
  phone_no: string | null;
  address: string | null;
  payment_terms: string | null;
  default_currency_code: string;
  client_since: string | null;
  tax_id_number: string | null;
  is_inactive: boolean;
  merged_into_client_id: string | null;
  merged_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface LocationJson {
  location_id: string;
  client_id: string;
  location_name: string | null;
  email: string | null;
  phone: string | null;
  city: string | null;
  country_code: string;
  country_name: string;
  is_default: boolean;
  is_active: boolean;
  created_at: string;
  updated_at: string;
}

export interface ContactJson {
  contact_id: string;
  client_id: string | null;
  full_name: string;
  email: string | null;
  phone: string | null;
  role: string | null;
  is_inactive: boolean;
  created_at: string;
  updated_at: string;
}

/** A client that sends no API key at all. */
export function anonymous(t: TestApp): Api {
  const request = (opts: InjectOptions) => t.app.inject(opts) as Promise<Res>;
  const withBody = (method: 'POST' | 'PUT') => (url: string, body?: unknown, headers?: Record<string, string>) =>
    request({ method, url, headers, ...(body === undefined ? {} : { payload: body as InjectOptions['payload'] }) });
  return {
    key: '',
    request,
    get: (url, headers) => request({ method: 'GET', url, headers }),
    post: withBody('POST'),
    put: withBody('PUT'),
    delete: (url, headers) => request({ method: 'DELETE', url, headers }),
  };
}

/** A well-formed UUID that names nothing. */
export const randomId = (): string => randomUUID();

export const US = { country_code: 'US', country_name: 'United States' } as const;

export function expectStatus(res: Res, status: number): void {
  expect(res.statusCode, res.body).toBe(status);
}

export function expectError(res: Res, status: number, code: string): void {
  expect(res.statusCode, res.body).toBe(status);
  expect(res.json().error.code, res.body).toBe(code);
}

export async function makeClient(api: Api, body: Record<string, unknown> = {}): Promise<ClientJson> {
  const res = await api.post('/api/v1/clients', { client_name: unique('Client'), billing_cycle: 'monthly', ...body });
  expectStatus(res, 201);
  return res.json().data as ClientJson;
}

export async function makeLocation(api: Api, clientId: string, body: Record<string, unknown> = {}): Promise<LocationJson> {
  const res = await api.post(`/api/v1/clients/${clientId}/locations`, { ...US, ...body });
  expectStatus(res, 201);
  return res.json().data as LocationJson;
}

export async function makeContact(api: Api, body: Record<string, unknown> = {}): Promise<ContactJson> {
  const res = await api.post('/api/v1/contacts', { full_name: unique('Contact'), ...body });
  expectStatus(res, 201);
  return res.json().data as ContactJson;
}

export async function getClient(api: Api, clientId: string): Promise<ClientJson> {
  const res = await api.get(`/api/v1/clients/${clientId}`);
  expectStatus(res, 200);
  return res.json().data as ClientJson;
}

export async function defaultProfileId(api: Api, clientId: string): Promise<string> {
  const res = await api.get(`/api/v1/clients/${clientId}/billing-profiles`);
  expectStatus(res, 200);
  return (res.json().data as { billing_profile_id: string; is_default: boolean }[]).find((p) => p.is_default)!.billing_profile_id;
}

/** Turns a client into a merge tombstone directly in SQL (the merge endpoint belongs to a later area). */
export async function tombstone(t: TestApp, tenant: string, clientId: string, intoClientId: string): Promise<void> {
  await t.database.db
    .updateTable('clients')
    .set({ merged_into_client_id: intoClientId, merged_at: new Date() })
    .where('tenant', '=', tenant)
    .where('client_id', '=', clientId)
    .execute();
}

export interface EventJson {
  event_type: string;
  aggregate_type: string;
  aggregate_id: string;
  payload: Record<string, unknown>;
}

/** The tenant's outbox rows for one aggregate, oldest first. */
export async function eventsOf(t: TestApp, tenant: string, aggregateId: string): Promise<EventJson[]> {
  const rows = await t.database.db
    .selectFrom('events')
    .select(['event_type', 'aggregate_type', 'aggregate_id', 'payload'])
    .where('tenant', '=', tenant)
    .where('aggregate_id', '=', aggregateId)
    .orderBy('event_id', 'asc')
    .execute();
  return rows.map((r) => ({ ...r, payload: (typeof r.payload === 'string' ? JSON.parse(r.payload) : r.payload) as Record<string, unknown> }));
}
