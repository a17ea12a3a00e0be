import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../harness.ts';
import { makeTenant } from '../factories.ts';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => { await t.close(); });

describe('smoke', () => {
  it('serves countries to a valid key', async () => {
    const { admin } = await makeTenant(t);
    const res = await admin.get('/api/v1/countries');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.length).toBeGreaterThan(200);
  });
});
