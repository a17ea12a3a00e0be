import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/harness.ts';
import { makeTenant, makeUser, type Api } from '../../../../test/factories.ts';
import { anonymous, expectError, makeClient } from '../../../../test/client-factories.ts';
import type { Actor } from '../../../platform/auth/context.ts';
import type { SuggestionStatus } from '../../../platform/db/schema.opportunities.ts';
import { newId } from '../../../platform/ids.ts';
import { createManagementService } from './management.service.ts';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => t.close());

const OPPS = '/api/v1/opportunities';
const QUEUE = `${OPPS}/work-queue`;

const actorOf = (tenant: string, userId: string): Actor => ({
  tenant, tenantSlug: 'x', userId, apiKeyId: newId(), userType: 'internal', clientId: null, contactId: null, permissions: new Set(), scopes: null,
});

async function makeDeal(api: Api, body: Record<string, unknown>): Promise<string> {
  const res = await api.post(OPPS, { title: 'Deal', opportunity_type: 'expansion', currency_code: 'USD', next_action: 'Call', next_action_due: '2026-12-01T10:00:00.000Z', ...body });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data.opportunity_id as string;
}

/** Moves a deal's clock fields (its due time mirrors its current step's). */
async function setClock(tenant: string, id: string, due: string, lastActivity: string) {
  const db = t.database.db;
  const opp = await db.updateTable('opportunities').set({ next_action_due: new Date(due), last_activity_at: new Date(lastActivity) }).where('tenant', '=', tenant).where('opportunity_id', '=', id).returning('current_step_id').executeTakeFirstOrThrow();
  await db.updateTable('opportunity_steps').set({ due_at: new Date(due) }).where('tenant', '=', tenant).where('step_id', '=', opp.current_step_id!).execute();
}

async function suggestion(tenant: string, clientId: string, title: string, status: SuggestionStatus, createdAt: string, snoozedUntil: string | null = null) {
  const id = newId();
  await t.database.db
    .insertInto('opportunity_suggestions')
    .values({
      tenant, suggestion_id: id, generator_key: 'whitespace', client_id: clientId, title, mrr_cents: 1200, nrr_cents: 300, currency_code: 'USD',
      status, snoozed_until: snoozedUntil ? new Date(snoozedUntil) : null, dedupe_key: `k-${id}`, created_at: new Date(createdAt),
    })
    .execute();
  return id;
}

describe('work queue', () => {
  it("sorts the caller's own open deals into do today and going quiet by a controlled clock; totals per currency; waiting suggestions", async () => {
    const { tenant, admin } = await makeTenant(t);
    const q = await makeUser(t, tenant, { role: 'Manager' });
    await t.database.db.updateTable('users').set({ first_name: 'Quinn' }).where('tenant', '=', tenant).where('user_id', '=', q.userId).execute();
    const acme = await makeClient(admin, { client_name: 'Acme' });
    const beta = await makeClient(admin, { client_name: 'Beta' });
    const other = await makeClient(admin, { client_name: 'Other' });
    const mine = (body: Record<string, unknown>) => makeDeal(q.api, { client_id: acme.client_id, ...body });

    // now = 2026-06-15T10:00Z: tomorrow starts 2026-06-16T00:00Z; nudge 14 days → quiet before 2026-06-01T10:00Z.
    const d1 = await mine({ title: 'D1', mrr_cents: 1000, nrr_cents: 200, hardware_cents: 30 });
    const d2 = await mine({ title: 'D2', mrr_cents: 500 });
    const d3 = await makeDeal(q.api, { client_id: beta.client_id, title: 'D3', currency_code: 'EUR', mrr_cents: 700, hardware_cents: 5 });
    const d4 = await mine({ title: 'D4', mrr_cents: 40 });
    const d5 = await mine({ title: 'D5', nrr_cents: 9 });
    const d6 = await mine({ title: 'D6', currency_code: 'EUR', mrr_cents: 60, nrr_cents: 6 });
    await setClock(tenant, d1, '2026-06-12T09:00:00.000Z', '2026-06-10T10:00:00.000Z'); // due 3 days ago
    await setClock(tenant, d2, '2026-06-15T23:59:59.999Z', '2026-06-15T09:00:00.000Z'); // due later today
    await setClock(tenant, d3, '2026-06-14T23:30:00.000Z', '2026-06-14T10:00:00.001Z'); // due yesterday (1 day overdue)
    await setClock(tenant, d4, '2026-06-16T00:00:00.000Z', '2026-05-20T10:00:00.000Z'); // due tomorrow; quiet 26 days
    await setClock(tenant, d5, '2026-06-20T00:00:00.000Z', '2026-06-01T10:00:00.000Z'); // exactly 14 days: not older
    await setClock(tenant, d6, '2026-07-01T00:00:00.000Z', '2026-05-01T00:00:00.000Z'); // quiet 45 days (oldest)
    // Not the caller's: another owner's overdue deal, the caller's won deal.
    const theirs = await makeDeal(admin, { client_id: other.client_id, mrr_cents: 99 });
    await setClock(tenant, theirs, '2026-06-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z');
    const won = await mine({ title: 'Won', mrr_cents: 77777 });
    expect((await q.api.post(`${OPPS}/${won}/win`, {})).statusCode).toBe(200);

    const s1 = await suggestion(tenant, acme.client_id, 'Backup for Acme', 'pending', '2026-06-01T00:00:00.000Z');
    const s2 = await suggestion(tenant, beta.client_id, 'Snooze ended', 'snoozed', '2026-06-02T00:00:00.000Z', '2026-06-15T10:00:00.000Z');
    await suggestion(tenant, beta.client_id, 'Still snoozed', 'snoozed', '2026-06-03T00:00:00.000Z', '2026-06-15T10:00:00.001Z');
    await suggestion(tenant, acme.client_id, 'Dismissed', 'dismissed', '2026-06-04T00:00:00.000Z');
    await suggestion(tenant, other.client_id, 'Not my client', 'pending', '2026-06-05T00:00:00.000Z');

    const service = createManagementService({ db: t.database.db, now: () => new Date('2026-06-15T10:00:00.000Z') });
    const queue = await service.workQueue(actorOf(tenant, q.userId));
    expect(queue.user_first_name).toBe('Quinn');
    expect(queue.date).toBe('2026-06-15');
    expect(queue.found_totals).toEqual([
      { currency_code: 'EUR', mrr_cents: 760, nrr_cents: 6, hardware_cents: 5 }, // D3 + D6
      { currency_code: 'USD', mrr_cents: 1540, nrr_cents: 209, hardware_cents: 30 }, // D1 + D2 + D4 + D5 (not the won deal)
    ]);
    const brief = (items: typeof queue.do_today) => items.map((i) => [i.kind, i.title, i.days_overdue, i.days_since_activity, i.is_screen_primary]);
    expect(brief(queue.do_today)).toEqual([
      ['action_due', 'D1', 3, 5, true],
      ['action_due', 'D3', 1, 0, false],
      ['action_due', 'D2', 0, 0, false],
    ]);
    expect(queue.do_today[0]).toEqual({
      kind: 'action_due', opportunity_id: d1, opportunity_number: expect.stringMatching(/^OPP-/), title: 'D1', client_id: acme.client_id, client_name: 'Acme',
      stage: 'identified', mrr_cents: 1000, nrr_cents: 200, hardware_cents: 30, currency_code: 'USD', next_action: 'Call',
      next_action_due: '2026-06-12T09:00:00.000Z', days_overdue: 3, days_since_activity: 5, is_screen_primary: true,
    });
    expect(brief(queue.going_quiet)).toEqual([
      ['going_quiet', 'D6', 0, 45, false],
      ['going_quiet', 'D4', 0, 26, false],
    ]);
    expect(queue.going_quiet.map((i) => i.opportunity_id)).toEqual([d6, d4]);
    expect(queue.money_found.map((s) => [s.suggestion_id, s.title, s.client_name, s.status])).toEqual([
      [s2, 'Snooze ended', 'Beta', 'snoozed'],
      [s1, 'Backup for Acme', 'Acme', 'pending'],
    ]);
    expect(queue.money_found[1]).toMatchObject({ generator_key: 'whitespace', mrr_cents: 1200, nrr_cents: 300, currency_code: 'USD', snoozed_until: null, created_at: '2026-06-01T00:00:00.000Z' });

    // The nudge setting moves the quiet line: 30 days leaves only D6.
    await t.database.db.insertInto('opportunity_settings').values({ tenant, nudge_days: 30, updated_at: new Date() }).onConflict((oc) => oc.column('tenant').doUpdateSet({ nudge_days: 30 })).execute();
    expect((await service.workQueue(actorOf(tenant, q.userId))).going_quiet.map((i) => i.title)).toEqual(['D6']);
    // A day later, D4 is due today (0 days overdue) and D2 is one day overdue.
    const tomorrow = createManagementService({ db: t.database.db, now: () => new Date('2026-06-16T00:00:00.000Z') });
    const next = await tomorrow.workQueue(actorOf(tenant, q.userId));
    expect(next.date).toBe('2026-06-16');
    expect(brief(next.do_today)).toEqual([
      ['action_due', 'D1', 4, 5, true],
      ['action_due', 'D3', 2, 1, false],
      ['action_due', 'D2', 1, 0, false],
      ['action_due', 'D4', 0, 26, false],
    ]);
  });

  it('over HTTP: the caller\'s queue (empty for a user with no deals); 400 for parameters; 401; 403', async () => {
    const { tenant, admin } = await makeTenant(t);
    const client = await makeClient(admin);
    const id = await makeDeal(admin, { client_id: client.client_id, mrr_cents: 250, next_action_due: new Date(Date.now() - 3_600_000).toISOString() });
    const res = await admin.get(QUEUE);
    expect(res.statusCode, res.body).toBe(200);
    const data = res.json().data;
    expect(data.date).toBe(new Date().toISOString().slice(0, 10));
    expect(data.do_today.map((i: { opportunity_id: string; is_screen_primary: boolean }) => [i.opportunity_id, i.is_screen_primary])).toEqual([[id, true]]);
    expect(data.found_totals).toEqual([{ currency_code: 'USD', mrr_cents: 250, nrr_cents: 0, hardware_cents: 0 }]);
    expect(data).toMatchObject({ going_quiet: [], money_found: [] });

    const finance = await makeUser(t, tenant, { role: 'Finance' });
    expect((await finance.api.get(QUEUE)).json().data).toMatchObject({ user_first_name: 'Test', found_totals: [], do_today: [], going_quiet: [], money_found: [] });
    expectError(await admin.get(`${QUEUE}?owner_id=${id}`), 400, 'VALIDATION_ERROR');
    expectError(await anonymous(t).get(QUEUE), 401, 'UNAUTHORIZED');
    const tech = (await makeUser(t, tenant, { role: 'Technician' })).api;
    expectError(await tech.get(QUEUE), 403, 'FORBIDDEN');
  });
});
