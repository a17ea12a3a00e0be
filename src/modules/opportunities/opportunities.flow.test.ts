import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/harness.ts';
import { makeTenant, makeUser, type Api } from '../../../test/factories.ts';
import { anonymous, eventsOf, expectError, makeClient, makeContact, randomId } from '../../../test/client-factories.ts';
import { dueIn, makeOpportunity, type OpportunityJson } from '../../../test/opportunity-factories.ts';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => t.close());

const BASE = '/api/v1/opportunities';

async function ok(res: { statusCode: number; body: string; json(): { data: unknown } }, status = 200) {
  expect(res.statusCode, res.body).toBe(status);
  return res.json().data as OpportunityJson;
}

const stageOf = async (api: Api, id: string) => ((await api.get(`${BASE}/${id}`)).json().data as OpportunityJson).stage;

/** A quote for the client with one recurring line (USD 100.00 a month) and a one-off service line (USD 250.00), sent, and accepted when asked. */
async function makeQuote(api: Api, clientId: string, opts: { send?: boolean; accept?: boolean; currency?: string } = {}): Promise<{ quote_id: string; quote_number: string }> {
  const res = await api.post('/api/v1/quotes', {
    client_id: clientId,
    title: 'Managed services proposal',
    currency_code: opts.currency ?? 'USD',
    items: [
      { description: 'Managed endpoints', quantity: 1, unit_price_cents: 10000, is_recurring: true },
      { description: 'Onboarding', quantity: 1, unit_price_cents: 25000 },
    ],
  });
  expect(res.statusCode, res.body).toBe(201);
  const q = res.json().data;
  if (opts.send || opts.accept) expect((await api.post(`/api/v1/quotes/${q.quote_id}/send`, {})).statusCode).toBe(200);
  if (opts.accept) expect((await api.post(`/api/v1/quotes/${q.quote_id}/accept`, {})).statusCode).toBe(200);
  return q;
}

describe('opportunities: next action and steps', () => {
  it('complete-action logs the finished action as an interaction and installs the replacement in one transaction', async () => {
    const { tenant, admin } = await makeTenant(t);
    const client = await makeClient(admin);
    const contact = await makeContact(admin, { full_name: 'Milton Waddams', client_id: client.client_id });
    const o = await makeOpportunity(admin, client.client_id, { contact_id: contact.contact_id, next_action: 'Discovery call' });
    const due = dueIn(4);
    const after = await ok(await admin.post(`${BASE}/${o.opportunity_id}/complete-action`, { next_action: 'Send the proposal', next_action_due: due }));
    expect(after).toMatchObject({ next_action: 'Send the proposal', next_action_due: due, status: 'open' });
    expect(after.current_step_id).not.toBe(o.current_step_id);
    const steps = (await admin.get(`${BASE}/${o.opportunity_id}/steps`)).json().data;
    expect(steps.map((s: { title: string; status: string }) => [s.title, s.status])).toEqual([['Discovery call', 'done'], ['Send the proposal', 'current']]);
    const interactions = await t.database.db.selectFrom('interactions').selectAll().where('tenant', '=', tenant).where('opportunity_id', '=', o.opportunity_id).execute();
    expect(interactions).toHaveLength(1);
    expect(interactions[0]).toMatchObject({ title: 'Discovery call', client_id: client.client_id, contact_id: contact.contact_id });
    expect(steps[0].interaction_id).toBe(interactions[0]!.interaction_id);
    const updated = (await eventsOf(t, tenant, o.opportunity_id)).filter((e) => e.event_type === 'opportunity.updated');
    expect(updated.at(-1)!.payload).toMatchObject({ changed_fields: ['next_action', 'next_action_due'], changes: { next_action: { previous: 'Discovery call', new: 'Send the proposal' } } });
    expect((await eventsOf(t, tenant, interactions[0]!.interaction_id)).map((e) => e.event_type)).toEqual(['interaction.created']);

    expectError(await admin.post(`${BASE}/${o.opportunity_id}/complete-action`, { next_action: 'Only text' }), 400, 'VALIDATION_ERROR');
    expectError(await admin.post(`${BASE}/${o.opportunity_id}/complete-action`, { next_action: '  ', next_action_due: due }), 400, 'VALIDATION_ERROR');
    expectError(await admin.post(`${BASE}/${randomId()}/complete-action`, { next_action: 'x', next_action_due: due }), 404, 'NOT_FOUND');
    expectError(await anonymous(t).post(`${BASE}/${o.opportunity_id}/complete-action`, { next_action: 'x', next_action_due: due }), 401, 'UNAUTHORIZED');
    const finance = (await makeUser(t, tenant, { role: 'Finance' })).api;
    expectError(await finance.post(`${BASE}/${o.opportunity_id}/complete-action`, { next_action: 'x', next_action_due: due }), 403, 'FORBIDDEN');
  });

  it('keeps exactly one current next action under concurrent complete-action calls', async () => {
    const { tenant, admin } = await makeTenant(t);
    const client = await makeClient(admin);
    const o = await makeOpportunity(admin, client.client_id);
    const calls = Array.from({ length: 8 }, (_, i) => admin.post(`${BASE}/${o.opportunity_id}/complete-action`, { next_action: `Action ${i}`, next_action_due: dueIn(i + 1) }));
    const results = await Promise.all(calls);
    for (const r of results) expect(r.statusCode, r.body).toBe(200);
    const steps = await t.database.db.selectFrom('opportunity_steps').selectAll().where('tenant', '=', tenant).where('opportunity_id', '=', o.opportunity_id).execute();
    expect(steps.filter((s) => s.status === 'current')).toHaveLength(1);
    expect(steps.filter((s) => s.status === 'done')).toHaveLength(8);
    const current = steps.find((s) => s.status === 'current')!;
    const deal = (await admin.get(`${BASE}/${o.opportunity_id}`)).json().data as OpportunityJson;
    expect(deal).toMatchObject({ current_step_id: current.step_id, next_action: current.title });
    const logged = await t.database.db.selectFrom('interactions').select('interaction_id').where('tenant', '=', tenant).where('opportunity_id', '=', o.opportunity_id).execute();
    expect(logged).toHaveLength(8);
  });

  it('completes only the current step, optionally declaring a checkpoint, and answers the steps', async () => {
    const { admin } = await makeTenant(t);
    const client = await makeClient(admin);
    const o = await makeOpportunity(admin, client.client_id);
    const res = await admin.post(`${BASE}/${o.opportunity_id}/steps/${o.current_step_id}/complete`, { next_action: 'Site assessment', next_action_due: dueIn(2), checkpoint: 'qualified' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.map((s: { status: string }) => s.status)).toEqual(['done', 'current']);
    expect(await stageOf(admin, o.opportunity_id)).toBe('qualified');
    const again = await admin.post(`${BASE}/${o.opportunity_id}/steps/${o.current_step_id}/complete`, { next_action: 'x', next_action_due: dueIn(2) });
    expectError(again, 409, 'CONFLICT');
    expect(again.json().error.message).toMatch(/already done/);
    expectError(await admin.post(`${BASE}/${o.opportunity_id}/steps/${randomId()}/complete`, { next_action: 'x', next_action_due: dueIn(2) }), 404, 'NOT_FOUND');
    const other = await makeOpportunity(admin, client.client_id);
    expectError(await admin.post(`${BASE}/${o.opportunity_id}/steps/${other.current_step_id}/complete`, { next_action: 'x', next_action_due: dueIn(2) }), 404, 'NOT_FOUND');
    expectError(await admin.post(`${BASE}/${o.opportunity_id}/steps/${o.current_step_id}/complete`, { next_action: 'x', next_action_due: dueIn(2), checkpoint: 'won' }), 400, 'VALIDATION_ERROR');
    expectError(await admin.get(`${BASE}/${randomId()}/steps`), 404, 'NOT_FOUND');
  });
});

describe('opportunities: evidence and the derived stage', () => {
  it('derives the stage from the highest uncorrected checkpoint; declaring backward and corrections keep the log append-only', async () => {
    const { tenant, admin } = await makeTenant(t);
    const client = await makeClient(admin);
    const o = await makeOpportunity(admin, client.client_id);
    const q = await ok(await admin.post(`${BASE}/${o.opportunity_id}/evidence`, { checkpoint: 'qualified', detail: 'Budget confirmed' }), 201);
    expect(q.stage).toBe('qualified');
    expect(await stageOf(admin, o.opportunity_id)).toBe('qualified');
    const p = await ok(await admin.post(`${BASE}/${o.opportunity_id}/evidence`, { checkpoint: 'proposed' }), 201);
    expect(p.stage).toBe('proposed');
    expect((p.ladder as { checkpoint: string; state: string }[]).map((r) => r.state)).toEqual(['reached', 'reached', 'skipped', 'reached', 'pending', 'pending']);

    // Back to qualified: proposed is corrected with a note; qualified stays.
    const back = await ok(await admin.post(`${BASE}/${o.opportunity_id}/evidence`, { checkpoint: 'qualified' }), 201);
    expect(back.stage).toBe('qualified');
    const log = (await admin.get(`${BASE}/${o.opportunity_id}/evidence`)).json().data as { evidence_id: string; checkpoint: string; correction_note: string | null; detail: string | null }[];
    expect(log.map((e) => [e.checkpoint, e.correction_note])).toEqual([['qualified', null], ['proposed', 'Stage manually set to qualified'], ['qualified', null]]);

    // Correct both qualified facts: back to identified.
    for (const e of log.filter((x) => x.checkpoint === 'qualified')) {
      expect((await admin.post(`${BASE}/${o.opportunity_id}/evidence/${e.evidence_id}/correct`, { correction_note: 'Budget was not approved' })).statusCode).toBe(200);
    }
    expect(await stageOf(admin, o.opportunity_id)).toBe('identified');
    const again = await admin.post(`${BASE}/${o.opportunity_id}/evidence/${log[0]!.evidence_id}/correct`, { correction_note: 'Twice' });
    expectError(again, 409, 'CONFLICT');
    expect(again.json().error.message).toMatch(/already corrected/);
    expectError(await admin.post(`${BASE}/${o.opportunity_id}/evidence/${log[0]!.evidence_id}/correct`, { correction_note: '' }), 400, 'VALIDATION_ERROR');
    expectError(await admin.post(`${BASE}/${o.opportunity_id}/evidence/${log[0]!.evidence_id}/correct`, {}), 400, 'VALIDATION_ERROR');
    expectError(await admin.post(`${BASE}/${o.opportunity_id}/evidence/${randomId()}/correct`, { correction_note: 'x' }), 404, 'NOT_FOUND');
    expectError(await admin.post(`${BASE}/${o.opportunity_id}/evidence`, { checkpoint: 'won' }), 400, 'VALIDATION_ERROR');
    expectError(await admin.post(`${BASE}/${o.opportunity_id}/evidence`, { checkpoint: 'qualified', recorded_at: '2020-01-01T00:00:00Z' }), 400, 'VALIDATION_ERROR');
    expect((await admin.get(`${BASE}/${o.opportunity_id}/evidence`)).json().data).toHaveLength(3);

    const changes = (await eventsOf(t, tenant, o.opportunity_id)).filter((e) => e.event_type === 'opportunity.stage_changed').map((e) => [e.payload.previous_stage, e.payload.stage]);
    expect(changes).toEqual([['identified', 'qualified'], ['qualified', 'proposed'], ['proposed', 'qualified'], ['qualified', 'identified']]);
  });
});

describe('opportunities: win and lose', () => {
  it('wins: status and stage won, the next action gone, won evidence and event; then every open-only operation is a 409', async () => {
    const { tenant, admin } = await makeTenant(t);
    const client = await makeClient(admin);
    const o = await makeOpportunity(admin, client.client_id);
    await admin.post(`${BASE}/${o.opportunity_id}/evidence`, { checkpoint: 'verbal' });
    const won = await ok(await admin.post(`${BASE}/${o.opportunity_id}/win`));
    expect(won).toMatchObject({ status: 'won', stage: 'won', next_action: null, next_action_due: null, current_step_id: null, converted_contract_id: null, converted_project_id: null });
    expect(won.won_at).toBeTruthy();
    const steps = (await admin.get(`${BASE}/${o.opportunity_id}/steps`)).json().data;
    expect(steps.map((s: { status: string }) => s.status)).toEqual(['skipped']);
    const evidence = (await admin.get(`${BASE}/${o.opportunity_id}/evidence`)).json().data;
    expect(evidence.at(-1)).toMatchObject({ checkpoint: 'won', source: 'user_declared', detail: 'Opportunity marked won' });
    const wonEvent = (await eventsOf(t, tenant, o.opportunity_id)).find((e) => e.event_type === 'opportunity.won')!;
    expect(wonEvent.payload).toMatchObject({ previous_stage: 'verbal', currency_code: 'USD' });

    const id = o.opportunity_id;
    const refusals = [
      await admin.post(`${BASE}/${id}/win`, {}),
      await admin.post(`${BASE}/${id}/lose`, { loss_reason: 'price' }),
      await admin.post(`${BASE}/${id}/complete-action`, { next_action: 'x', next_action_due: dueIn(1) }),
      await admin.post(`${BASE}/${id}/steps/${o.current_step_id}/complete`, { next_action: 'x', next_action_due: dueIn(1) }),
      await admin.post(`${BASE}/${id}/evidence`, { checkpoint: 'qualified' }),
      await admin.put(`${BASE}/${id}`, { title: 'Renamed' }),
    ];
    for (const r of refusals) {
      expectError(r, 409, 'CONFLICT');
      expect(r.json().error.message).toMatch(/is won; only open opportunities can/);
    }
  });

  it('open commitments block a win until they are resolved', async () => {
    const { tenant, admin, adminUserId } = await makeTenant(t);
    const client = await makeClient(admin);
    const o = await makeOpportunity(admin, client.client_id);
    const commitmentId = randomId();
    await t.database.db.insertInto('opportunity_commitments').values({ tenant, commitment_id: commitmentId, opportunity_id: o.opportunity_id, description: 'Include a free site survey', made_by: adminUserId }).execute();
    expect((await admin.get(`${BASE}/${o.opportunity_id}`)).json().data.open_commitment_count).toBe(1);
    const blocked = await admin.post(`${BASE}/${o.opportunity_id}/win`, {});
    expectError(blocked, 409, 'CONFLICT');
    expect(blocked.json().error.message).toBe('Resolve or decline 1 open commitment(s) before marking this opportunity won');
    await t.database.db.updateTable('opportunity_commitments').set({ resolution_status: 'declined', resolved_at: new Date() }).where('commitment_id', '=', commitmentId).execute();
    expect((await admin.post(`${BASE}/${o.opportunity_id}/win`, {})).statusCode).toBe(200);
  });

  it('loses with a reason from the list', async () => {
    const { tenant, admin } = await makeTenant(t);
    const client = await makeClient(admin);
    const o = await makeOpportunity(admin, client.client_id);
    expectError(await admin.post(`${BASE}/${o.opportunity_id}/lose`, {}), 400, 'VALIDATION_ERROR');
    expectError(await admin.post(`${BASE}/${o.opportunity_id}/lose`, { loss_reason: 'bad_luck' }), 400, 'VALIDATION_ERROR');
    const lost = await ok(await admin.post(`${BASE}/${o.opportunity_id}/lose`, { loss_reason: 'chose_competitor', loss_notes: 'Cheaper bid', lost_to: 'Initrode' }));
    expect(lost).toMatchObject({ status: 'lost', stage: 'lost', loss_reason: 'chose_competitor', loss_notes: 'Cheaper bid', lost_to: 'Initrode', next_action: null, current_step_id: null });
    expect((await eventsOf(t, tenant, o.opportunity_id)).at(-1)).toMatchObject({ event_type: 'opportunity.lost', payload: { loss_reason: 'chose_competitor' } });
    const again = await admin.post(`${BASE}/${o.opportunity_id}/lose`, { loss_reason: 'price' });
    expectError(again, 409, 'CONFLICT');
    expectError(await admin.post(`${BASE}/${randomId()}/lose`, { loss_reason: 'price' }), 404, 'NOT_FOUND');
  });
});

describe('opportunities: linked quotes', () => {
  it('links same-client quotes: sent is proposed, accepted is verbal and sets a locked value; mixed currencies are a 409', async () => {
    const { tenant, admin } = await makeTenant(t);
    const client = await makeClient(admin);
    const other = await makeClient(admin, { client_name: 'Someone else' });
    const o = await makeOpportunity(admin, client.client_id, { mrr_cents: 777, nrr_cents: 888 });
    const foreign = await makeQuote(admin, other.client_id);
    const refused = await admin.post(`${BASE}/${o.opportunity_id}/quotes/${foreign.quote_id}/link`);
    expectError(refused, 409, 'CONFLICT');
    expect(refused.json().error.message).toMatch(/belongs to another client/);
    expectError(await admin.post(`${BASE}/${o.opportunity_id}/quotes/${randomId()}/link`), 404, 'NOT_FOUND');

    const q = await makeQuote(admin, client.client_id, { send: true });
    const linked = await ok(await admin.post(`${BASE}/${o.opportunity_id}/quotes/${q.quote_id}/link`));
    expect(linked).toMatchObject({ stage: 'proposed', mrr_cents: 777, values_locked_by_quote: false });
    expect((linked.linked_quotes as { quote_id: string; status: string }[]).map((l) => [l.quote_id, l.status])).toEqual([[q.quote_id, 'sent']]);
    // Linking again is a no-op; another deal cannot take it.
    expect((await admin.post(`${BASE}/${o.opportunity_id}/quotes/${q.quote_id}/link`)).statusCode).toBe(200);
    const second = await makeOpportunity(admin, client.client_id);
    expectError(await admin.post(`${BASE}/${second.opportunity_id}/quotes/${q.quote_id}/link`), 409, 'CONFLICT');

    // The client accepts the quote: the deal hears it in the quote's own transaction.
    expect((await admin.post(`/api/v1/quotes/${q.quote_id}/accept`, {})).statusCode).toBe(200);
    const accepted = (await admin.get(`${BASE}/${o.opportunity_id}`)).json().data as OpportunityJson;
    expect(accepted).toMatchObject({ stage: 'verbal', mrr_cents: 10000, nrr_cents: 25000, hardware_cents: 0, currency_code: 'USD', values_locked_by_quote: true });
    const locked = await admin.put(`${BASE}/${o.opportunity_id}`, { mrr_cents: 1 });
    expectError(locked, 409, 'CONFLICT');
    expect(locked.json().error.message).toMatch(/locked by an accepted quote/);
    expect((await admin.put(`${BASE}/${o.opportunity_id}`, { title: 'Still editable' })).statusCode).toBe(200);

    const euro = await makeQuote(admin, client.client_id, { accept: true, currency: 'EUR' });
    const mixed = await admin.post(`${BASE}/${o.opportunity_id}/quotes/${euro.quote_id}/link`);
    expectError(mixed, 409, 'CONFLICT');
    expect(mixed.json().error.message).toMatch(/EUR and USD/);
    expect(await t.database.db.selectFrom('opportunity_quotes').select('quote_id').where('tenant', '=', tenant).where('quote_id', '=', euro.quote_id).execute()).toEqual([]);

    // Unlinking the accepted quote corrects its evidence and releases the lock, keeping the value.
    const unlinked = await ok(await admin.post(`${BASE}/${o.opportunity_id}/quotes/${q.quote_id}/unlink`));
    expect(unlinked).toMatchObject({ stage: 'identified', mrr_cents: 10000, nrr_cents: 25000, values_locked_by_quote: false, linked_quotes: [] });
    const notes = ((await admin.get(`${BASE}/${o.opportunity_id}/evidence`)).json().data as { correction_note: string }[]).map((e) => e.correction_note);
    expect(notes).toEqual([`Quote ${q.quote_number} unlinked`, `Quote ${q.quote_number} unlinked`]);
    expectError(await admin.post(`${BASE}/${o.opportunity_id}/quotes/${q.quote_id}/unlink`), 404, 'NOT_FOUND');
  });

  it('never resets a hand-entered value to zero when a draft quote is unlinked', async () => {
    const { admin } = await makeTenant(t);
    const client = await makeClient(admin);
    const o = await makeOpportunity(admin, client.client_id, { mrr_cents: 5000, nrr_cents: 1200, hardware_cents: 300 });
    const draft = await makeQuote(admin, client.client_id);
    await ok(await admin.post(`${BASE}/${o.opportunity_id}/quotes/${draft.quote_id}/link`));
    expectError(await admin.delete(`${BASE}/${o.opportunity_id}`), 409, 'CONFLICT');
    const after = await ok(await admin.post(`${BASE}/${o.opportunity_id}/quotes/${draft.quote_id}/unlink`));
    expect(after).toMatchObject({ mrr_cents: 5000, nrr_cents: 1200, hardware_cents: 300, values_locked_by_quote: false });
  });

  it('wins converting an accepted linked quote into a draft contract and applying a project template, in one transaction', async () => {
    const { tenant, admin } = await makeTenant(t);
    const client = await makeClient(admin);
    const template = await admin.post('/api/projects/templates', { template_name: 'Onboarding', phases: [{ phase_name: 'Kick-off', tasks: [{ task_name: 'Collect credentials' }] }] });
    expect(template.statusCode, template.body).toBe(201);
    const templateId = template.json().data.template_id as string;
    const o = await makeOpportunity(admin, client.client_id, { title: 'Managed services' });
    const q = await makeQuote(admin, client.client_id, { accept: true });
    const unlinked = await admin.post(`${BASE}/${o.opportunity_id}/win`, { convert_quote_id: q.quote_id });
    expectError(unlinked, 409, 'CONFLICT');
    expect(unlinked.json().error.message).toMatch(/must be linked/);
    await ok(await admin.post(`${BASE}/${o.opportunity_id}/quotes/${q.quote_id}/link`));

    // A failing conversion (unknown template) rolls everything back: no contract, quote not converted, deal open.
    const failed = await admin.post(`${BASE}/${o.opportunity_id}/win`, { convert_quote_id: q.quote_id, project_template_id: randomId() });
    expectError(failed, 404, 'NOT_FOUND');
    expect((await admin.get(`/api/v1/quotes/${q.quote_id}`)).json().data.converted_contract_id).toBeNull();
    expect((await admin.get(`/api/v1/contracts?client_id=${client.client_id}`)).json().pagination.total).toBe(0);
    expect((await admin.get(`${BASE}/${o.opportunity_id}`)).json().data.status).toBe('open');

    const won = await ok(await admin.post(`${BASE}/${o.opportunity_id}/win`, { convert_quote_id: q.quote_id, project_template_id: templateId, project_start_date: '2027-01-04' }));
    expect(won.status).toBe('won');
    const contract = await admin.get(`/api/v1/contracts/${won.converted_contract_id as string}`);
    expect(contract.statusCode, contract.body).toBe(200);
    expect(contract.json().data).toMatchObject({ client_id: client.client_id, status: 'draft', currency_code: 'USD' });
    const project = await admin.get(`/api/v1/projects/${won.converted_project_id as string}`);
    expect(project.statusCode, project.body).toBe(200);
    expect(project.json().data).toMatchObject({ project_name: 'Managed services', client_id: client.client_id, start_date: '2027-01-04' });
    expect((await eventsOf(t, tenant, o.opportunity_id)).at(-1)).toMatchObject({ event_type: 'opportunity.won', payload: { converted_contract_id: won.converted_contract_id, converted_project_id: won.converted_project_id } });
  });

  it('refuses a conversion the caller may not make, and a quote that is not accepted', async () => {
    const { tenant, admin } = await makeTenant(t);
    const client = await makeClient(admin);
    const o = await makeOpportunity(admin, client.client_id);
    const sent = await makeQuote(admin, client.client_id, { send: true });
    await ok(await admin.post(`${BASE}/${o.opportunity_id}/quotes/${sent.quote_id}/link`));
    const notAccepted = await admin.post(`${BASE}/${o.opportunity_id}/win`, { convert_quote_id: sent.quote_id });
    expectError(notAccepted, 409, 'CONFLICT');
    expect(notAccepted.json().error.message).toMatch(/only an accepted quote can be converted/);
    // A scoped key with opportunity rights but no contract:create cannot convert through the deal.
    const scoped = (await makeUser(t, tenant, { role: 'Admin', scopes: ['opportunity:read', 'opportunity:update'] })).api;
    expectError(await scoped.post(`${BASE}/${o.opportunity_id}/win`, { convert_quote_id: sent.quote_id }), 403, 'FORBIDDEN');
    expect((await admin.get(`${BASE}/${o.opportunity_id}`)).json().data.status).toBe('open');
  });
});

describe('opportunities: from suggestion to win', () => {
  it('runs a deal end to end: accepted suggestion, next actions, evidence, an accepted linked quote becoming a draft contract, a project from a template', async () => {
    const { tenant, admin } = await makeTenant(t);
    const client = await makeClient(admin, { client_name: 'Cyberdyne' });
    const suggestionId = randomId();
    await t.database.db.insertInto('opportunity_suggestions')
      .values({ tenant, suggestion_id: suggestionId, generator_key: 'renewal', client_id: client.client_id, title: 'Renew the managed services agreement', evidence: { contract: 'MSA 2026' }, currency_code: 'USD', dedupe_key: 'renewal:e2e', mrr_cents: 9000, nrr_cents: 0 })
      .execute();
    const accepted = await ok(await admin.post(`${BASE}/suggestions/${suggestionId}/accept`, {}), 201);
    expect(accepted).toMatchObject({ opportunity_type: 'renewal', next_action: 'Start the renewal conversation', generator_key: 'renewal', suggestion_id: suggestionId, mrr_cents: 9000, stage: 'identified' });
    const id = accepted.opportunity_id;
    await ok(await admin.post(`${BASE}/${id}/complete-action`, { next_action: 'Walk through the new scope', next_action_due: dueIn(3) }));
    await ok(await admin.post(`${BASE}/${id}/evidence`, { checkpoint: 'qualified', detail: 'Renewal budget approved' }), 201);
    const q = await makeQuote(admin, client.client_id, { send: true });
    expect((await ok(await admin.post(`${BASE}/${id}/quotes/${q.quote_id}/link`))).stage).toBe('proposed');
    expect((await admin.post(`/api/v1/quotes/${q.quote_id}/accept`, {})).statusCode).toBe(200);
    expect(await stageOf(admin, id)).toBe('verbal');
    const template = await admin.post('/api/projects/templates', { template_name: 'Renewal onboarding', phases: [{ phase_name: 'Review', tasks: [{ task_name: 'Audit devices' }] }] });
    const won = await ok(await admin.post(`${BASE}/${id}/win`, { convert_quote_id: q.quote_id, project_template_id: template.json().data.template_id }));
    expect(won).toMatchObject({ status: 'won', stage: 'won', mrr_cents: 10000, nrr_cents: 25000, values_locked_by_quote: true });
    expect((await admin.get(`/api/v1/contracts/${won.converted_contract_id as string}`)).json().data.status).toBe('draft');
    expect((await admin.get(`/api/v1/projects/${won.converted_project_id as string}`)).json().data.project_name).toBe('Renew the managed services agreement');
    const timeline = (await admin.get(`${BASE}/${id}/timeline`)).json().data as { title: string }[];
    expect(timeline.map((e) => e.title)).toEqual(['Start the renewal conversation']);
    expect((await eventsOf(t, tenant, id)).map((e) => e.event_type)).toEqual([
      'opportunity.created', 'opportunity.updated', 'opportunity.stage_changed', 'opportunity.stage_changed', 'opportunity.updated',
      'opportunity.updated', 'opportunity.stage_changed', 'opportunity.won',
    ]);
  });
});
