import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/harness.ts';
import { makeTenant, makeUser, type Api } from '../../../../test/factories.ts';
import { defaultProfileId, eventsOf, expectError, makeClient, makeContact, US } from '../../../../test/client-factories.ts';
import { makeTicket } from '../../../../test/ticket-factories.ts';
import { makeProject } from '../../../../test/project-factories.ts';
import { makeAsset } from '../../../../test/asset-factories.ts';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => t.close());

const ok = async (res: Promise<{ statusCode: number; body: string; json: () => { data: unknown } }>, status = 200) => {
  const r = await res;
  expect(r.statusCode, r.body).toBe(status);
  return r.json().data as Record<string, unknown> & { [k: string]: never };
};

/** A source client with one of every kind of record, and a target. */
async function duplicate(admin: Api) {
  const source = await makeClient(admin, { client_name: 'Acme (duplicate)', location: { ...US, location_name: 'Old office', city: 'Boston' } });
  const target = await makeClient(admin, { client_name: 'Acme Corp', location: { ...US, location_name: 'HQ', city: 'Denver' } });
  const contact = await makeContact(admin, { full_name: 'Dana Source', client_id: source.client_id, email: 'dana@acme.test' });
  const tickets = [await makeTicket(admin, source.client_id, { title: 'Printer jam' }), await makeTicket(admin, source.client_id, { title: 'VPN down' })];
  const project = await makeProject(admin, { client_id: source.client_id, project_name: 'Office move' });
  const asset = await makeAsset(admin, { client_id: source.client_id, name: 'Front desk PC' });
  const invoice = (await admin.post('/api/v1/invoices', { client_id: source.client_id, items: [{ description: 'Setup', quantity: 1, unit_price_cents: 50_000 }] })).json().data;
  await ok(admin.post(`/api/v1/invoices/${invoice.invoice_id}/finalize`));
  await ok(admin.post(`/api/v1/invoices/${invoice.invoice_id}/payments`, { amount_cents: 60_000, method: 'card' }), 201);
  return { source, target, contact, tickets, project, asset, invoice };
}

describe('client merge', () => {
  it('preview counts exactly what the merge then moves; the source becomes a read-only tombstone pointing at the target', async () => {
    const { admin, tenant } = await makeTenant(t);
    const d = await duplicate(admin);
    const sourceProfile = await defaultProfileId(admin, d.source.client_id);
    const preview = await ok(admin.post(`/api/v1/clients/${d.source.client_id}/merge/preview`, { target_client_id: d.target.client_id }));
    expect(preview.blockers).toEqual([]);
    const plan = preview.plan as unknown as { counts: Record<string, number>; billing_profiles: { billing_profile_id: string }[]; target_client_name: string };
    expect(plan.target_client_name).toBe('Acme Corp');
    expect(plan.billing_profiles.map((p) => p.billing_profile_id)).toEqual([sourceProfile]);
    expect(plan.counts).toMatchObject({ billing_profiles: 1, locations: 1, contacts: 1, tickets: 2, projects: 1, assets: 1, invoices: 1, payments: 1, client_credit_entries: 1 });
    // The preview committed nothing.
    expect((await admin.get(`/api/v1/tickets/${d.tickets[0]!.ticket_id}`)).json().data.client_id).toBe(d.source.client_id);

    const merged = await ok(admin.post(`/api/v1/clients/${d.source.client_id}/merge`, { target_client_id: d.target.client_id }));
    expect(merged.counts).toEqual(plan.counts);
    expect(merged.source).toMatchObject({ merged_into_client_id: d.target.client_id, merged_by: expect.any(String) });
    expect(merged.target).toMatchObject({ client_id: d.target.client_id, merged_into_client_id: null });

    for (const ticket of d.tickets) expect((await admin.get(`/api/v1/tickets/${ticket.ticket_id}`)).json().data.client_id).toBe(d.target.client_id);
    expect((await admin.get(`/api/v1/projects/${d.project.project_id}`)).json().data.client_id).toBe(d.target.client_id);
    expect((await admin.get(`/api/v1/assets/${d.asset.asset_id}`)).json().data.client_id).toBe(d.target.client_id);
    expect((await admin.get(`/api/v1/contacts/${d.contact.contact_id}`)).json().data.client_id).toBe(d.target.client_id);
    const invoice = (await admin.get(`/api/v1/invoices/${d.invoice.invoice_id}`)).json().data;
    expect(invoice).toMatchObject({ client_id: d.target.client_id, client_name: 'Acme Corp', billing_profile_id: sourceProfile, invoice_number: 'INV-0001', total_cents: 50_000, status: 'paid' });
    // The profile moved with its id (not copied), and the target keeps its own default profile and location.
    const profiles = (await admin.get(`/api/v1/clients/${d.target.client_id}/billing-profiles`)).json().data as { billing_profile_id: string; is_default: boolean }[];
    expect(profiles.map((p) => [p.billing_profile_id === sourceProfile, p.is_default]).sort()).toEqual([[false, true], [true, false]]);
    expect((await admin.get(`/api/v1/clients/${d.target.client_id}/credit`)).json().data).toEqual([expect.objectContaining({ billing_profile_id: sourceProfile, balance_cents: 10_000 })]);
    const locations = (await admin.get(`/api/v1/clients/${d.target.client_id}/locations`)).json().data as { location_name: string; is_default: boolean }[];
    expect(locations.map((l) => [l.location_name, l.is_default]).sort()).toEqual([['HQ', true], ['Old office', false]]);
    expect((await admin.get(`/api/v1/clients/${d.target.client_id}`)).json().data.address).toContain('Denver');

    // Tombstone: readable by id, hidden from default lists, read-only.
    expect((await admin.get(`/api/v1/clients/${d.source.client_id}`)).json().data.merged_into_client_id).toBe(d.target.client_id);
    const names = async (q: string) => (await admin.get(`/api/v1/clients${q}`)).json().data.map((c: { client_name: string }) => c.client_name).sort();
    expect(await names('')).toEqual(['Acme Corp']);
    expect(await names('?include_merged=true')).toEqual(['Acme (duplicate)', 'Acme Corp']);
    expectError(await admin.put(`/api/v1/clients/${d.source.client_id}`, { payment_terms: 'Net 5' }), 409, 'CONFLICT');
    expectError(await admin.post('/api/v1/tickets', { title: 'Late', client_id: d.source.client_id }), 409, 'CONFLICT');
    expectError(await admin.post('/api/v1/invoices/generate', { client_id: d.source.client_id, period_start: '2026-11-01', period_end: '2026-11-30' }), 409, 'CONFLICT');

    const event = (await eventsOf(t, tenant, d.source.client_id)).find((e) => e.event_type === 'client.merged');
    expect(event?.payload).toMatchObject({ client_id: d.source.client_id, target_client_id: d.target.client_id, counts: plan.counts });
    // Search shows the moved records under the target's name at once.
    const hits = (await admin.get('/api/v1/search?query=Printer%20jam&types=ticket')).json().data.results as { subtitle: string }[];
    expect(hits[0]?.subtitle).toContain('Acme Corp');
  });

  it('every blocker, in the preview and as a 409 listing them; another tenant\'s target is a 404', async () => {
    const { admin } = await makeTenant(t);
    const a = await makeClient(admin, { client_name: 'Parent Co' });
    const child = await makeClient(admin, { client_name: 'Child Co', parent_client_id: a.client_id });
    const inactive = await makeClient(admin, { client_name: 'Sleepy Co', is_inactive: true });
    const codes = async (source: string, body: Record<string, unknown>) =>
      ((await ok(admin.post(`/api/v1/clients/${source}/merge/preview`, body))).blockers as unknown as { code: string }[]).map((b) => b.code);
    expect(await codes(a.client_id, { target_client_id: a.client_id })).toEqual(['same_client']);
    expect(await codes(a.client_id, { target_client_id: child.client_id })).toEqual(['parent_cycle']);
    expect(await codes(child.client_id, { target_client_id: inactive.client_id })).toEqual(['target_inactive']);
    const refused = await admin.post(`/api/v1/clients/${a.client_id}/merge`, { target_client_id: child.client_id });
    expectError(refused, 409, 'CONFLICT');
    expect(refused.json().error.details.blockers.map((b: { code: string }) => b.code)).toEqual(['parent_cycle']);
    expect(refused.json().error.message).toContain('its own ancestor');

    const x = await makeClient(admin, { client_name: 'X Co' });
    const y = await makeClient(admin, { client_name: 'Y Co' });
    await ok(admin.post(`/api/v1/clients/${x.client_id}/merge`, { target_client_id: y.client_id }));
    expect(await codes(x.client_id, { target_client_id: a.client_id })).toEqual(['source_merged']);
    expect(await codes(a.client_id, { target_client_id: x.client_id })).toEqual(['target_merged']);

    // A cutover inside a period already invoiced for a source contract, or before a contract starts.
    const line = (await admin.post('/api/v1/contract-lines', { contract_line_name: 'Managed', contract_line_type: 'fixed', billing_frequency: 'monthly', config: { base_rate_cents: 10_000 } })).json().data;
    const contract = (await admin.post('/api/v1/contracts', { client_id: a.client_id, start_date: '2026-10-01', status: 'active' })).json().data;
    await ok(admin.post(`/api/v1/contracts/${contract.contract_id}/contract-lines`, { contract_line_id: line.contract_line_id }), 201);
    await ok(admin.post('/api/v1/invoices/generate', { client_id: a.client_id, period_start: '2026-10-01', period_end: '2026-10-31' }), 201);
    const target = await makeClient(admin, { client_name: 'Z Co' });
    expect(await codes(a.client_id, { target_client_id: target.client_id, cutover_date: '2026-10-15' })).toEqual(['invalid_cutover_date']);
    expect(await codes(a.client_id, { target_client_id: target.client_id, cutover_date: '2026-09-15' })).toEqual(['invalid_cutover_date']);
    expect(await codes(a.client_id, { target_client_id: target.client_id, cutover_date: '2026-11-01' })).toEqual([]);

    const other = await makeTenant(t);
    const foreign = await makeClient(other.admin);
    expectError(await admin.post(`/api/v1/clients/${a.client_id}/merge/preview`, { target_client_id: foreign.client_id }), 404, 'NOT_FOUND');
    expectError(await other.admin.post(`/api/v1/clients/${a.client_id}/merge`, { target_client_id: foreign.client_id }), 404, 'NOT_FOUND');
    expectError(await admin.post(`/api/v1/clients/${a.client_id}/merge/preview`, { target_client_id: 'nope' }), 400, 'VALIDATION_ERROR');
    expectError(await admin.post(`/api/v1/clients/${a.client_id}/merge/preview`, { target_client_id: target.client_id, cutover_date: '2026-13-01' }), 400, 'VALIDATION_ERROR');
  });

  it('needs client:update and client:delete; the merge is flagged for human approval in OpenAPI and the tool list', async () => {
    const { admin, tenant } = await makeTenant(t);
    const [a, b] = [await makeClient(admin), await makeClient(admin)];
    const finance = (await makeUser(t, tenant, { role: 'Finance' })).api; // client read and update, no delete
    expectError(await finance.post(`/api/v1/clients/${a.client_id}/merge/preview`, { target_client_id: b.client_id }), 403, 'FORBIDDEN');
    expectError(await finance.post(`/api/v1/clients/${a.client_id}/merge`, { target_client_id: b.client_id }), 403, 'FORBIDDEN');
    const tools = (await admin.get('/api/v1/tools')).json().data as { name: string; requires_approval: boolean; permission: unknown }[];
    expect(tools.find((x) => x.name === 'mergeClient')).toMatchObject({ requires_approval: true, permission: ['client:update', 'client:delete'] });
    expect(tools.find((x) => x.name === 'previewClientMerge')?.requires_approval).toBe(false);
    const doc = (await admin.get('/api/v1/openapi.json')).json();
    expect(doc.paths['/api/v1/clients/{id}/merge'].post['x-requires-approval']).toBe(true);
  });

  it('two merges of one source at once: exactly one wins; a write racing the merge leaves nothing on the tombstone', async () => {
    const { admin } = await makeTenant(t);
    const source = await makeClient(admin);
    const [t1, t2] = [await makeClient(admin), await makeClient(admin)];
    const results = await Promise.all([t1, t2].map((target) => admin.post(`/api/v1/clients/${source.client_id}/merge`, { target_client_id: target.client_id })));
    expect(results.map((r) => r.statusCode).sort()).toEqual([200, 409]);

    const src = await makeClient(admin);
    const dst = await makeClient(admin);
    const writes = Array.from({ length: 6 }, (_, i) => admin.post('/api/v1/tickets', { title: `Race ${i}`, client_id: src.client_id }));
    const [merge, ...created] = await Promise.all([admin.post(`/api/v1/clients/${src.client_id}/merge`, { target_client_id: dst.client_id }), ...writes]);
    expect(merge.statusCode, merge.body).toBe(200);
    expect(created.every((r) => r.statusCode === 201 || r.statusCode === 409)).toBe(true);
    const left = (await t.database.db.selectFrom('tickets').select('ticket_id').where('client_id', '=', src.client_id).execute()).length;
    expect(left).toBe(0);
    const moved = (await t.database.db.selectFrom('tickets').select('ticket_id').where('client_id', '=', dst.client_id).execute()).length;
    expect(moved).toBe(created.filter((r) => r.statusCode === 201).length);
  });

  it('portal: a contact managing the moved profile with can_view_profile_tickets keeps reading its tickets; no other contact\'s visibility changes', async () => {
    const { admin, tenant } = await makeTenant(t);
    const source = await makeClient(admin, { client_name: 'Source Portal Co' });
    const target = await makeClient(admin, { client_name: 'Target Portal Co' });
    const sourceProfile = await defaultProfileId(admin, source.client_id);
    const manager = await makeContact(admin, { full_name: 'Profile Manager', client_id: source.client_id });
    const plain = await makeContact(admin, { full_name: 'Plain Contact', client_id: source.client_id });
    const targetContact = await makeContact(admin, { full_name: 'Target Contact', client_id: target.client_id });
    await ok(admin.put(`/api/v1/clients/${source.client_id}/billing-profiles/${sourceProfile}/contacts`, { contacts: [{ contact_id: manager.contact_id, can_view_profile_tickets: true }, { contact_id: plain.contact_id }] }));
    const portal = async (clientId: string, contactId: string) => (await makeUser(t, tenant, { role: 'Client Admin', userType: 'client', clientId, contactId })).api;
    const managerApi = await portal(source.client_id, manager.contact_id);
    const plainApi = await portal(source.client_id, plain.contact_id);
    const targetApi = await portal(target.client_id, targetContact.contact_id);
    const moved = await makeTicket(admin, source.client_id, { title: 'Moved ticket' });
    const own = await makeTicket(admin, target.client_id, { title: 'Target ticket' });
    const seen = async (api: Api) => (await api.get('/api/v1/tickets')).json().data.map((x: { ticket_id: string }) => x.ticket_id).sort();
    expect(await seen(managerApi)).toEqual([moved.ticket_id]);
    expect(await seen(targetApi)).toEqual([own.ticket_id]);

    await ok(admin.post(`/api/v1/clients/${source.client_id}/merge`, { target_client_id: target.client_id }));
    expect(await seen(managerApi)).toEqual([moved.ticket_id]);
    expect((await managerApi.get(`/api/v1/tickets/${moved.ticket_id}`)).statusCode).toBe(200);
    expect(await seen(plainApi)).toEqual([]);
    expect(await seen(targetApi)).toEqual([own.ticket_id]);
    expectError(await targetApi.get(`/api/v1/tickets/${moved.ticket_id}`), 404, 'NOT_FOUND');
  });

  it('every write route on a tombstone is a 409; so is every write naming it', async () => {
    const { admin } = await makeTenant(t);
    const source = await makeClient(admin, { location: { ...US, location_name: 'Old' } });
    const target = await makeClient(admin);
    const location = (await admin.get(`/api/v1/clients/${source.client_id}/locations`)).json().data[0].location_id as string;
    const profile = await defaultProfileId(admin, source.client_id);
    await ok(admin.post(`/api/v1/clients/${source.client_id}/merge`, { target_client_id: target.client_id }));
    // The location and profile moved to the target, so the tombstone's paths name ids it no longer has: 409 still comes first.
    const BODIES: Record<string, unknown> = {
      'PUT /api/v1/clients/:id': { payment_terms: 'Net 1' },
      'POST /api/v1/clients/:id/locations': { ...US, location_name: 'New' },
      'PUT /api/v1/clients/:id/locations/:locationId': { city: 'Nowhere' },
      'PUT /api/v1/clients/:id/notes': { notes: 'x' },
      'PUT /api/v1/clients/:id/tax-settings': { is_tax_exempt: true },
      'PUT /api/v1/clients/:id/billing-profiles/:profileId/contacts': { contacts: [] },
      'POST /api/v1/clients/:id/merge': { target_client_id: target.client_id },
    };
    const writes = t.app.routeTable.filter((r) => r.url.startsWith('/api/v1/clients/:id') && ['POST', 'PUT', 'PATCH', 'DELETE'].includes(String(r.method)) && r.url !== '/api/v1/clients/:id/merge/preview');
    expect(writes.length).toBeGreaterThanOrEqual(9);
    const problems: string[] = [];
    for (const route of writes) {
      const label = `${String(route.method)} ${route.url}`;
      const url = route.url.replace(':id', source.client_id).replace(':locationId', location).replace(':profileId', profile);
      const needsBody = route.method !== 'DELETE';
      if (needsBody && !(label in BODIES)) { problems.push(`${label}: no body in this test`); continue; }
      const res = await admin.request({ method: String(route.method) as 'POST', url, ...(needsBody ? { payload: BODIES[label] as object } : {}) });
      if (res.statusCode !== 409) problems.push(`${label}: expected 409, got ${res.statusCode} ${res.body.slice(0, 160)}`);
    }
    expect(problems, problems.join('\n')).toEqual([]);
    for (const [url, body] of [
      ['/api/v1/contacts', { full_name: 'Late', client_id: source.client_id }],
      ['/api/v1/projects', { project_name: 'Late', client_id: source.client_id }],
      ['/api/v1/assets', { client_id: source.client_id, asset_type: 'workstation', asset_tag: 'LATE-1', name: 'Late', status: 'active' }],
      ['/api/v1/invoices', { client_id: source.client_id }],
      ['/api/v1/quotes', { client_id: source.client_id, title: 'Late' }],
      ['/api/v1/contracts', { client_id: source.client_id }],
    ] as const) {
      expectError(await admin.post(url, body), 409, 'CONFLICT');
    }
  });
});
