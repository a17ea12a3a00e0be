import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/harness.ts';
import { makeTenant, makeUser, type Api } from '../../../test/factories.ts';
import { makeClient } from '../../../test/client-factories.ts';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => t.close());

async function ok<T = Record<string, unknown>>(res: Promise<{ statusCode: number; body: string; json(): { data: T } }>, status = 201): Promise<T> {
  const r = await res;
  expect(r.statusCode, r.body).toBe(status);
  return r.json().data;
}

async function line(api: Api, body: Record<string, unknown>): Promise<string> {
  return (await ok<{ contract_line_id: string }>(api.post('/api/v1/contract-lines', { billing_frequency: 'monthly', ...body }))).contract_line_id;
}

describe('billing, end to end through the API', () => {
  it('a finance user builds the catalogue, gives clients contracts with fixed, hourly, usage and bucket lines, and reads the MRR', async () => {
    const { tenant, admin } = await makeTenant(t);
    const finance = (await makeUser(t, tenant, { role: 'Finance' })).api;
    const types = await ok<{ service_type_id: string; name: string }[]>(finance.get('/api/v1/service-types'), 200);
    const managed = types.find((x) => x.name === 'Managed Services')!.service_type_id;
    const support = await ok<{ service_id: string }>(finance.post('/api/v1/services', { service_name: 'Remote support', custom_service_type_id: managed, billing_method: 'hourly', unit_of_measure: 'hour', default_rate: 12000 }));
    const backup = await ok<{ service_id: string }>(finance.post('/api/v1/services', { service_name: 'Cloud backup', custom_service_type_id: managed, billing_method: 'usage', unit_of_measure: 'GB', default_rate: 10 }));

    const acme = await makeClient(admin, { client_name: 'Acme', billing_cycle: 'monthly' });
    const euro = await makeClient(admin, { client_name: 'Euro GmbH', billing_cycle: 'monthly', default_currency_code: 'EUR' });
    const contract = await ok<{ contract_id: string }>(finance.post('/api/v1/contracts', { client_id: acme.client_id, contract_name: 'Acme MSA', start_date: '2026-01-01', status: 'active' }));
    const euroContract = await ok<{ contract_id: string }>(finance.post('/api/v1/contracts', { client_id: euro.client_id, start_date: '2026-01-01', status: 'active' }));

    const desktops = await line(finance, { contract_line_name: 'Managed desktops', contract_line_type: 'fixed', config: { base_rate_cents: 150000 } });
    const network = await line(finance, { contract_line_name: 'Network care', contract_line_type: 'fixed', billing_frequency: 'quarterly', config: { base_rate_cents: 90001 } });
    const helpdesk = await line(finance, { contract_line_name: 'Helpdesk', contract_line_type: 'hourly', config: { hourly_rate_cents: 12000, minimum_billable_minutes: 15 } });
    const storage = await line(finance, { contract_line_name: 'Backup storage', contract_line_type: 'usage', config: { unit_of_measure: 'GB', rate_cents: 10 } });
    const block = await line(finance, { contract_line_name: 'Project hours', contract_line_type: 'bucket', config: { total_minutes: 1200, overage_rate_cents: 15000 } });
    const weekly = await line(finance, { contract_line_name: 'Weekly checks', contract_line_type: 'fixed', billing_frequency: 'weekly', currency_code: 'EUR', config: { base_rate_cents: 1000 } });
    await ok(finance.post(`/api/v1/contract-lines/${helpdesk}/services`, { service_id: support.service_id }));
    await ok(finance.post(`/api/v1/contract-lines/${storage}/services`, { service_id: backup.service_id }));
    await ok(finance.post(`/api/v1/contracts/${contract.contract_id}/contract-lines`, { contract_line_id: desktops, custom_rate_cents: 140000 }));
    for (const id of [network, helpdesk, storage, block]) await ok(finance.post(`/api/v1/contracts/${contract.contract_id}/contract-lines`, { contract_line_id: id }));
    await ok(finance.post(`/api/v1/contracts/${euroContract.contract_id}/contract-lines`, { contract_line_id: weekly }));

    const all = await ok<Record<string, unknown>>(finance.get('/api/v1/billing-analytics/overview'), 200);
    expect(all).toMatchObject({
      total_contracts: 2,
      contracts_by_status: { draft: 0, active: 2, terminated: 0, expired: 0 },
      active_assignments: 2,
      total_contract_lines: 6,
      lines_by_type: { fixed: 3, hourly: 1, usage: 1, bucket: 1 },
      billing_frequency_distribution: { weekly: 1, 'bi-weekly': 0, monthly: 4, quarterly: 1, 'semi-annually': 0, annually: 0 },
      // EUR: 1000 × 52 / 12 = 4333.33… → 4333. USD: 140000 × 12 / 12 + 90001 × 4 / 12 = 140000 + 30000.33… → 170000.
      monthly_recurring_revenue: [{ currency_code: 'EUR', amount_cents: 4333 }, { currency_code: 'USD', amount_cents: 170000 }],
      // USD: (1680000 + 360004) / 24 = 85000.17 → 85000.
      average_revenue_per_line: [{ currency_code: 'EUR', amount_cents: 4333, line_count: 1 }, { currency_code: 'USD', amount_cents: 85000, line_count: 2 }],
    });
    expect((all.top_lines as { contract_line_name: string; monthly_amount_cents: number }[]).map((l) => [l.contract_line_name, l.monthly_amount_cents])).toEqual([
      ['Managed desktops', 140000], ['Network care', 30000], ['Weekly checks', 4333],
    ]);
    const acmeOnly = await ok<{ monthly_recurring_revenue: unknown }>(finance.get(`/api/v1/billing-analytics/overview?client_id=${acme.client_id}`), 200);
    expect(acmeOnly.monthly_recurring_revenue).toEqual([{ currency_code: 'USD', amount_cents: 170000 }]);

    // Terminating the euro contract takes its revenue and its assignment out of the figures.
    await ok(finance.put(`/api/v1/contracts/${euroContract.contract_id}`, { status: 'terminated' }), 200);
    const after = await ok<{ active_assignments: number; monthly_recurring_revenue: unknown }>(finance.get('/api/v1/billing-analytics/overview'), 200);
    expect(after).toMatchObject({ active_assignments: 1, monthly_recurring_revenue: [{ currency_code: 'USD', amount_cents: 170000 }] });
  });
});
