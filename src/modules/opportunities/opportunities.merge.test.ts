import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, engine, type TestApp } from '../../../test/harness.ts';
import { makeTenant, unique, type Api, type Res } from '../../../test/factories.ts';
import { defaultProfileId, eventsOf, expectStatus, makeClient, makeContact } from '../../../test/client-factories.ts';
import { search, uniqueWord } from '../../../test/search-kit.ts';
import { newId } from '../../platform/ids.ts';
import type { MergeContext } from '../clients/index.ts';
import { opportunitiesMergeParticipant } from './opportunities.merge.ts';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => { await t.close(); });

const participant = opportunitiesMergeParticipant();

const ok = <T = Record<string, unknown>>(res: Res, status = 200): T => {
  expectStatus(res, status);
  return res.json().data as T;
};

async function makeDeal(api: Api, clientId: string, body: Record<string, unknown> = {}): Promise<{ opportunity_id: string; opportunity_number: string }> {
  return ok(await api.post('/api/v1/opportunities', {
    client_id: clientId, title: unique('Deal'), opportunity_type: 'expansion', currency_code: 'USD',
    next_action: 'Call the buyer', next_action_due: '2030-01-01T09:00:00.000Z', ...body,
  }), 201);
}

async function makeInteraction(api: Api, body: Record<string, unknown>): Promise<{ interaction_id: string }> {
  return ok(await api.post('/api/v1/interactions', { interaction_type: 'call', title: unique('Call'), ...body }), 201);
}

async function suggestion(tenant: string, clientId: string, dedupeKey: string, title = 'Suggested'): Promise<string> {
  const id = newId();
  await t.database.db.insertInto('opportunity_suggestions').values({
    tenant, suggestion_id: id, generator_key: 'tm_conversion', client_id: clientId, title, evidence: JSON.stringify({ months: 12 }),
    mrr_cents: 10_000, nrr_cents: 0, currency_code: 'USD', dedupe_key: dedupeKey,
  }).execute();
  return id;
}

async function trigger(tenant: string, clientId: string, key: string): Promise<void> {
  await t.database.db.insertInto('opportunity_qbr_triggers').values({ tenant, trigger_key: key, client_id: clientId, kind: 'ticket_trend' }).execute();
}

/** A source client with a deal (and its contact), interactions, a suggestion and QBR triggers; a target with a duplicate suggestion and trigger. */
async function duplicate(admin: Api, tenant: string) {
  const [sw, tw] = [uniqueWord(), uniqueWord()];
  const source = await makeClient(admin, { client_name: `${sw} (duplicate)` });
  const target = await makeClient(admin, { client_name: `${tw} Corp` });
  const bystander = await makeClient(admin);
  const contact = await makeContact(admin, { client_id: source.client_id, full_name: 'Dana Source' });
  const deal = await makeDeal(admin, source.client_id, { contact_id: contact.contact_id });
  const onDeal = await makeInteraction(admin, { client_id: source.client_id, contact_id: contact.contact_id, opportunity_id: deal.opportunity_id, title: `${sw} kickoff` });
  const loose = await makeInteraction(admin, { client_id: source.client_id, title: `${sw} note`, interaction_type: 'note' });
  const targetInteraction = await makeInteraction(admin, { client_id: target.client_id });
  const bystanderDeal = await makeDeal(admin, bystander.client_id);
  const bystanderInteraction = await makeInteraction(admin, { client_id: bystander.client_id, opportunity_id: bystanderDeal.opportunity_id });
  const moving = await suggestion(tenant, source.client_id, `whitespace:${source.client_id}:backup`);
  const duplicateOfTarget = await suggestion(tenant, source.client_id, `tm:${source.client_id}:2026-Q4`, 'Source T&M');
  const kept = await suggestion(tenant, target.client_id, `tm:${target.client_id}:2026-Q4`, 'Target T&M');
  await trigger(tenant, source.client_id, `ticket_trend:${source.client_id}:2026-Q3`);
  await trigger(tenant, source.client_id, `ticket_trend:${source.client_id}:2026-Q4`);
  await trigger(tenant, target.client_id, `ticket_trend:${target.client_id}:2026-Q4`);
  return { sw, tw, source, target, bystander, contact, deal, onDeal, loose, targetInteraction, bystanderDeal, bystanderInteraction, moving, duplicateOfTarget, kept };
}

describe(`client merge: the opportunities participant (${engine})`, () => {
  it('the preview counts the deals, interactions, suggestions and triggers; the merge moves them with events and search', async () => {
    const { tenant, admin } = await makeTenant(t);
    const d = await duplicate(admin, tenant);
    const expected = {
      opportunities: 1, interactions: 2, opportunity_suggestions: 1, opportunity_suggestions_dropped: 1,
      opportunity_qbr_triggers: 1, opportunity_qbr_triggers_dropped: 1,
    };

    const preview = ok<{ plan: { counts: Record<string, number> }; blockers: unknown[] }>(await admin.post(`/api/v1/clients/${d.source.client_id}/merge/preview`, { target_client_id: d.target.client_id }));
    expect(preview.blockers).toEqual([]);
    expect(preview.plan.counts).toMatchObject({ ...expected, contacts: 1 });
    // The preview moved nothing.
    expect(ok<{ client_id: string }>(await admin.get(`/api/v1/opportunities/${d.deal.opportunity_id}`)).client_id).toBe(d.source.client_id);

    const merged = ok<{ counts: Record<string, number> }>(await admin.post(`/api/v1/clients/${d.source.client_id}/merge`, { target_client_id: d.target.client_id }));
    expect(merged.counts).toEqual(preview.plan.counts);

    const deal = ok<Record<string, unknown>>(await admin.get(`/api/v1/opportunities/${d.deal.opportunity_id}`));
    expect(deal).toMatchObject({ client_id: d.target.client_id, client_name: `${d.tw} Corp`, contact_id: d.contact.contact_id });
    for (const i of [d.onDeal, d.loose]) {
      expect(ok<Record<string, unknown>>(await admin.get(`/api/v1/interactions/${i.interaction_id}`))).toMatchObject({ client_id: d.target.client_id, client_name: `${d.tw} Corp` });
    }
    expect(ok<Record<string, unknown>>(await admin.get(`/api/v1/interactions/${d.onDeal.interaction_id}`))).toMatchObject({ contact_id: d.contact.contact_id, opportunity_id: d.deal.opportunity_id });
    // The deal keeps its timeline; the target's list shows every interaction.
    expect(ok<unknown[]>(await admin.get(`/api/v1/opportunities/${d.deal.opportunity_id}/timeline`))).toHaveLength(1);
    expect(ok<unknown[]>(await admin.get(`/api/v1/interactions?client_id=${d.target.client_id}`))).toHaveLength(3);
    expect(ok<unknown[]>(await admin.get(`/api/v1/interactions?client_id=${d.source.client_id}`))).toHaveLength(0);

    const changes = { client_id: { previous: d.source.client_id, new: d.target.client_id } };
    expect((await eventsOf(t, tenant, d.deal.opportunity_id)).at(-1)).toMatchObject({ event_type: 'opportunity.updated', payload: { opportunity_id: d.deal.opportunity_id, client_id: d.target.client_id, changes, merge: true } });
    for (const i of [d.onDeal, d.loose]) {
      const events = await eventsOf(t, tenant, i.interaction_id);
      expect(events.map((e) => e.event_type)).toEqual(['interaction.created', 'interaction.updated']);
      expect(events[1]!.payload).toMatchObject({ interaction_id: i.interaction_id, client_id: d.target.client_id, changes, merge: true });
    }

    // Suggestions and triggers: keys renamed to the target; the target's duplicate kept, the source's dropped.
    const suggestions = await t.database.db.selectFrom('opportunity_suggestions').select(['suggestion_id', 'client_id', 'dedupe_key', 'title']).where('tenant', '=', tenant).orderBy('dedupe_key').execute();
    expect(suggestions).toEqual([
      { suggestion_id: d.kept, client_id: d.target.client_id, dedupe_key: `tm:${d.target.client_id}:2026-Q4`, title: 'Target T&M' },
      { suggestion_id: d.moving, client_id: d.target.client_id, dedupe_key: `whitespace:${d.target.client_id}:backup`, title: 'Suggested' },
    ]);
    const triggers = await t.database.db.selectFrom('opportunity_qbr_triggers').select(['trigger_key', 'client_id']).where('tenant', '=', tenant).orderBy('trigger_key').execute();
    expect(triggers).toEqual([
      { trigger_key: `ticket_trend:${d.target.client_id}:2026-Q3`, client_id: d.target.client_id },
      { trigger_key: `ticket_trend:${d.target.client_id}:2026-Q4`, client_id: d.target.client_id },
    ]);

    // Search shows the moved records under the target at once.
    const hits = await search(admin, { query: `${d.sw} kickoff`, types: 'interaction' });
    expect(hits.results.map((r) => [r.id, r.subtitle])).toEqual([[d.onDeal.interaction_id, `call | ${d.tw} Corp | Dana Source`]]);
    const docs = await t.database.db.selectFrom('search_documents').select(['object_type', 'object_id', 'client_id']).where('tenant', '=', tenant)
      .where('object_id', 'in', [d.deal.opportunity_id, d.onDeal.interaction_id, d.loose.interaction_id]).execute();
    expect(docs.map((r) => r.client_id)).toEqual([d.target.client_id, d.target.client_id, d.target.client_id]);

    // The bystander's records are untouched.
    expect(ok<Record<string, unknown>>(await admin.get(`/api/v1/opportunities/${d.bystanderDeal.opportunity_id}`)).client_id).toBe(d.bystander.client_id);
    expect(ok<Record<string, unknown>>(await admin.get(`/api/v1/interactions/${d.bystanderInteraction.interaction_id}`)).client_id).toBe(d.bystander.client_id);
    expect(await eventsOf(t, tenant, d.bystanderInteraction.interaction_id)).toHaveLength(1);
  });

  it('count and move agree inside one transaction; a second run moves nothing', async () => {
    const { tenant, admin } = await makeTenant(t);
    const d = await duplicate(admin, tenant);
    const ctx: MergeContext = {
      tenant, sourceId: d.source.client_id, targetId: d.target.client_id, cutoverDate: '2026-11-01',
      profileIds: [await defaultProfileId(admin, d.source.client_id)], actorUserId: null,
    };
    const run = () => t.database.db.transaction().execute(async (trx) => ({ counts: await participant.count(trx, ctx), moved: await participant.move(trx, ctx) }));
    const first = await run();
    expect(first.counts).toEqual({ opportunities: 1, interactions: 2, opportunity_suggestions: 1, opportunity_suggestions_dropped: 1, opportunity_qbr_triggers: 1, opportunity_qbr_triggers_dropped: 1 });
    expect(first.moved).toEqual(first.counts);
    const zero = { opportunities: 0, interactions: 0, opportunity_suggestions: 0, opportunity_qbr_triggers: 0 };
    expect(await run()).toEqual({ counts: zero, moved: zero });
  });
});
