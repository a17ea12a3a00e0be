import { sql } from 'kysely';
import { expect } from 'vitest';
import type { Actor } from '../src/platform/auth/context.ts';
import type { Api } from './factories.ts';
import { unique } from './factories.ts';
import type { TestApp } from './harness.ts';

/**
 * Fixtures for the opportunity suggestion generators and the QBR pack: the billing, asset and ticket
 * records their signals read, made through the API (direct updates only to back-date rows).
 */

/** A calendar day `days` from today (UTC), YYYY-MM-DD. */
export const dayFromToday = (days: number): string => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);

/** The calendar day `years` before today (UTC), shifted by `days`. */
export function yearsAgo(years: number, days = 0): string {
  const d = new Date();
  d.setUTCFullYear(d.getUTCFullYear() - years);
  return new Date(d.getTime() + days * 86_400_000).toISOString().slice(0, 10);
}

export async function serviceTypeId(api: Api, name: string): Promise<string> {
  const res = await api.get(`/api/v1/service-types?search=${encodeURIComponent(name)}`);
  expect(res.statusCode, res.body).toBe(200);
  const found = (res.json().data as { service_type_id: string; name: string }[]).find((x) => x.name === name);
  expect(found, `service type ${name}`).toBeDefined();
  return found!.service_type_id;
}

/** A fixed-priced catalogue service of the given service type. */
export async function makeService(api: Api, typeName: string): Promise<string> {
  const res = await api.post('/api/v1/services', { service_name: unique('Service'), custom_service_type_id: await serviceTypeId(api, typeName), billing_method: 'fixed', unit_of_measure: 'month' });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data.service_id;
}

/** A fixed contract line (optionally carrying catalogue services). */
export async function makeFixedLine(api: Api, opts: { base_rate_cents?: number; billing_frequency?: string; currency_code?: string; serviceIds?: string[] } = {}): Promise<string> {
  const res = await api.post('/api/v1/contract-lines', {
    contract_line_name: unique('Line'),
    contract_line_type: 'fixed',
    billing_frequency: opts.billing_frequency ?? 'monthly',
    ...(opts.currency_code ? { currency_code: opts.currency_code } : {}),
    config: { base_rate_cents: opts.base_rate_cents ?? 100_000 },
  });
  expect(res.statusCode, res.body).toBe(201);
  const id = res.json().data.contract_line_id as string;
  for (const serviceId of opts.serviceIds ?? []) {
    const add = await api.post(`/api/v1/contract-lines/${id}/services`, { service_id: serviceId });
    expect(add.statusCode, add.body).toBe(201);
  }
  return id;
}

export interface ContractFixture {
  contract_id: string;
  client_contract_id: string;
}

/** A contract for the client (active by default) with the lines attached. */
export async function makeContract(
  api: Api,
  clientId: string,
  opts: { end_date?: string | null; status?: string; currency_code?: string; lines?: (string | { id: string; custom_rate_cents: number })[]; contract_name?: string } = {},
): Promise<ContractFixture> {
  const res = await api.post('/api/v1/contracts', {
    client_id: clientId,
    contract_name: opts.contract_name ?? unique('Contract'),
    start_date: yearsAgo(1),
    end_date: opts.end_date === undefined ? null : opts.end_date,
    ...(opts.currency_code ? { currency_code: opts.currency_code } : {}),
  });
  expect(res.statusCode, res.body).toBe(201);
  const c = res.json().data;
  for (const line of opts.lines ?? []) {
    const body = typeof line === 'string' ? { contract_line_id: line } : { contract_line_id: line.id, custom_rate_cents: line.custom_rate_cents };
    const attach = await api.post(`/api/v1/contracts/${c.contract_id}/contract-lines`, body);
    expect(attach.statusCode, attach.body).toBe(201);
  }
  const status = opts.status ?? 'active';
  if (status !== 'draft') {
    const up = await api.put(`/api/v1/contracts/${c.contract_id}`, { status });
    expect(up.statusCode, up.body).toBe(200);
  }
  return { contract_id: c.contract_id, client_contract_id: c.client_contract.client_contract_id };
}

/** A hand-made (time-and-materials) invoice, finalized unless `draft`. */
export async function makeTmInvoice(api: Api, clientId: string, opts: { issue_date: string; cents: number; currency_code?: string; draft?: boolean }): Promise<string> {
  const res = await api.post('/api/v1/invoices', {
    client_id: clientId,
    issue_date: opts.issue_date,
    ...(opts.currency_code ? { currency_code: opts.currency_code } : {}),
    items: [{ description: 'On-site work', quantity: 1, unit_price_cents: opts.cents, tax_rate_id: null }],
  });
  expect(res.statusCode, res.body).toBe(201);
  const id = res.json().data.invoice_id as string;
  if (!opts.draft) {
    const fin = await api.post(`/api/v1/invoices/${id}/finalize`, {});
    expect(fin.statusCode, fin.body).toBe(200);
  }
  return id;
}

/** Moves a ticket's creation time back (the API stamps it now). */
export async function backdateTicket(t: TestApp, tenant: string, ticketId: string, daysAgo: number): Promise<void> {
  const at = new Date(Date.now() - daysAgo * 86_400_000);
  await sql`update tickets set entered_at = ${at} where tenant = ${tenant} and ticket_id = ${ticketId}`.execute(t.database.db);
}

/** An actor with every opportunity permission, for calling a service directly (with an injected clock). */
export function actorOf(tenant: string, userId: string): Actor {
  return {
    tenant,
    tenantSlug: 'x',
    userId,
    apiKeyId: userId,
    userType: 'internal',
    clientId: null,
    contactId: null,
    permissions: new Set(['opportunity:read', 'opportunity:create', 'opportunity:update', 'opportunity:delete']),
    scopes: null,
  };
}

/** Row counts of the tables a read must never write. */
export async function rowCounts(t: TestApp, tenant: string): Promise<Record<string, number>> {
  const { db } = t.database;
  const count = async (table: 'opportunity_suggestions' | 'opportunity_qbr_triggers' | 'opportunities' | 'events') => {
    const r = await db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).where('tenant', '=', tenant).executeTakeFirstOrThrow();
    return Number(r.n);
  };
  return {
    opportunity_suggestions: await count('opportunity_suggestions'),
    opportunity_qbr_triggers: await count('opportunity_qbr_triggers'),
    opportunities: await count('opportunities'),
    events: await count('events'),
  };
}
