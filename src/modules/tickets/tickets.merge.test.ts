import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/harness.ts';
import { makeTenant, makeUser, type Api } from '../../../test/factories.ts';
import { defaultProfileId, eventsOf, expectStatus, makeClient, makeContact, tombstone } from '../../../test/client-factories.ts';
import { search, uniqueWord } from '../../../test/search-kit.ts';
import { makeTicket, type TicketJson } from '../../../test/ticket-factories.ts';
import { makeAsset } from '../../../test/asset-factories.ts';
import { makeProject } from '../../../test/project-factories.ts';
import type { MergeContext } from '../clients/index.ts';
import { ticketsMergeParticipant } from './tickets.merge.ts';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => { await t.close(); });

const participant = ticketsMergeParticipant({ publicUrl: 'https://psa.test' });

/** count then move in one transaction, as the merge runs them. */
async function runMerge(ctx: MergeContext) {
  return t.database.db.transaction().execute(async (trx) => {
    const counts = await participant.count(trx, ctx);
    const moved = await participant.move(trx, ctx);
    return { counts, moved };
  });
}

const contextOf = (tenant: string, sourceId: string, targetId: string, profileId: string): MergeContext =>
  ({ tenant, sourceId, targetId, cutoverDate: '2026-11-01', profileIds: [profileId], actorUserId: null });

async function ticketRow(tenant: string, ticketId: string) {
  return t.database.db.selectFrom('tickets').selectAll().where('tenant', '=', tenant).where('ticket_id', '=', ticketId).executeTakeFirstOrThrow();
}

async function getTicket(api: Api, ticketId: string): Promise<TicketJson> {
  const res = await api.get(`/api/v1/tickets/${ticketId}`);
  expectStatus(res, 200);
  return res.json().data as TicketJson;
}

async function listIds(api: Api, query = ''): Promise<string[]> {
  const res = await api.get(`/api/v1/tickets${query}`);
  expectStatus(res, 200);
  const body = res.json();
  expect(body.pagination.total).toBe(body.data.length);
  return (body.data as TicketJson[]).map((x) => x.ticket_id).sort();
}

const sorted = (...ids: string[]) => [...ids].sort();

describe('the tickets merge participant', () => {
  it('moves every ticket of the source to the target, remembering the source profile, with events and search', async () => {
    const { tenant, admin } = await makeTenant(t);
    const [sw, tw] = [uniqueWord(), uniqueWord()];
    const source = await makeClient(admin, { client_name: `${sw} Ltd` });
    const target = await makeClient(admin, { client_name: `${tw} Holdings` });
    const other = await makeClient(admin);
    const sourceProfile = await defaultProfileId(admin, source.client_id);
    const targetProfile = await defaultProfileId(admin, target.client_id);
    const contact = await makeContact(admin, { client_id: source.client_id });

    const a = await makeTicket(admin, source.client_id, { title: 'Printer offline', contact_name_id: contact.contact_id });
    const b = await makeTicket(admin, source.client_id, { title: 'Mail bounces' });
    const c = await makeTicket(admin, source.client_id, { title: 'VPN drops' });
    // A ticket that already belongs to a profile keeps it.
    await t.database.db.updateTable('tickets').set({ billing_profile_id: targetProfile }).where('tenant', '=', tenant).where('ticket_id', '=', c.ticket_id).execute();
    const comment = await admin.post(`/api/v1/tickets/${a.ticket_id}/comments`, { comment_text: 'Rebooted it' });
    expectStatus(comment, 201);
    const own = await makeTicket(admin, target.client_id, { title: 'Target own' });
    const elsewhere = await makeTicket(admin, other.client_id, { title: 'Elsewhere' });
    const [ownBefore, elsewhereBefore] = [await ticketRow(tenant, own.ticket_id), await ticketRow(tenant, elsewhere.ticket_id)];
    const eventCount = async (id: string) => (await eventsOf(t, tenant, id)).length;
    const [ownEvents, elsewhereEvents] = [await eventCount(own.ticket_id), await eventCount(elsewhere.ticket_id)];

    const { counts, moved } = await runMerge(contextOf(tenant, source.client_id, target.client_id, sourceProfile));
    expect(counts).toEqual({ tickets: 3 });
    expect(moved).toEqual(counts);

    for (const ticket of [a, b, c]) {
      expect(await getTicket(admin, ticket.ticket_id)).toMatchObject({ client_id: target.client_id, client_name: `${tw} Holdings` });
      const events = await eventsOf(t, tenant, ticket.ticket_id);
      const last = events.at(-1)!;
      expect(last.event_type).toBe('ticket.updated');
      expect(last.payload).toMatchObject({
        changes: { client_id: { previous: source.client_id, new: target.client_id } },
        merge: true,
        data: { ticket_id: ticket.ticket_id, client_id: target.client_id, client_name: `${tw} Holdings` },
      });
      expect(events.filter((e) => (e.payload as { merge?: boolean }).merge)).toHaveLength(1);
    }
    expect((await getTicket(admin, a.ticket_id)).contact_name_id).toBe(contact.contact_id);
    expect((await ticketRow(tenant, a.ticket_id)).billing_profile_id).toBe(sourceProfile);
    expect((await ticketRow(tenant, b.ticket_id)).billing_profile_id).toBe(sourceProfile);
    expect((await ticketRow(tenant, c.ticket_id)).billing_profile_id).toBe(targetProfile);

    // Search shows the moved tickets under the target's name, none under the source's.
    const byTarget = await search(admin, { query: tw, types: 'ticket', limit: 50 });
    expect(byTarget.results.map((r) => r.id).sort()).toEqual(sorted(a.ticket_id, b.ticket_id, c.ticket_id, own.ticket_id));
    expect(byTarget.results.find((r) => r.id === a.ticket_id)!.subtitle).toBe(`${tw} Holdings | ${a.ticket_number}`);
    expect((await search(admin, { query: sw, types: 'ticket' })).totalCount).toBe(0);
    // Profile tickets are scoped to no client for portal search; the comment follows its ticket.
    const docs = await t.database.db.selectFrom('search_documents').select(['object_type', 'object_id', 'client_id']).where('tenant', '=', tenant)
      .where('object_id', 'in', [a.ticket_id, own.ticket_id, comment.json().data.comment_id]).execute();
    expect(docs.map((d) => [d.object_id, d.client_id]).sort()).toEqual([[a.ticket_id, null], [own.ticket_id, target.client_id], [comment.json().data.comment_id, null]].sort());

    // Other records untouched.
    expect(await ticketRow(tenant, own.ticket_id)).toEqual(ownBefore);
    expect(await ticketRow(tenant, elsewhere.ticket_id)).toEqual(elsewhereBefore);
    expect(await eventCount(own.ticket_id)).toBe(ownEvents);
    expect(await eventCount(elsewhere.ticket_id)).toBe(elsewhereEvents);

    // Nothing is left to move.
    expect(await runMerge(contextOf(tenant, source.client_id, target.client_id, sourceProfile))).toEqual({ counts: { tickets: 0 }, moved: { tickets: 0 } });
  });
});

describe('portal visibility of tickets a merge moved', () => {
  it("keeps them readable for the source profile's contacts with can_view_profile_tickets, and for nobody else in the portal", async () => {
    const { tenant, admin } = await makeTenant(t);
    const source = await makeClient(admin);
    const target = await makeClient(admin);
    const sourceProfile = await defaultProfileId(admin, source.client_id);
    const [flagged, unflagged, targetContact] = [
      await makeContact(admin, { client_id: source.client_id }),
      await makeContact(admin, { client_id: source.client_id }),
      await makeContact(admin, { client_id: target.client_id }),
    ];
    expectStatus(await admin.put(`/api/v1/clients/${source.client_id}/billing-profiles/${sourceProfile}/contacts`, {
      contacts: [{ contact_id: flagged.contact_id, can_view_profile_tickets: true }, { contact_id: unflagged.contact_id }],
    }), 200);
    const portal = async (clientId: string, contactId?: string) =>
      (await makeUser(t, tenant, { role: 'Client Admin', userType: 'client', clientId, contactId })).api;
    const withFlag = await portal(source.client_id, flagged.contact_id);
    const withoutFlag = await portal(source.client_id, unflagged.contact_id);
    const noContact = await portal(source.client_id);
    const ofTarget = await portal(target.client_id, targetContact.contact_id);

    const title = uniqueWord();
    const s1 = await makeTicket(admin, source.client_id, { title: `${title} one` });
    const s2 = await makeTicket(admin, source.client_id, { title: `${title} two` });
    const tt = await makeTicket(admin, target.client_id, { title: `${title} target` });
    expectStatus(await admin.post(`/api/v1/tickets/${s1.ticket_id}/comments`, { comment_text: 'Looking into it' }), 201);
    // Staff link the source's ticket to the target's asset and project (links may cross clients).
    const asset = await makeAsset(admin, { client_id: target.client_id });
    const project = await makeProject(admin, { client_id: target.client_id });
    expectStatus(await admin.post(`/api/v1/assets/${asset.asset_id}/tickets`, { ticket_id: s1.ticket_id }), 201);
    expectStatus(await admin.post(`/api/v1/projects/${project.project_id}/tickets`, { ticket_id: s1.ticket_id }), 201);
    const linkedTo = async (api: Api) => {
      const [a, p, summary] = [
        await api.get(`/api/v1/assets/${asset.asset_id}/tickets`),
        await api.get(`/api/v1/projects/${project.project_id}/tickets`),
        await api.get(`/api/v1/assets/${asset.asset_id}/summary`),
      ];
      for (const res of [a, p, summary]) expectStatus(res, 200);
      return {
        asset: (a.json().data as { ticket_id: string }[]).map((l) => l.ticket_id),
        project: (p.json().data as { ticket_id: string }[]).map((l) => l.ticket_id),
        open: summary.json().data.open_tickets_count as number,
      };
    };
    expect(await linkedTo(ofTarget)).toEqual({ asset: [], project: [], open: 0 });

    // Before any move: each portal user sees its own client's tickets, as always.
    for (const api of [withFlag, withoutFlag, noContact]) {
      expect(await listIds(api)).toEqual(sorted(s1.ticket_id, s2.ticket_id));
      expectStatus(await api.get(`/api/v1/tickets/${s1.ticket_id}`), 200);
      expectStatus(await api.get(`/api/v1/tickets/${tt.ticket_id}`), 404);
      expect(await listIds(api, `?client_id=${target.client_id}`)).toEqual([]);
    }
    expect(await listIds(ofTarget)).toEqual([tt.ticket_id]);
    expectStatus(await ofTarget.get(`/api/v1/tickets/${s1.ticket_id}`), 404);

    await runMerge(contextOf(tenant, source.client_id, target.client_id, sourceProfile));
    await tombstone(t, tenant, source.client_id, target.client_id);

    // The flagged contact's user still reads them (get, list, filters, sub-resources), now under the target.
    expect(await getTicket(withFlag, s1.ticket_id)).toMatchObject({ client_id: target.client_id });
    expect(await listIds(withFlag)).toEqual(sorted(s1.ticket_id, s2.ticket_id));
    expect(await listIds(withFlag, `?client_id=${target.client_id}`)).toEqual(sorted(s1.ticket_id, s2.ticket_id));
    expect(await listIds(withFlag, `?client_id=${source.client_id}`)).toEqual([]);
    expectStatus(await withFlag.get(`/api/v1/tickets/${s1.ticket_id}/comments`), 200);
    expectStatus(await withFlag.get(`/api/v1/tickets/${s1.ticket_id}/tags`), 200);
    expectStatus(await withFlag.get(`/api/v1/tickets/${tt.ticket_id}`), 404);

    // Without the flag, or without a contact: nothing.
    for (const api of [withoutFlag, noContact]) {
      expect(await listIds(api)).toEqual([]);
      expectStatus(await api.get(`/api/v1/tickets/${s1.ticket_id}`), 404);
      expectStatus(await api.get(`/api/v1/tickets/${s1.ticket_id}/comments`), 404);
    }

    // The target's portal users gain nothing: not by get, list, sub-resource or search.
    expect(await listIds(ofTarget)).toEqual([tt.ticket_id]);
    expect(await listIds(ofTarget, `?client_id=${target.client_id}`)).toEqual([tt.ticket_id]);
    expectStatus(await ofTarget.get(`/api/v1/tickets/${s1.ticket_id}`), 404);
    expectStatus(await ofTarget.get(`/api/v1/tickets/${s1.ticket_id}/comments`), 404);
    expect((await search(ofTarget, { query: title })).results.map((r) => r.id)).toEqual([tt.ticket_id]);
    expect((await search(ofTarget, { query: 'Looking' })).totalCount).toBe(0);
    expect(await linkedTo(ofTarget)).toEqual({ asset: [], project: [], open: 0 });
    expect(await linkedTo(admin)).toEqual({ asset: [s1.ticket_id], project: [s1.ticket_id], open: 1 });

    // Staff see everything under the target.
    expect(await listIds(admin, `?client_id=${target.client_id}`)).toEqual(sorted(s1.ticket_id, s2.ticket_id, tt.ticket_id));

    // Losing the flag takes the tickets away (the source is a tombstone now: set directly).
    await t.database.db.updateTable('billing_profile_contacts').set({ can_view_profile_tickets: false })
      .where('tenant', '=', tenant).where('billing_profile_id', '=', sourceProfile).where('contact_id', '=', flagged.contact_id).execute();
    expect(await listIds(withFlag)).toEqual([]);
    expectStatus(await withFlag.get(`/api/v1/tickets/${s1.ticket_id}`), 404);
  });
});
