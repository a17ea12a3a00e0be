import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/harness.ts';
import { makeTenant, makeUser, type Api } from '../../../../test/factories.ts';
import { anonymous, expectError, makeClient, randomId } from '../../../../test/client-factories.ts';
import { openCommitmentCount } from './commitments.repo.ts';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => t.close());

interface CommitmentJson {
  commitment_id: string;
  opportunity_id: string;
  description: string;
  made_by: string | null;
  made_at: string;
  resolution_status: string;
  resolution_ref_id: string | null;
  resolved_by: string | null;
  resolved_at: string | null;
  created_at: string;
  updated_at: string;
}

const OPPS = '/api/v1/opportunities';
const base = (oppId: string) => `${OPPS}/${oppId}/commitments`;

async function makeOpportunity(api: Api, clientId: string, body: Record<string, unknown> = {}): Promise<string> {
  const res = await api.post(OPPS, {
    client_id: clientId, title: 'Managed services', opportunity_type: 'new_logo', currency_code: 'USD',
    next_action: 'Call the CFO', next_action_due: '2026-12-01T10:00:00.000Z', ...body,
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data.opportunity_id as string;
}

async function makeCommitment(api: Api, oppId: string, description: string): Promise<CommitmentJson> {
  const res = await api.post(base(oppId), { description });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data as CommitmentJson;
}

async function setup() {
  const f = await makeTenant(t);
  const client = await makeClient(f.admin);
  const oppId = await makeOpportunity(f.admin, client.client_id);
  return { ...f, client, oppId };
}

describe('opportunity commitments', () => {
  it('records a commitment (201, open, made by the caller), lists them oldest first, filters by status', async () => {
    const { tenant, admin, adminUserId, oppId } = await setup();
    const res = await admin.post(base(oppId), { description: '  Include onboarding for 12 users  ' });
    expect(res.statusCode, res.body).toBe(201);
    const first = res.json().data as CommitmentJson;
    expect(res.headers.location).toBe(`${base(oppId)}/${first.commitment_id}`);
    expect(first).toMatchObject({
      opportunity_id: oppId, description: 'Include onboarding for 12 users', made_by: adminUserId,
      resolution_status: 'open', resolution_ref_id: null, resolved_by: null, resolved_at: null,
    });
    expect(first.made_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    const second = await makeCommitment(admin, oppId, 'Price lock for 24 months');
    const third = await makeCommitment(admin, oppId, 'Quarterly business reviews');
    // made_at decides the order, whatever the insertion order: move the first one last.
    await t.database.db.updateTable('opportunity_commitments').set({ made_at: new Date(Date.now() + 60_000) } as never).where('commitment_id', '=', first.commitment_id).execute();

    const list = await admin.get(base(oppId));
    expect(list.statusCode, list.body).toBe(200);
    expect(list.json().data.map((c: CommitmentJson) => c.commitment_id)).toEqual([second.commitment_id, third.commitment_id, first.commitment_id]);
    expect(list.json().pagination).toMatchObject({ total: 3, page: 1 });
    expect((await admin.get(`${base(oppId)}?order=desc`)).json().data[0].commitment_id).toBe(first.commitment_id);

    await admin.put(`${base(oppId)}/${third.commitment_id}`, { resolution_status: 'declined' });
    expect((await admin.get(`${base(oppId)}?resolution_status=declined`)).json().data.map((c: CommitmentJson) => c.commitment_id)).toEqual([third.commitment_id]);
    expect(await openCommitmentCount(t.database.db, tenant, oppId)).toBe(2);
  });

  it('rejects bad bodies and queries with 400', async () => {
    const { admin, oppId } = await setup();
    expectError(await admin.post(base(oppId), {}), 400, 'VALIDATION_ERROR');
    expectError(await admin.post(base(oppId), { description: '' }), 400, 'VALIDATION_ERROR');
    const blank = await admin.post(base(oppId), { description: '    ' });
    expectError(blank, 400, 'VALIDATION_ERROR');
    expect(blank.json().error.message).toContain('body.description');
    expectError(await admin.post(base(oppId), { description: 'x'.repeat(4001) }), 400, 'VALIDATION_ERROR');
    expect((await admin.post(base(oppId), { description: 'x'.repeat(4000) })).statusCode).toBe(201);
    expectError(await admin.post(base(oppId), { description: 'ok', made_by: randomId() }), 400, 'VALIDATION_ERROR');
    expectError(await admin.get(`${base(oppId)}?resolution_status=done`), 400, 'VALIDATION_ERROR');
    expectError(await admin.get(`${OPPS}/not-a-uuid/commitments`), 400, 'VALIDATION_ERROR');
    const c = await makeCommitment(admin, oppId, 'Something');
    const url = `${base(oppId)}/${c.commitment_id}`;
    expectError(await admin.put(url, {}), 400, 'VALIDATION_ERROR');
    expectError(await admin.put(url, { resolution_status: 'done' }), 400, 'VALIDATION_ERROR');
    expectError(await admin.put(url, { resolution_ref_id: 'nope' }), 400, 'VALIDATION_ERROR');
    expectError(await admin.put(url, { description: ' ' }), 400, 'VALIDATION_ERROR');
    expectError(await admin.put(`${base(oppId)}/xyz`, { description: 'x' }), 400, 'VALIDATION_ERROR');
  });

  it('resolution rules: linked statuses need resolution_ref_id, open and declined take none (422); resolving stamps, reopening clears', async () => {
    const { tenant, admin, adminUserId, oppId } = await setup();
    const manager = await makeUser(t, tenant, { role: 'Manager' });
    const c = await makeCommitment(admin, oppId, 'Onboarding included');
    const url = `${base(oppId)}/${c.commitment_id}`;
    const lineId = randomId();

    for (const status of ['quote_line', 'agreement_line', 'project_task']) {
      const res = await admin.put(url, { resolution_status: status });
      expectError(res, 422, 'UNPROCESSABLE');
      expect(res.json().error.message).toContain(`resolved as ${status} requires resolution_ref_id`);
      expectError(await admin.put(url, { resolution_status: status, resolution_ref_id: null }), 422, 'UNPROCESSABLE');
    }
    const withRef = await admin.put(url, { resolution_status: 'declined', resolution_ref_id: lineId });
    expectError(withRef, 422, 'UNPROCESSABLE');
    expect(withRef.json().error.message).toContain('declined takes no resolution_ref_id');
    const refOnOpen = await admin.put(url, { resolution_ref_id: lineId });
    expectError(refOnOpen, 422, 'UNPROCESSABLE');
    expect(refOnOpen.json().error.message).toContain('open takes no resolution_ref_id');
    // Nothing was written by the refused updates.
    expect((await admin.get(base(oppId))).json().data[0]).toMatchObject({ resolution_status: 'open', resolved_at: null, updated_at: c.updated_at });

    const resolved = await manager.api.put(url, { resolution_status: 'quote_line', resolution_ref_id: lineId });
    expect(resolved.statusCode, resolved.body).toBe(200);
    const r = resolved.json().data as CommitmentJson;
    expect(r).toMatchObject({ resolution_status: 'quote_line', resolution_ref_id: lineId, resolved_by: manager.userId, description: 'Onboarding included' });
    expect(r.resolved_at).not.toBeNull();

    // Editing the text (or the reference) of a resolved commitment keeps who resolved it and when.
    const otherLine = randomId();
    const edited = (await admin.put(url, { description: 'Onboarding for 12 users included', resolution_ref_id: otherLine })).json().data as CommitmentJson;
    expect(edited).toMatchObject({ description: 'Onboarding for 12 users included', resolution_status: 'quote_line', resolution_ref_id: otherLine, resolved_by: manager.userId, resolved_at: r.resolved_at });
    expectError(await admin.put(url, { resolution_ref_id: null }), 422, 'UNPROCESSABLE');

    // A new status never inherits the old reference: agreement_line without one is refused.
    expectError(await admin.put(url, { resolution_status: 'agreement_line' }), 422, 'UNPROCESSABLE');
    const declined = (await admin.put(url, { resolution_status: 'declined' })).json().data as CommitmentJson;
    expect(declined).toMatchObject({ resolution_status: 'declined', resolution_ref_id: null, resolved_by: adminUserId });
    expect(Date.parse(declined.resolved_at!)).toBeGreaterThanOrEqual(Date.parse(r.resolved_at!));

    const reopened = await admin.put(url, { resolution_status: 'open' });
    expect(reopened.statusCode, reopened.body).toBe(200);
    expect(reopened.json().data).toMatchObject({ resolution_status: 'open', resolution_ref_id: null, resolved_by: null, resolved_at: null });
    const row = await t.database.db.selectFrom('opportunity_commitments').selectAll().where('commitment_id', '=', c.commitment_id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ resolution_status: 'open', resolution_ref_id: null, resolved_by: null, resolved_at: null });

    const project = (await admin.put(url, { resolution_status: 'project_task', resolution_ref_id: lineId })).json().data as CommitmentJson;
    expect(project).toMatchObject({ resolution_status: 'project_task', resolution_ref_id: lineId, resolved_by: adminUserId });
  });

  it('open commitments block the win (409 naming the count); a closed deal keeps them readable but refuses changes (409)', async () => {
    const { tenant, admin, oppId } = await setup();
    const a = await makeCommitment(admin, oppId, 'Free site survey');
    const b = await makeCommitment(admin, oppId, 'Loaner laptops during migration');
    expect(await openCommitmentCount(t.database.db, tenant, oppId)).toBe(2);
    const blocked = await admin.post(`${OPPS}/${oppId}/win`, {});
    expectError(blocked, 409, 'CONFLICT');
    expect(blocked.json().error.message).toBe('Resolve or decline 2 open commitment(s) before marking this opportunity won');
    expect((await admin.put(`${base(oppId)}/${a.commitment_id}`, { resolution_status: 'project_task', resolution_ref_id: randomId() })).statusCode).toBe(200);
    expect(await openCommitmentCount(t.database.db, tenant, oppId)).toBe(1);
    expect((await admin.post(`${OPPS}/${oppId}/win`, {})).json().error.message).toBe('Resolve or decline 1 open commitment(s) before marking this opportunity won');
    expect((await admin.put(`${base(oppId)}/${b.commitment_id}`, { resolution_status: 'declined' })).statusCode).toBe(200);
    expect(await openCommitmentCount(t.database.db, tenant, oppId)).toBe(0);
    const won = await admin.post(`${OPPS}/${oppId}/win`, {});
    expect(won.statusCode, won.body).toBe(200);

    const list = await admin.get(base(oppId));
    expect(list.statusCode).toBe(200);
    expect(list.json().data).toHaveLength(2);
    for (const res of [
      await admin.post(base(oppId), { description: 'One more thing' }),
      await admin.put(`${base(oppId)}/${a.commitment_id}`, { description: 'Changed' }),
      await admin.delete(`${base(oppId)}/${b.commitment_id}`),
    ]) {
      expectError(res, 409, 'CONFLICT');
      expect(res.json().error.message).toMatch(/is won; only open opportunities can (take new|change) commitments/);
    }

    const client = await makeClient(admin);
    const lost = await makeOpportunity(admin, client.client_id);
    const c = await makeCommitment(admin, lost, 'Extended warranty');
    expect((await admin.post(`${OPPS}/${lost}/lose`, { loss_reason: 'price' })).statusCode).toBe(200);
    expectError(await admin.put(`${base(lost)}/${c.commitment_id}`, { resolution_status: 'declined' }), 409, 'CONFLICT');
    expect((await admin.get(base(lost))).json().data[0]).toMatchObject({ commitment_id: c.commitment_id, resolution_status: 'open' });
  });

  it('deletes a commitment (204); unknown ids, another deal\'s commitment and another tenant\'s deal are 404', async () => {
    const { admin, client, oppId } = await setup();
    const c = await makeCommitment(admin, oppId, 'Weekend cut-over');
    const otherOpp = await makeOpportunity(admin, client.client_id);
    const elsewhere = await makeCommitment(admin, otherOpp, 'Not this deal');

    expectError(await admin.put(`${base(oppId)}/${elsewhere.commitment_id}`, { description: 'x' }), 404, 'NOT_FOUND');
    expectError(await admin.delete(`${base(oppId)}/${elsewhere.commitment_id}`), 404, 'NOT_FOUND');
    expectError(await admin.put(`${base(oppId)}/${randomId()}`, { description: 'x' }), 404, 'NOT_FOUND');
    expectError(await admin.get(base(randomId())), 404, 'NOT_FOUND');
    expectError(await admin.post(base(randomId()), { description: 'x' }), 404, 'NOT_FOUND');

    const other = await makeTenant(t);
    expectError(await other.admin.get(base(oppId)), 404, 'NOT_FOUND');
    expectError(await other.admin.post(base(oppId), { description: 'x' }), 404, 'NOT_FOUND');
    expectError(await other.admin.put(`${base(oppId)}/${c.commitment_id}`, { description: 'x' }), 404, 'NOT_FOUND');
    expectError(await other.admin.delete(`${base(oppId)}/${c.commitment_id}`), 404, 'NOT_FOUND');

    expect((await admin.delete(`${base(oppId)}/${c.commitment_id}`)).statusCode).toBe(204);
    expectError(await admin.delete(`${base(oppId)}/${c.commitment_id}`), 404, 'NOT_FOUND');
    expect((await admin.get(base(oppId))).json().data).toEqual([]);
    expect((await admin.get(base(otherOpp))).json().data.map((x: CommitmentJson) => x.commitment_id)).toEqual([elsewhere.commitment_id]);
  });

  it('401 without a key; 403 without the permission (read, update and delete apart)', async () => {
    const { tenant, admin, oppId } = await setup();
    const c = await makeCommitment(admin, oppId, 'Something');
    const anon = anonymous(t);
    expectError(await anon.get(base(oppId)), 401, 'UNAUTHORIZED');
    expectError(await anon.post(base(oppId), { description: 'x' }), 401, 'UNAUTHORIZED');
    expectError(await anon.put(`${base(oppId)}/${c.commitment_id}`, { description: 'x' }), 401, 'UNAUTHORIZED');
    expectError(await anon.delete(`${base(oppId)}/${c.commitment_id}`), 401, 'UNAUTHORIZED');

    const tech = (await makeUser(t, tenant, { role: 'Technician' })).api;
    expectError(await tech.get(base(oppId)), 403, 'FORBIDDEN');
    const finance = (await makeUser(t, tenant, { role: 'Finance' })).api; // opportunity:read only
    expect((await finance.get(base(oppId))).statusCode).toBe(200);
    const denied = await finance.post(base(oppId), { description: 'x' });
    expectError(denied, 403, 'FORBIDDEN');
    expect(denied.json().error.details.required).toEqual(['opportunity:update']);
    expectError(await finance.put(`${base(oppId)}/${c.commitment_id}`, { description: 'x' }), 403, 'FORBIDDEN');
    expect((await finance.delete(`${base(oppId)}/${c.commitment_id}`)).json().error.details.required).toEqual(['opportunity:delete']);
    const updater = (await makeUser(t, tenant, { role: 'Manager', scopes: ['opportunity:read', 'opportunity:update'] })).api;
    expect((await updater.put(`${base(oppId)}/${c.commitment_id}`, { description: 'ok' })).statusCode).toBe(200);
    expectError(await updater.delete(`${base(oppId)}/${c.commitment_id}`), 403, 'FORBIDDEN');
    expect((await admin.get(base(oppId))).json().data).toHaveLength(1);
  });
});
