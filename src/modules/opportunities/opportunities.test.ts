import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/harness.ts';
import { makeTenant, makeUser } from '../../../test/factories.ts';
import { anonymous, eventsOf, expectError, makeClient, makeContact, randomId } from '../../../test/client-factories.ts';
import { search } from '../../../test/search-kit.ts';
import { dueIn, makeOpportunity, type OpportunityJson } from '../../../test/opportunity-factories.ts';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => t.close());

const BASE = '/api/v1/opportunities';

describe('opportunities: the deal record', () => {
  it('creates a numbered open deal at stage identified with exactly one current step, owned by the caller; emits opportunity.created', async () => {
    const { tenant, admin, adminUserId } = await makeTenant(t);
    const client = await makeClient(admin, { client_name: 'Initech' });
    const contact = await makeContact(admin, { full_name: 'Bill Lumbergh', client_id: client.client_id });
    const due = dueIn(3);
    const res = await admin.post(BASE, {
      client_id: client.client_id,
      title: '  Office move  ',
      opportunity_type: 'project',
      currency_code: 'eur',
      next_action: 'Send the site survey',
      next_action_due: due,
      contact_id: contact.contact_id,
      confidence: 'high',
      mrr_cents: 150000,
      nrr_cents: 250000,
      hardware_cents: 990000,
      expected_close_date: '2027-01-31',
    });
    expect(res.statusCode, res.body).toBe(201);
    const o = res.json().data as OpportunityJson;
    expect(res.headers.location).toBe(`${BASE}/${o.opportunity_id}`);
    expect(res.headers.etag).toBeTruthy();
    expect(o).toMatchObject({
      opportunity_number: 'OPP-000001', title: 'Office move', client_id: client.client_id, client_name: 'Initech', contact_id: contact.contact_id, contact_name: 'Bill Lumbergh',
      owner_id: adminUserId, opportunity_type: 'project', status: 'open', stage: 'identified', confidence: 'high', currency_code: 'EUR',
      mrr_cents: 150000, nrr_cents: 250000, hardware_cents: 990000, values_locked_by_quote: false, expected_close_date: '2027-01-31',
      next_action: 'Send the site survey', next_action_due: due, is_stalled: false, days_since_activity: 0, won_at: null, lost_at: null,
      linked_quotes: [], open_commitment_count: 0,
    });
    expect(o.ladder).toEqual([
      { checkpoint: 'identified', state: 'reached', evidence: null },
      ...['qualified', 'assessment', 'proposed', 'verbal', 'won'].map((checkpoint) => ({ checkpoint, state: 'pending', evidence: null })),
    ]);
    const steps = (await admin.get(`${BASE}/${o.opportunity_id}/steps`)).json().data;
    expect(steps).toHaveLength(1);
    expect(steps[0]).toMatchObject({ step_id: o.current_step_id, title: 'Send the site survey', status: 'current', due_at: due, completed_at: null });
    expect((await eventsOf(t, tenant, o.opportunity_id)).map((e) => e.event_type)).toEqual(['opportunity.created']);

    const second = await makeOpportunity(admin, client.client_id);
    expect(second.opportunity_number).toBe('OPP-000002');
    const got = await admin.get(`${BASE}/${o.opportunity_id}`);
    expect(got.statusCode).toBe(200);
    expect(got.json().data).toEqual(o);
  });

  it('refuses bad input with a 400 naming the field, never a 500', async () => {
    const { admin } = await makeTenant(t);
    const client = await makeClient(admin);
    const other = await makeClient(admin, { client_name: 'Other Co' });
    const theirs = await makeContact(admin, { full_name: 'Not Ours', client_id: other.client_id });
    const base = { client_id: client.client_id, title: 'Deal', opportunity_type: 'new_logo', currency_code: 'USD', next_action: 'Call', next_action_due: dueIn(1) };
    const bad: [Record<string, unknown>, string][] = [
      [{ ...base, next_action: undefined }, 'next_action'],
      [{ ...base, next_action_due: undefined }, 'next_action_due'],
      [{ ...base, next_action_due: 'tomorrow' }, 'next_action_due'],
      [{ ...base, next_action: '   ' }, 'next_action'],
      [{ ...base, opportunity_type: 'upsell' }, 'opportunity_type'],
      [{ ...base, title: '   ' }, 'title'],
      [{ ...base, currency_code: 'US' }, 'currency_code'],
      [{ ...base, mrr_cents: -1 }, 'mrr_cents'],
      [{ ...base, mrr_cents: 1.5 }, 'mrr_cents'],
      [{ ...base, client_id: randomId() }, 'client_id'],
      [{ ...base, client_id: 'nope' }, 'client_id'],
      [{ ...base, contact_id: theirs.contact_id }, 'contact_id'],
      [{ ...base, owner_id: randomId() }, 'owner_id'],
      [{ ...base, stage: 'verbal' }, 'stage'],
    ];
    for (const [body, field] of bad) {
      const res = await admin.post(BASE, body);
      expectError(res, 400, 'VALIDATION_ERROR');
      expect(res.body, field).toContain(field);
    }
    expectError(await admin.get(`${BASE}/not-a-uuid`), 400, 'VALIDATION_ERROR');
    expectError(await admin.get(`${BASE}?sort=title`), 400, 'VALIDATION_ERROR');
    expectError(await admin.get(`${BASE}?status=closed`), 400, 'VALIDATION_ERROR');
  });

  it('needs a key and the opportunity permissions; another tenant’s deal is a 404', async () => {
    const { tenant, admin } = await makeTenant(t);
    const client = await makeClient(admin);
    const o = await makeOpportunity(admin, client.client_id);
    expectError(await anonymous(t).get(BASE), 401, 'UNAUTHORIZED');
    expectError(await anonymous(t).get(`${BASE}/${o.opportunity_id}`), 401, 'UNAUTHORIZED');
    const tech = (await makeUser(t, tenant, { role: 'Technician' })).api;
    expectError(await tech.get(BASE), 403, 'FORBIDDEN');
    expectError(await tech.get(`${BASE}/${o.opportunity_id}`), 403, 'FORBIDDEN');
    const finance = (await makeUser(t, tenant, { role: 'Finance' })).api;
    expect((await finance.get(`${BASE}/${o.opportunity_id}`)).statusCode).toBe(200);
    expectError(await finance.post(BASE, { client_id: client.client_id }), 403, 'FORBIDDEN');
    expectError(await finance.put(`${BASE}/${o.opportunity_id}`, { title: 'x' }), 403, 'FORBIDDEN');
    expectError(await finance.delete(`${BASE}/${o.opportunity_id}`), 403, 'FORBIDDEN');

    const stranger = (await makeTenant(t)).admin;
    expectError(await stranger.get(`${BASE}/${o.opportunity_id}`), 404, 'NOT_FOUND');
    expectError(await stranger.put(`${BASE}/${o.opportunity_id}`, { title: 'Mine now' }), 404, 'NOT_FOUND');
    expectError(await stranger.delete(`${BASE}/${o.opportunity_id}`), 404, 'NOT_FOUND');
    expect((await stranger.get(BASE)).json().pagination.total).toBe(0);
    expectError(await admin.get(`${BASE}/${randomId()}`), 404, 'NOT_FOUND');
  });

  it('edits an open deal partially with an updated event carrying the changes; the client and next action are not editable here', async () => {
    const { tenant, admin } = await makeTenant(t);
    const client = await makeClient(admin);
    const contact = await makeContact(admin, { full_name: 'Peter Gibbons', client_id: client.client_id });
    const owner = await makeUser(t, tenant, { role: 'Manager' });
    const o = await makeOpportunity(admin, client.client_id);
    const res = await admin.put(`${BASE}/${o.opportunity_id}`, { title: 'Bigger deal', confidence: 'committed', contact_id: contact.contact_id, owner_id: owner.userId, mrr_cents: 5000, expected_close_date: '2027-03-01' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ title: 'Bigger deal', confidence: 'committed', contact_id: contact.contact_id, owner_id: owner.userId, owner_name: 'Test User', mrr_cents: 5000, expected_close_date: '2027-03-01', next_action: o.next_action });
    const updated = (await eventsOf(t, tenant, o.opportunity_id)).filter((e) => e.event_type === 'opportunity.updated');
    expect(updated).toHaveLength(1);
    expect(updated[0]!.payload.changes).toMatchObject({ title: { previous: 'Managed services for the new office', new: 'Bigger deal' }, mrr_cents: { previous: 0, new: 5000 } });

    // Nothing changed: no event.
    expect((await admin.put(`${BASE}/${o.opportunity_id}`, { title: 'Bigger deal' })).statusCode).toBe(200);
    expect((await eventsOf(t, tenant, o.opportunity_id)).filter((e) => e.event_type === 'opportunity.updated')).toHaveLength(1);

    expectError(await admin.put(`${BASE}/${o.opportunity_id}`, { client_id: randomId() }), 400, 'VALIDATION_ERROR');
    expectError(await admin.put(`${BASE}/${o.opportunity_id}`, { next_action: 'Sneak' }), 400, 'VALIDATION_ERROR');
    const tech = await makeUser(t, tenant, { role: 'Technician' });
    expect((await admin.put(`${BASE}/${o.opportunity_id}`, { owner_id: tech.userId })).statusCode).toBe(200);
    const portal = await makeUser(t, tenant, { role: 'Client User', userType: 'client', clientId: client.client_id });
    expectError(await admin.put(`${BASE}/${o.opportunity_id}`, { owner_id: portal.userId }), 400, 'VALIDATION_ERROR');

    // ETag: a stale If-Match is refused.
    const current = await admin.get(`${BASE}/${o.opportunity_id}`);
    const stale = await admin.put(`${BASE}/${o.opportunity_id}`, { title: 'Race' }, { 'if-match': '"stale"' });
    expect(stale.statusCode).toBe(412);
    expect((await admin.put(`${BASE}/${o.opportunity_id}`, { title: 'No race' }, { 'if-match': current.headers.etag as string })).statusCode).toBe(200);
  });

  it('lists with filters, sorts and an exact total on every page (also past the last one)', async () => {
    const { tenant, admin } = await makeTenant(t);
    const acme = await makeClient(admin, { client_name: 'Acme Rockets' });
    const globex = await makeClient(admin, { client_name: 'Globex' });
    const manager = await makeUser(t, tenant, { role: 'Manager' });
    const a = await makeOpportunity(admin, acme.client_id, { title: 'Rocket fleet', mrr_cents: 300, next_action_due: dueIn(5) });
    const b = await makeOpportunity(manager.api, globex.client_id, { title: 'Helpdesk', mrr_cents: 900, opportunity_type: 'expansion', currency_code: 'EUR', next_action_due: dueIn(1) });
    const c = await makeOpportunity(admin, globex.client_id, { title: 'Backup', mrr_cents: 100, next_action_due: dueIn(3) });
    expect((await admin.post(`${BASE}/${c.opportunity_id}/lose`, { loss_reason: 'price' })).statusCode).toBe(200);
    const ids = async (q: string) => {
      const res = await admin.get(`${BASE}${q}`);
      expect(res.statusCode, res.body).toBe(200);
      return (res.json().data as OpportunityJson[]).map((o) => o.opportunity_id);
    };
    // Default: every status, next action due first, closed (no next action) last.
    expect(await ids('')).toEqual([b.opportunity_id, a.opportunity_id, c.opportunity_id]);
    expect(await ids('?status=open')).toEqual([b.opportunity_id, a.opportunity_id]);
    expect(await ids('?status=lost')).toEqual([c.opportunity_id]);
    expect(await ids(`?owner_id=${manager.userId}`)).toEqual([b.opportunity_id]);
    expect(await ids(`?client_id=${globex.client_id}`)).toEqual([b.opportunity_id, c.opportunity_id]);
    expect(await ids('?opportunity_type=expansion')).toEqual([b.opportunity_id]);
    expect(await ids('?currency_code=eur')).toEqual([b.opportunity_id]);
    expect(await ids('?search=rocket')).toEqual([a.opportunity_id]);
    expect(await ids('?search=globex')).toEqual([b.opportunity_id, c.opportunity_id]);
    expect(await ids(`?search=${a.opportunity_number}`)).toEqual([a.opportunity_id]);
    expect(await ids('?stage=lost')).toEqual([c.opportunity_id]);
    expect(await ids('?sort=mrr_cents&order=desc')).toEqual([b.opportunity_id, a.opportunity_id, c.opportunity_id]);
    expect(await ids('?sort=opportunity_number')).toEqual([a.opportunity_id, b.opportunity_id, c.opportunity_id]);

    // Stalled: open and idle for longer than nudge_days (14).
    expect(await ids('?stalled_only=true')).toEqual([]);
    await t.database.db.updateTable('opportunities').set({ last_activity_at: new Date(Date.now() - 15 * 86_400_000) }).where('opportunity_id', 'in', [a.opportunity_id, c.opportunity_id]).execute();
    expect(await ids('?stalled_only=true')).toEqual([a.opportunity_id]);
    expect((await admin.get(`${BASE}/${a.opportunity_id}`)).json().data).toMatchObject({ is_stalled: true, days_since_activity: 15 });
    expect((await admin.get(`${BASE}/${c.opportunity_id}`)).json().data).toMatchObject({ is_stalled: false });

    const page = await admin.get(`${BASE}?limit=2&page=2`);
    expect(page.json().pagination).toMatchObject({ total: 3, page: 2, hasNext: false, hasPrev: true });
    const past = await admin.get(`${BASE}?limit=2&page=9`);
    expect(past.json()).toMatchObject({ data: [], pagination: { total: 3, totalPages: 2 } });
  });

  it('an interaction logged on a stalled deal restarts its activity clock', async () => {
    const { admin } = await makeTenant(t);
    const client = await makeClient(admin);
    const o = await makeOpportunity(admin, client.client_id);
    await t.database.db.updateTable('opportunities').set({ last_activity_at: new Date(Date.now() - 20 * 86_400_000) }).where('opportunity_id', '=', o.opportunity_id).execute();
    expect((await admin.get(`${BASE}/${o.opportunity_id}`)).json().data).toMatchObject({ is_stalled: true, days_since_activity: 20 });
    const logged = await admin.post('/api/v1/interactions', { client_id: client.client_id, opportunity_id: o.opportunity_id, interaction_type: 'call', title: 'Checked in' });
    expect(logged.statusCode, logged.body).toBe(201);
    expect((await admin.get(`${BASE}/${o.opportunity_id}`)).json().data).toMatchObject({ is_stalled: false, days_since_activity: 0 });
  });

  it('deletes an open deal without linked quotes; a closed one is a 409', async () => {
    const { tenant, admin } = await makeTenant(t);
    const client = await makeClient(admin);
    const o = await makeOpportunity(admin, client.client_id);
    expect((await admin.delete(`${BASE}/${o.opportunity_id}`)).statusCode).toBe(204);
    expectError(await admin.get(`${BASE}/${o.opportunity_id}`), 404, 'NOT_FOUND');
    expect((await eventsOf(t, tenant, o.opportunity_id)).map((e) => e.event_type)).toEqual(['opportunity.created', 'opportunity.deleted']);
    expect(await t.database.db.selectFrom('opportunity_steps').select('step_id').where('opportunity_id', '=', o.opportunity_id).execute()).toEqual([]);

    const won = await makeOpportunity(admin, client.client_id);
    expect((await admin.post(`${BASE}/${won.opportunity_id}/win`, {})).statusCode).toBe(200);
    const res = await admin.delete(`${BASE}/${won.opportunity_id}`);
    expectError(res, 409, 'CONFLICT');
    expect(res.json().error.message).toMatch(/is won; only open opportunities can be deleted/);
  });

  it('holds the next-action invariant in the database: an open deal cannot lose its current step or gain a second one', async () => {
    const { tenant, admin } = await makeTenant(t);
    const client = await makeClient(admin);
    const o = await makeOpportunity(admin, client.client_id);
    const { db } = t.database;
    await expect(db.updateTable('opportunities').set({ current_step_id: null }).where('opportunity_id', '=', o.opportunity_id).execute()).rejects.toThrow();
    await expect(db.updateTable('opportunities').set({ next_action: null }).where('opportunity_id', '=', o.opportunity_id).execute()).rejects.toThrow();
    await expect(db.updateTable('opportunities').set({ current_step_id: randomId() }).where('opportunity_id', '=', o.opportunity_id).execute()).rejects.toThrow();
    await expect(
      db.insertInto('opportunity_steps').values({ tenant, step_id: randomId(), opportunity_id: o.opportunity_id, title: 'Second', due_at: new Date(), status: 'current', sort_order: 2 }).execute(),
    ).rejects.toThrow();
    // A step of another deal cannot be this deal's current step.
    const other = await makeOpportunity(admin, client.client_id);
    await expect(db.updateTable('opportunities').set({ current_step_id: other.current_step_id }).where('opportunity_id', '=', o.opportunity_id).execute()).rejects.toThrow();
    // Closed means no next action.
    await expect(db.updateTable('opportunities').set({ status: 'lost', stage: 'lost', lost_at: new Date(), loss_reason: 'price' }).where('opportunity_id', '=', o.opportunity_id).execute()).rejects.toThrow();
    expect((await admin.get(`${BASE}/${o.opportunity_id}`)).json().data).toMatchObject({ status: 'open', current_step_id: o.current_step_id, next_action: o.next_action });
  });

  it('is found through search by title and number', async () => {
    const { admin } = await makeTenant(t);
    const client = await makeClient(admin, { client_name: 'Umbrella' });
    const o = await makeOpportunity(admin, client.client_id, { title: 'Quarantine facility network' });
    expect((await search(admin, { query: 'quarantine', types: 'opportunity' })).results.map((r) => r.id)).toEqual([o.opportunity_id]);
    const byNumber = await search(admin, { query: o.opportunity_number, types: 'opportunity' });
    expect(byNumber.results[0]).toMatchObject({ id: o.opportunity_id, type: 'opportunity', title: 'Quarantine facility network' });
    await admin.delete(`/api/v1/opportunities/${o.opportunity_id}`);
    expect((await search(admin, { query: 'quarantine', types: 'opportunity' })).results).toEqual([]);
  });
});
