import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/harness.ts';
import { makeTenant, makeUser, type Api } from '../../../../test/factories.ts';
import { makeClient } from '../../../../test/client-factories.ts';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => t.close());

const STATUSES = ['draft', 'finalized', 'sent', 'partially_paid', 'paid', 'void'] as const;
type Status = (typeof STATUSES)[number];

/** An invoice of 10.00 brought to each status through the API. */
async function invoiceIn(api: Api, clientId: string, status: Status): Promise<string> {
  const id = (await api.post('/api/v1/invoices', { client_id: clientId, items: [{ description: 'Work', quantity: 1, unit_price_cents: 1000 }] })).json().data.invoice_id as string;
  const step = async (path: string, body: object = {}) => expect((await api.post(`/api/v1/invoices/${id}/${path}`, body)).statusCode).toBeLessThan(300);
  if (status === 'draft') return id;
  await step('finalize');
  if (status === 'sent') await step('send');
  if (status === 'partially_paid') await step('payments', { amount_cents: 300, method: 'cash' });
  if (status === 'paid') await step('payments', { amount_cents: 1000, method: 'cash' });
  if (status === 'void') await step('void', { reason: 'test' });
  return id;
}

/** Each action's answer from each status: every legal move and every illegal one (409 naming the status). */
const ACTIONS: Record<string, { path: (id: string) => [string, string, object?]; legal: Status[] }> = {
  edit: { path: (id) => ['PUT', `/api/v1/invoices/${id}`, { po_number: 'PO' }], legal: ['draft'] },
  'add item': { path: (id) => ['POST', `/api/v1/invoices/${id}/items`, { description: 'More', quantity: 1, unit_price_cents: 1 }], legal: ['draft'] },
  delete: { path: (id) => ['DELETE', `/api/v1/invoices/${id}`], legal: ['draft'] },
  finalize: { path: (id) => ['POST', `/api/v1/invoices/${id}/finalize`, {}], legal: ['draft'] },
  send: { path: (id) => ['POST', `/api/v1/invoices/${id}/send`, {}], legal: ['finalized'] },
  void: { path: (id) => ['POST', `/api/v1/invoices/${id}/void`, { reason: 'x' }], legal: ['finalized', 'sent'] },
  payment: { path: (id) => ['POST', `/api/v1/invoices/${id}/payments`, { amount_cents: 100, method: 'card' }], legal: ['finalized', 'sent', 'partially_paid'] },
  'credit note': { path: (id) => ['POST', `/api/v1/invoices/${id}/credit-notes`, { amount_cents: 100, reason: 'x' }], legal: ['finalized', 'sent', 'partially_paid', 'paid'] },
  annotation: { path: (id) => ['POST', `/api/v1/invoices/${id}/annotations`, { content: 'x' }], legal: [...STATUSES] },
};

describe('invoice transitions', () => {
  it('every action from every status: legal ones succeed, illegal ones are a 409 naming the current status', async () => {
    const { tenant, admin } = await makeTenant(t);
    const finance = (await makeUser(t, tenant, { role: 'Finance' })).api;
    const client = await makeClient(admin);
    const problems: string[] = [];
    for (const status of STATUSES) {
      for (const [name, action] of Object.entries(ACTIONS)) {
        const id = await invoiceIn(finance, client.client_id, status);
        const [method, url, body] = action.path(id);
        const res = await finance.request({ method: method as 'POST', url, ...(body ? { payload: body } : {}) });
        const legal = action.legal.includes(status);
        // A paid invoice can be voided only after a credit note reverses the payment (tested in invoices.test.ts).
        if (legal && res.statusCode >= 300) problems.push(`${name} from ${status}: expected success, got ${res.statusCode} ${res.body}`);
        if (!legal && (res.statusCode !== 409 || !res.json().error.message.includes(` is ${status}; `))) {
          problems.push(`${name} from ${status}: expected a 409 naming '${status}', got ${res.statusCode} ${res.body.slice(0, 200)}`);
        }
      }
    }
    expect(problems, problems.join('\n')).toEqual([]);
  });
});
