import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/harness.ts';
import { makeTenant } from '../../../../test/factories.ts';
import { makeClient } from '../../../../test/client-factories.ts';
import { seededRandom } from '../../../../test/random.ts';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => t.close());

/** n / d rounded half to even, on bigints: the reference the API's figures are checked against. */
function halfEven(n: bigint, d: bigint): bigint {
  const q = n / d;
  const r = n % d;
  return 2n * r > d || (2n * r === d && q % 2n !== 0n) ? q + 1n : q;
}

interface Item { item_id: string; quantity: number; unit_price_cents: number; tax_percentage: number; total_cents: number; tax_cents: number }

describe('invoice totals (property-style, through the API)', () => {
  it('over many random invoices and edits, every line is exact and the totals always equal the sum of the lines', async () => {
    const next = seededRandom(17_2026);
    const { admin } = await makeTenant(t);
    const rates = [null];
    for (const [name, percentage] of [['Reduced', 5], ['NY', 8.875], ['Standard', 20], ['Odd', 7.125]] as const) {
      rates.push((await admin.post('/api/v1/tax-rates', { name, percentage })).json().data.tax_rate_id);
    }
    const client = await makeClient(admin);
    const randomItem = () => ({
      description: 'Line',
      quantity: (Math.floor(next() * 1_000_000) + 1) / 10_000,
      unit_price_cents: Math.floor(next() * 5_000_000),
      tax_rate_id: rates[Math.floor(next() * rates.length)],
    });
    const check = (invoice: { items: Item[]; subtotal_cents: number; tax_cents: number; total_cents: number; balance_cents: number }) => {
      let sub = 0n;
      let tax = 0n;
      for (const i of invoice.items) {
        const amount = halfEven(BigInt(Math.round(i.quantity * 10_000)) * BigInt(i.unit_price_cents), 10_000n);
        const lineTax = halfEven(amount * BigInt(Math.round(i.tax_percentage * 1000)), 100_000n);
        expect([i.total_cents, i.tax_cents]).toEqual([Number(amount), Number(lineTax)]);
        sub += amount;
        tax += lineTax;
      }
      expect([invoice.subtotal_cents, invoice.tax_cents, invoice.total_cents, invoice.balance_cents]).toEqual([Number(sub), Number(tax), Number(sub + tax), Number(sub + tax)]);
    };
    for (let n = 0; n < 25; n++) {
      const items = Array.from({ length: 1 + Math.floor(next() * 8) }, randomItem);
      const res = await admin.post('/api/v1/invoices', { client_id: client.client_id, items });
      expect(res.statusCode, res.body).toBe(201);
      const id = res.json().data.invoice_id as string;
      check(res.json().data);
      // Random edits: add a line, change one, remove one; the totals follow every time.
      await admin.post(`/api/v1/invoices/${id}/items`, randomItem());
      let current = (await admin.get(`/api/v1/invoices/${id}`)).json().data;
      check(current);
      const target = current.items[Math.floor(next() * current.items.length)] as Item;
      const { description: _d, ...change } = randomItem();
      expect((await admin.put(`/api/v1/invoices/${id}/items/${target.item_id}`, change)).statusCode).toBe(200);
      current = (await admin.get(`/api/v1/invoices/${id}`)).json().data;
      check(current);
      if (current.items.length > 1) {
        expect((await admin.delete(`/api/v1/invoices/${id}/items/${current.items[0].item_id}`)).statusCode).toBe(204);
        current = (await admin.get(`/api/v1/invoices/${id}`)).json().data;
        check(current);
      }
    }
  });
});
