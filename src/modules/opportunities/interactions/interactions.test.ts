import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, engine, type TestApp } from '../../../../test/harness.ts';
import { makeTenant, makeUser, unique, type Api, type Res } from '../../../../test/factories.ts';
import { anonymous, eventsOf, expectError, expectStatus, makeClient, makeContact, randomId, tombstone } from '../../../../test/client-factories.ts';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => t.close());

interface InteractionJson {
  interaction_id: string;
  client_id: string;
  client_name: string;
  contact_id: string | null;
  contact_name: string | null;
  opportunity_id: string | null;
  opportunity_number: string | null;
  interaction_type: string;
  title: string;
  notes: string | null;
  interaction_date: string;
  duration_minutes: number | null;
  user_id: string | null;
  user_name: string | null;
  created_by: string | null;
  created_at: string;
  updated_at: string;
}

const ok = <T = InteractionJson>(res: Res, status = 200): T => {
  expectStatus(res, status);
  return res.json().data as T;
};

async function makeDeal(api: Api, clientId: string, body: Record<string, unknown> = {}): Promise<{ opportunity_id: string; opportunity_number: string }> {
  return ok(await api.post('/api/v1/opportunities', {
    client_id: clientId, title: unique('Deal'), opportunity_type: 'new_logo', currency_code: 'USD',
    next_action: 'Call the buyer', next_action_due: '2030-01-01T09:00:00.000Z', ...body,
  }), 201);
}

async function makeInteraction(api: Api, body: Record<string, unknown>): Promise<InteractionJson> {
  return ok(await api.post('/api/v1/interactions', { interaction_type: 'call', title: unique('Call'), ...body }), 201);
}

const ids = (res: Res) => (res.json().data as { interaction_id: string }[]).map((i) => i.interaction_id);

/** A tenant with a client, its contact and deal, another client, a technician and a second tenant's records. */
async function world() {
  const { tenant, admin, adminUserId } = await makeTenant(t);
  const client = await makeClient(admin, { client_name: 'Northwind Traders' });
  const contact = await makeContact(admin, { client_id: client.client_id, full_name: 'Nora Buyer' });
  const deal = await makeDeal(admin, client.client_id, { contact_id: contact.contact_id });
  const other = await makeClient(admin, { client_name: 'Fabrikam' });
  const otherContact = await makeContact(admin, { client_id: other.client_id, full_name: 'Fred Other' });
  const otherDeal = await makeDeal(admin, other.client_id);
  const tech = await makeUser(t, tenant, { role: 'Technician' });
  const foreign = await makeTenant(t);
  const foreignClient = await makeClient(foreign.admin);
  const foreignDeal = await makeDeal(foreign.admin, foreignClient.client_id);
  const foreignInteraction = await makeInteraction(foreign.admin, { client_id: foreignClient.client_id, opportunity_id: foreignDeal.opportunity_id });
  return { tenant, admin, adminUserId, client, contact, deal, other, otherContact, otherDeal, tech, foreign, foreignClient, foreignDeal, foreignInteraction };
}

describe(`interactions (${engine})`, () => {
  it('logs an interaction: defaults (now, the caller), names resolved, evented, ETag and Location', async () => {
    const w = await world();
    const before = Date.now();
    const res = await w.tech.api.post('/api/v1/interactions', {
      client_id: w.client.client_id, contact_id: w.contact.contact_id, opportunity_id: w.deal.opportunity_id,
      interaction_type: 'meeting', title: '  Discovery meeting  ', notes: 'Budget approved for Q3', duration_minutes: 45,
    });
    const created = ok(res, 201);
    expect(res.headers.location).toBe(`/api/v1/interactions/${created.interaction_id}`);
    expect(res.headers.etag).toMatch(/^".+"$/);
    expect(created).toMatchObject({
      client_id: w.client.client_id, client_name: 'Northwind Traders', contact_id: w.contact.contact_id, contact_name: 'Nora Buyer',
      opportunity_id: w.deal.opportunity_id, opportunity_number: w.deal.opportunity_number, interaction_type: 'meeting',
      title: 'Discovery meeting', notes: 'Budget approved for Q3', duration_minutes: 45,
      user_id: w.tech.userId, user_name: 'Test User', created_by: w.tech.userId,
    });
    expect(Date.parse(created.interaction_date)).toBeGreaterThanOrEqual(before - 5);
    expect(Date.parse(created.interaction_date)).toBeLessThanOrEqual(Date.now() + 5);
    expect((await eventsOf(t, w.tenant, created.interaction_id)).map((e) => [e.event_type, e.payload])).toEqual([
      ['interaction.created', { interaction_id: created.interaction_id, client_id: w.client.client_id, opportunity_id: w.deal.opportunity_id, interaction_type: 'meeting' }],
    ]);

    // Explicit date and user; user null and blank notes stay empty.
    const explicit = await makeInteraction(w.admin, { client_id: w.client.client_id, interaction_date: '2026-03-04T10:15:00Z', user_id: w.tech.userId, notes: '   ' });
    expect(explicit).toMatchObject({ interaction_date: '2026-03-04T10:15:00.000Z', user_id: w.tech.userId, created_by: w.adminUserId, notes: null, contact_id: null, opportunity_id: null, duration_minutes: null });
    const nobody = await makeInteraction(w.admin, { client_id: w.client.client_id, user_id: null });
    expect(nobody).toMatchObject({ user_id: null, user_name: null });

    const row = await t.database.db.selectFrom('interactions').selectAll().where('tenant', '=', w.tenant).where('interaction_id', '=', created.interaction_id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ client_id: w.client.client_id, title: 'Discovery meeting', duration_minutes: 45 });
  });

  it('refuses bad references with 400/409/422 naming the field, and bad bodies with 400', async () => {
    const w = await world();
    const post = (body: Record<string, unknown>) => w.admin.post('/api/v1/interactions', { client_id: w.client.client_id, interaction_type: 'call', title: 'x', ...body });
    const field = async (body: Record<string, unknown>, status: number, code: string, path: string) => {
      const res = await post(body);
      expectError(res, status, code);
      expect(res.json().error.message).toContain(path);
    };
    await field({ client_id: randomId() }, 400, 'VALIDATION_ERROR', 'body.client_id');
    await field({ client_id: w.foreignClient.client_id }, 400, 'VALIDATION_ERROR', 'body.client_id');
    await field({ contact_id: w.otherContact.contact_id }, 400, 'VALIDATION_ERROR', 'body.contact_id');
    await field({ contact_id: randomId() }, 400, 'VALIDATION_ERROR', 'body.contact_id');
    await field({ opportunity_id: randomId() }, 400, 'VALIDATION_ERROR', 'body.opportunity_id');
    await field({ opportunity_id: w.foreignDeal.opportunity_id }, 400, 'VALIDATION_ERROR', 'body.opportunity_id');
    await field({ opportunity_id: w.otherDeal.opportunity_id }, 422, 'UNPROCESSABLE', 'body.opportunity_id');
    await field({ user_id: randomId() }, 400, 'VALIDATION_ERROR', 'body.user_id');
    await field({ user_id: w.foreign.adminUserId }, 400, 'VALIDATION_ERROR', 'body.user_id');
    const portalUser = await makeUser(t, w.tenant, { role: 'Client User', userType: 'client', clientId: w.client.client_id });
    await field({ user_id: portalUser.userId }, 400, 'VALIDATION_ERROR', 'body.user_id');
    const inactive = await makeUser(t, w.tenant, { role: 'Technician' });
    await t.database.db.updateTable('users').set({ is_inactive: true }).where('tenant', '=', w.tenant).where('user_id', '=', inactive.userId).execute();
    await field({ user_id: inactive.userId }, 400, 'VALIDATION_ERROR', 'body.user_id');
    await field({ title: '   ' }, 400, 'VALIDATION_ERROR', 'body.title');

    for (const body of [
      { title: '' }, { title: 'x'.repeat(256) }, { notes: 'x'.repeat(20_001) }, { interaction_type: 'sms' }, { duration_minutes: 1441 },
      { duration_minutes: -1 }, { duration_minutes: 1.5 }, { interaction_date: 'yesterday' }, { client_id: 'not-a-uuid' }, { extra: 1 },
    ]) expectError(await post(body), 400, 'VALIDATION_ERROR');
    expectError(await w.admin.post('/api/v1/interactions', { interaction_type: 'call', title: 'x' }), 400, 'VALIDATION_ERROR');
    expectError(await w.admin.post('/api/v1/interactions?x=1', { client_id: w.client.client_id, interaction_type: 'call', title: 'x' }), 400, 'VALIDATION_ERROR');

    // A merge tombstone takes no new interactions.
    const merged = await makeClient(w.admin);
    await tombstone(t, w.tenant, merged.client_id, w.client.client_id);
    expectError(await post({ client_id: merged.client_id }), 409, 'CONFLICT');

    // Nothing was written.
    const count = await t.database.db.selectFrom('interactions').select((eb) => eb.fn.countAll().as('n')).where('tenant', '=', w.tenant).executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(0);
  });

  it('needs a key (401) and the interaction permission (403); another tenant\'s interaction is 404', async () => {
    const w = await world();
    const mine = await makeInteraction(w.admin, { client_id: w.client.client_id });
    const anon = anonymous(t);
    const url = `/api/v1/interactions/${mine.interaction_id}`;
    expectError(await anon.get('/api/v1/interactions'), 401, 'UNAUTHORIZED');
    expectError(await anon.post('/api/v1/interactions', { client_id: w.client.client_id, interaction_type: 'call', title: 'x' }), 401, 'UNAUTHORIZED');
    expectError(await anon.get(url), 401, 'UNAUTHORIZED');
    expectError(await anon.put(url, { title: 'y' }), 401, 'UNAUTHORIZED');
    expectError(await anon.delete(url), 401, 'UNAUTHORIZED');
    expectError(await anon.get(`/api/v1/opportunities/${w.deal.opportunity_id}/timeline`), 401, 'UNAUTHORIZED');

    const noRole = (await makeUser(t, w.tenant)).api;
    expectError(await noRole.get('/api/v1/interactions'), 403, 'FORBIDDEN');
    expectError(await noRole.get(url), 403, 'FORBIDDEN');
    const finance = (await makeUser(t, w.tenant, { role: 'Finance' })).api;
    expectStatus(await finance.get(url), 200);
    expectError(await finance.post('/api/v1/interactions', { client_id: w.client.client_id, interaction_type: 'call', title: 'x' }), 403, 'FORBIDDEN');
    expectError(await finance.put(url, { title: 'y' }), 403, 'FORBIDDEN');
    expectError(await w.tech.api.delete(url), 403, 'FORBIDDEN');
    expectError(await w.tech.api.get(`/api/v1/opportunities/${w.deal.opportunity_id}/timeline`), 403, 'FORBIDDEN');
    const clientUser = (await makeUser(t, w.tenant, { role: 'Client Admin', userType: 'client', clientId: w.client.client_id })).api;
    expectError(await clientUser.get('/api/v1/interactions'), 403, 'FORBIDDEN');
    expectError(await clientUser.get(url), 403, 'FORBIDDEN');

    const theirs = `/api/v1/interactions/${w.foreignInteraction.interaction_id}`;
    expectError(await w.admin.get(theirs), 404, 'NOT_FOUND');
    expectError(await w.admin.put(theirs, { title: 'Hijack' }), 404, 'NOT_FOUND');
    expectError(await w.admin.delete(theirs), 404, 'NOT_FOUND');
    expectError(await w.admin.get(`/api/v1/interactions/${randomId()}`), 404, 'NOT_FOUND');
    expectError(await w.admin.put(`/api/v1/interactions/${randomId()}`, { title: 'y' }), 404, 'NOT_FOUND');
    expectError(await w.admin.delete(`/api/v1/interactions/${randomId()}`), 404, 'NOT_FOUND');
    expectError(await w.admin.get('/api/v1/interactions/nope'), 400, 'VALIDATION_ERROR');
    expectError(await w.admin.put('/api/v1/interactions/nope', { title: 'y' }), 400, 'VALIDATION_ERROR');
    expectError(await w.admin.delete('/api/v1/interactions/nope'), 400, 'VALIDATION_ERROR');
    expect((await w.foreign.admin.get(theirs)).json().data.title).toBe(w.foreignInteraction.title);
  });

  it('reads one with an ETag (304 on If-None-Match); updates partially with changes in the event and If-Match', async () => {
    const w = await world();
    const created = await makeInteraction(w.admin, { client_id: w.client.client_id, contact_id: w.contact.contact_id, opportunity_id: w.deal.opportunity_id, title: 'First call', interaction_date: '2026-05-01T08:00:00Z' });
    const got = await w.admin.get(`/api/v1/interactions/${created.interaction_id}`);
    expect(ok(got)).toEqual(created);
    const etag = got.headers.etag as string;
    expect((await w.admin.get(`/api/v1/interactions/${created.interaction_id}`, { 'if-none-match': etag })).statusCode).toBe(304);

    const url = `/api/v1/interactions/${created.interaction_id}`;
    expectError(await w.admin.put(url, { title: 'Stale' }, { 'if-match': '"stale"' }), 412, 'PRECONDITION_FAILED');
    const updated = ok(await w.tech.api.put(url, { title: 'First call (rescheduled)', interaction_date: '2026-05-02T08:00:00Z', duration_minutes: 30, notes: 'Moved a day' }, { 'if-match': etag }));
    expect(updated).toMatchObject({ title: 'First call (rescheduled)', interaction_date: '2026-05-02T08:00:00.000Z', duration_minutes: 30, notes: 'Moved a day', contact_id: w.contact.contact_id, opportunity_id: w.deal.opportunity_id });
    expect(Date.parse(updated.updated_at)).toBeGreaterThanOrEqual(Date.parse(created.updated_at));
    const events = await eventsOf(t, w.tenant, created.interaction_id);
    expect(events.map((e) => e.event_type)).toEqual(['interaction.created', 'interaction.updated']);
    expect(events[1]!.payload).toEqual({
      interaction_id: created.interaction_id, client_id: w.client.client_id, opportunity_id: w.deal.opportunity_id,
      changes: {
        title: { previous: 'First call', new: 'First call (rescheduled)' },
        interaction_date: { previous: '2026-05-01T08:00:00.000Z', new: '2026-05-02T08:00:00.000Z' },
        duration_minutes: { previous: null, new: 30 },
        notes: { previous: null, new: 'Moved a day' },
      },
    });
    // The old ETag no longer matches; the new one does.
    expectError(await w.admin.put(url, { title: 'Again' }, { 'if-match': etag }), 412, 'PRECONDITION_FAILED');

    // A PUT that changes nothing writes nothing.
    expect(ok(await w.admin.put(url, { title: 'First call (rescheduled)' }))).toEqual(updated);
    expect(await eventsOf(t, w.tenant, created.interaction_id)).toHaveLength(2);

    // Detach contact and deal, change type and user.
    const detached = ok(await w.admin.put(url, { contact_id: null, opportunity_id: null, interaction_type: 'email', user_id: w.tech.userId }));
    expect(detached).toMatchObject({ contact_id: null, contact_name: null, opportunity_id: null, opportunity_number: null, interaction_type: 'email', user_id: w.tech.userId });

    for (const body of [{}, { title: '' }, { interaction_type: 'fax' }, { duration_minutes: 2000 }, { notes: 'x'.repeat(20_001) }, { client_id: 'x' }, { unknown: true }]) {
      expectError(await w.admin.put(url, body), 400, 'VALIDATION_ERROR');
    }
    expectError(await w.admin.put(url, { title: '  ' }), 400, 'VALIDATION_ERROR');
    expectError(await w.admin.put(url, { contact_id: w.otherContact.contact_id }), 400, 'VALIDATION_ERROR');
    const wrongDeal = await w.admin.put(url, { opportunity_id: w.otherDeal.opportunity_id });
    expectError(wrongDeal, 422, 'UNPROCESSABLE');
    expect(wrongDeal.json().error.message).toContain('body.opportunity_id');
    expectError(await w.admin.put(url, { user_id: randomId() }), 400, 'VALIDATION_ERROR');
  });

  it('moving to another client re-checks the contact and deal it keeps', async () => {
    const w = await world();
    const created = await makeInteraction(w.admin, { client_id: w.client.client_id, contact_id: w.contact.contact_id, opportunity_id: w.deal.opportunity_id });
    const url = `/api/v1/interactions/${created.interaction_id}`;
    const keepsContact = await w.admin.put(url, { client_id: w.other.client_id });
    expectError(keepsContact, 400, 'VALIDATION_ERROR');
    expect(keepsContact.json().error.message).toContain('body.contact_id');
    const keepsDeal = await w.admin.put(url, { client_id: w.other.client_id, contact_id: w.otherContact.contact_id });
    expectError(keepsDeal, 422, 'UNPROCESSABLE');
    expect(keepsDeal.json().error.message).toContain('body.opportunity_id');
    expectError(await w.admin.put(url, { client_id: w.foreignClient.client_id, contact_id: null, opportunity_id: null }), 400, 'VALIDATION_ERROR');
    expectError(await w.admin.put(url, { client_id: randomId(), contact_id: null, opportunity_id: null }), 400, 'VALIDATION_ERROR');

    const moved = ok(await w.admin.put(url, { client_id: w.other.client_id, contact_id: w.otherContact.contact_id, opportunity_id: w.otherDeal.opportunity_id }));
    expect(moved).toMatchObject({ client_id: w.other.client_id, client_name: 'Fabrikam', contact_name: 'Fred Other', opportunity_number: w.otherDeal.opportunity_number });
    const event = (await eventsOf(t, w.tenant, created.interaction_id)).at(-1)!;
    expect(event.payload.changes).toEqual({
      client_id: { previous: w.client.client_id, new: w.other.client_id },
      contact_id: { previous: w.contact.contact_id, new: w.otherContact.contact_id },
      opportunity_id: { previous: w.deal.opportunity_id, new: w.otherDeal.opportunity_id },
    });
    const merged = await makeClient(w.admin);
    await tombstone(t, w.tenant, merged.client_id, w.client.client_id);
    expectError(await w.admin.put(url, { client_id: merged.client_id, contact_id: null, opportunity_id: null }), 409, 'CONFLICT');
  });

  it('deletes (204, evented, If-Match honoured); then 404', async () => {
    const w = await world();
    const created = await makeInteraction(w.admin, { client_id: w.client.client_id, opportunity_id: w.deal.opportunity_id });
    const url = `/api/v1/interactions/${created.interaction_id}`;
    expectError(await w.admin.delete(url, { 'if-match': '"nope"' }), 412, 'PRECONDITION_FAILED');
    const etag = (await w.admin.get(url)).headers.etag as string;
    const res = await w.admin.delete(url, { 'if-match': etag });
    expect(res.statusCode, res.body).toBe(204);
    expect(res.body).toBe('');
    expectError(await w.admin.get(url), 404, 'NOT_FOUND');
    expectError(await w.admin.delete(url), 404, 'NOT_FOUND');
    expect((await eventsOf(t, w.tenant, created.interaction_id)).map((e) => [e.event_type, e.payload])).toEqual([
      ['interaction.created', expect.anything()],
      ['interaction.deleted', { interaction_id: created.interaction_id, client_id: w.client.client_id, opportunity_id: w.deal.opportunity_id }],
    ]);
    expect(await t.database.db.selectFrom('interactions').select('interaction_id').where('tenant', '=', w.tenant).where('interaction_id', '=', created.interaction_id).executeTakeFirst()).toBeUndefined();
  });

  it('lists with filters, sorts, text search (literal wildcards), updated_since and pages', async () => {
    const w = await world();
    const i1 = await makeInteraction(w.admin, { client_id: w.client.client_id, contact_id: w.contact.contact_id, opportunity_id: w.deal.opportunity_id, interaction_type: 'call', title: 'Discovery call', notes: 'Promised 100% uptime', interaction_date: '2026-01-10T09:00:00Z', user_id: w.tech.userId });
    const i2 = await makeInteraction(w.admin, { client_id: w.client.client_id, interaction_type: 'email', title: 'Sent proposal', interaction_date: '2026-02-10T09:00:00Z' });
    const i3 = await makeInteraction(w.admin, { client_id: w.other.client_id, interaction_type: 'meeting', title: 'quarterly review', notes: 'see under_score', interaction_date: '2026-03-10T09:00:00Z' });
    const i4 = await makeInteraction(w.admin, { client_id: w.client.client_id, interaction_type: 'note', title: 'Zebra note', interaction_date: '2026-04-10T09:00:00Z', user_id: null });
    const list = (q = '') => w.admin.get(`/api/v1/interactions${q}`);

    const all = await list();
    expectStatus(all, 200);
    expect(ids(all)).toEqual([i4, i3, i2, i1].map((i) => i.interaction_id));
    expect(all.json().pagination).toEqual({ page: 1, limit: 25, total: 4, totalPages: 1, hasNext: false, hasPrev: false });
    expect(all.json().data[3]).toEqual(i1);
    expect(ids(await list('?order=asc'))).toEqual([i1, i2, i3, i4].map((i) => i.interaction_id));
    expect(ids(await list('?sort=title&order=asc'))).toEqual([i1, i3, i2, i4].map((i) => i.interaction_id));
    expect(ids(await list('?sort=created_at&order=asc'))).toEqual([i1, i2, i3, i4].map((i) => i.interaction_id));
    expect(ids(await list('?sort=updated_at&order=desc'))).toEqual([i4, i3, i2, i1].map((i) => i.interaction_id));

    expect(ids(await list(`?client_id=${w.client.client_id}`))).toEqual([i4, i2, i1].map((i) => i.interaction_id));
    expect(ids(await list(`?contact_id=${w.contact.contact_id}`))).toEqual([i1.interaction_id]);
    expect(ids(await list(`?opportunity_id=${w.deal.opportunity_id}`))).toEqual([i1.interaction_id]);
    expect(ids(await list('?interaction_type=email'))).toEqual([i2.interaction_id]);
    expect(ids(await list(`?user_id=${w.tech.userId}`))).toEqual([i1.interaction_id]);
    expect(ids(await list(`?user_id=${w.adminUserId}`))).toEqual([i3, i2].map((i) => i.interaction_id));
    expect(ids(await list('?from=2026-02-10T09:00:00Z&to=2026-03-10T09:00:00Z'))).toEqual([i3, i2].map((i) => i.interaction_id));
    expect(ids(await list('?from=2026-03-01T00:00:00Z'))).toEqual([i4, i3].map((i) => i.interaction_id));
    expect(ids(await list('?search=PROPOSAL'))).toEqual([i2.interaction_id]);
    expect(ids(await list('?search=100%25'))).toEqual([i1.interaction_id]);
    expect(ids(await list('?search=%25'))).toEqual([i1.interaction_id]);
    expect(ids(await list('?search=see_under'))).toEqual([]);
    expect(ids(await list('?search=under_'))).toEqual([i3.interaction_id]);
    expect(ids(await list(`?client_id=${w.client.client_id}&interaction_type=call&search=discovery`))).toEqual([i1.interaction_id]);
    expect(ids(await list(`?client_id=${w.foreignClient.client_id}`))).toEqual([]);

    const page2 = await list('?limit=3&page=2');
    expect(ids(page2)).toEqual([i1.interaction_id]);
    expect(page2.json().pagination).toEqual({ page: 2, limit: 3, total: 4, totalPages: 2, hasNext: false, hasPrev: true });
    const past = await list('?page=9');
    expect(ids(past)).toEqual([]);
    expect(past.json().pagination.total).toBe(4);

    const mark = new Date(Date.now() + 1).toISOString();
    await new Promise((r) => setTimeout(r, 10));
    ok(await w.admin.put(`/api/v1/interactions/${i2.interaction_id}`, { notes: 'Follow-up' }));
    expect(ids(await list(`?updated_since=${encodeURIComponent(mark)}`))).toEqual([i2.interaction_id]);

    for (const q of ['?sort=duration', '?order=up', '?limit=0', '?limit=101', '?page=0', '?from=yesterday', '?client_id=nope', '?interaction_type=sms', '?updated_since=today', '?bogus=1', `?search=${'x'.repeat(256)}`]) {
      expectError(await list(q), 400, 'VALIDATION_ERROR');
    }
  });

  it('client-portal keys granted the permission see only their own client\'s interactions', async () => {
    const w = await world();
    const mine = await makeInteraction(w.admin, { client_id: w.client.client_id });
    const theirs = await makeInteraction(w.admin, { client_id: w.other.client_id });
    const role = unique('Portal interactions');
    const created = await w.admin.post('/api/v1/roles', { role_name: role, is_client_portal: true, permissions: ['ticket:read'] });
    expectStatus(created, 201);
    // The roles API keeps interaction permissions away from portal roles; granted directly, the scoping still holds.
    await t.database.db.insertInto('role_permissions')
      .values(['interaction:read', 'interaction:create', 'interaction:update', 'interaction:delete'].map((permission) => ({ tenant: w.tenant, role_id: created.json().data.role_id, permission })))
      .execute();
    const portal = (await makeUser(t, w.tenant, { role, userType: 'client', clientId: w.client.client_id })).api;
    expect(ids(await portal.get('/api/v1/interactions'))).toEqual([mine.interaction_id]);
    expect(ids(await portal.get(`/api/v1/interactions?client_id=${w.other.client_id}`))).toEqual([]);
    expectStatus(await portal.get(`/api/v1/interactions/${mine.interaction_id}`), 200);
    expectError(await portal.get(`/api/v1/interactions/${theirs.interaction_id}`), 404, 'NOT_FOUND');
    expectError(await portal.put(`/api/v1/interactions/${theirs.interaction_id}`, { title: 'x' }), 404, 'NOT_FOUND');
    expectError(await portal.delete(`/api/v1/interactions/${theirs.interaction_id}`), 404, 'NOT_FOUND');
    expectError(await portal.put(`/api/v1/interactions/${mine.interaction_id}`, { client_id: w.other.client_id, contact_id: null, opportunity_id: null }), 400, 'VALIDATION_ERROR');
    expectError(await portal.post('/api/v1/interactions', { client_id: w.other.client_id, interaction_type: 'note', title: 'x' }), 400, 'VALIDATION_ERROR');
    const own = ok(await portal.post('/api/v1/interactions', { client_id: w.client.client_id, interaction_type: 'note', title: 'From the portal' }), 201);
    expect(own.user_id).toBeNull();
  });
});

describe(`opportunity timeline (${engine})`, () => {
  it("lists the deal's interactions newest first, paged; other deals' stay out", async () => {
    const w = await world();
    const old = await makeInteraction(w.admin, { client_id: w.client.client_id, opportunity_id: w.deal.opportunity_id, title: 'Intro call', notes: 'Warm lead', interaction_date: '2026-01-05T10:00:00Z', user_id: w.tech.userId });
    const recent = await makeInteraction(w.admin, { client_id: w.client.client_id, opportunity_id: w.deal.opportunity_id, interaction_type: 'meeting', title: 'Demo', interaction_date: '2026-02-05T10:00:00Z', user_id: null });
    await makeInteraction(w.admin, { client_id: w.client.client_id, title: 'Unlinked' });
    await makeInteraction(w.admin, { client_id: w.other.client_id, opportunity_id: w.otherDeal.opportunity_id, title: 'Other deal' });
    const url = `/api/v1/opportunities/${w.deal.opportunity_id}/timeline`;

    const res = await w.admin.get(url);
    expectStatus(res, 200);
    expect(res.json()).toEqual({
      data: [
        { interaction_id: recent.interaction_id, interaction_type: 'meeting', title: 'Demo', notes: null, interaction_date: '2026-02-05T10:00:00.000Z', user_id: null, user_name: null },
        { interaction_id: old.interaction_id, interaction_type: 'call', title: 'Intro call', notes: 'Warm lead', interaction_date: '2026-01-05T10:00:00.000Z', user_id: w.tech.userId, user_name: 'Test User' },
      ],
      pagination: { page: 1, limit: 25, total: 2, totalPages: 1, hasNext: false, hasPrev: false },
    });
    const second = await w.admin.get(`${url}?limit=1&page=2`);
    expect(second.json().data.map((e: { interaction_id: string }) => e.interaction_id)).toEqual([old.interaction_id]);
    expect(second.json().pagination).toMatchObject({ total: 2, totalPages: 2, hasPrev: true, hasNext: false });

    // Completing the next action logs an interaction on the deal: it heads the timeline.
    const done = await w.admin.post(`/api/v1/opportunities/${w.deal.opportunity_id}/complete-action`, { next_action: 'Send the proposal', next_action_due: '2030-02-01T09:00:00Z' });
    expectStatus(done, 200);
    const after = (await w.admin.get(url)).json();
    expect(after.pagination.total).toBe(3);
    expect(after.data[0]).toMatchObject({ interaction_type: 'note', title: 'Call the buyer' });

    // A deleted interaction leaves the timeline.
    expect((await w.admin.delete(`/api/v1/interactions/${recent.interaction_id}`)).statusCode).toBe(204);
    expect((await w.admin.get(url)).json().data.map((e: { interaction_id: string }) => e.interaction_id)).not.toContain(recent.interaction_id);

    // Finance reads deals; an empty timeline is an empty page.
    const finance = (await makeUser(t, w.tenant, { role: 'Finance' })).api;
    const empty = await finance.get(`/api/v1/opportunities/${w.otherDeal.opportunity_id}/timeline`);
    expect(empty.json().pagination.total).toBe(1);
    const fresh = await makeDeal(w.admin, w.client.client_id);
    expect((await finance.get(`/api/v1/opportunities/${fresh.opportunity_id}/timeline`)).json()).toEqual({
      data: [], pagination: { page: 1, limit: 25, total: 0, totalPages: 0, hasNext: false, hasPrev: false },
    });

    expectError(await w.admin.get(`/api/v1/opportunities/${w.foreignDeal.opportunity_id}/timeline`), 404, 'NOT_FOUND');
    expectError(await w.admin.get(`/api/v1/opportunities/${randomId()}/timeline`), 404, 'NOT_FOUND');
    expectError(await w.admin.get('/api/v1/opportunities/nope/timeline'), 400, 'VALIDATION_ERROR');
    for (const q of ['?limit=0', '?limit=101', '?page=0', '?sort=title', '?x=1']) expectError(await w.admin.get(`${url}${q}`), 400, 'VALIDATION_ERROR');
  });
});
