import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/harness.ts';
import { makeTenant, makeUser } from '../../../test/factories.ts';
import { defaultProfileId, eventsOf, expectStatus, makeClient, makeContact, type ContactJson } from '../../../test/client-factories.ts';
import { search, uniqueWord } from '../../../test/search-kit.ts';
import type { MergeContext } from '../clients/index.ts';
import { contactsMergeParticipant } from './contacts.merge.ts';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => { await t.close(); });

const participant = contactsMergeParticipant();

/** count then move in one transaction, as the merge runs them. */
async function runMerge(ctx: MergeContext) {
  return t.database.db.transaction().execute(async (trx) => {
    const counts = await participant.count(trx, ctx);
    const moved = await participant.move(trx, ctx);
    return { counts, moved };
  });
}

async function contactRow(tenant: string, contactId: string) {
  return t.database.db.selectFrom('contacts').selectAll().where('tenant', '=', tenant).where('contact_id', '=', contactId).executeTakeFirstOrThrow();
}

describe('the contacts merge participant', () => {
  it('moves every contact of the source to the target, keeping profile links and leaving portal users alone', async () => {
    const { tenant, admin } = await makeTenant(t);
    const [sw, tw] = [uniqueWord(), uniqueWord()];
    const source = await makeClient(admin, { client_name: `${sw} Ltd` });
    const target = await makeClient(admin, { client_name: `${tw} Holdings` });
    const other = await makeClient(admin);
    const profile = await defaultProfileId(admin, source.client_id);
    const ctx: MergeContext = { tenant, sourceId: source.client_id, targetId: target.client_id, cutoverDate: '2026-11-01', profileIds: [profile], actorUserId: null };

    const a = await makeContact(admin, { client_id: source.client_id });
    const b = await makeContact(admin, { client_id: source.client_id });
    const own = await makeContact(admin, { client_id: target.client_id });
    const elsewhere = await makeContact(admin, { client_id: other.client_id });
    const unattached = await makeContact(admin);
    expectStatus(await admin.put(`/api/v1/clients/${source.client_id}/billing-profiles/${profile}/contacts`, {
      contacts: [{ contact_id: a.contact_id, can_view_profile_tickets: true }],
    }), 200);
    const portal = await makeUser(t, tenant, { role: 'Client Admin', userType: 'client', clientId: source.client_id, contactId: a.contact_id });
    const links = () => t.database.db.selectFrom('billing_profile_contacts').selectAll().where('tenant', '=', tenant).execute();
    const linksBefore = await links();
    const untouched = [own, elsewhere, unattached];
    const before = await Promise.all(untouched.map(async (c) => ({ row: await contactRow(tenant, c.contact_id), events: (await eventsOf(t, tenant, c.contact_id)).length })));

    const { counts, moved } = await runMerge(ctx);
    expect(counts).toEqual({ contacts: 2 });
    expect(moved).toEqual(counts);

    for (const contact of [a, b]) {
      const res = await admin.get(`/api/v1/contacts/${contact.contact_id}`);
      expectStatus(res, 200);
      expect(res.json().data as ContactJson).toMatchObject({ client_id: target.client_id });
      const events = await eventsOf(t, tenant, contact.contact_id);
      expect(events.at(-1)).toEqual({
        event_type: 'contact.updated',
        aggregate_type: 'contact',
        aggregate_id: contact.contact_id,
        payload: { contact_id: contact.contact_id, changed_fields: ['client_id'], client_id: target.client_id, previous_client_id: source.client_id, merge: true },
      });
      expect(events.filter((e) => e.payload.merge === true)).toHaveLength(1);
    }
    const inTarget = await admin.get(`/api/v1/contacts?client_id=${target.client_id}&limit=100`);
    expectStatus(inTarget, 200);
    expect((inTarget.json().data as ContactJson[]).map((c) => c.contact_id).sort()).toEqual([a.contact_id, b.contact_id, own.contact_id].sort());

    // Search: subtitles name the target now.
    const byTarget = await search(admin, { query: tw, types: 'contact', limit: 50 });
    expect(byTarget.results.map((r) => r.id).sort()).toEqual([a.contact_id, b.contact_id, own.contact_id].sort());
    expect((await search(admin, { query: sw, types: 'contact' })).totalCount).toBe(0);

    // Billing-profile links and portal users stay as they were.
    expect(await links()).toEqual(linksBefore);
    const user = await t.database.db.selectFrom('users').select(['client_id', 'contact_id']).where('tenant', '=', tenant).where('user_id', '=', portal.userId).executeTakeFirstOrThrow();
    expect(user).toEqual({ client_id: source.client_id, contact_id: a.contact_id });

    for (const [i, c] of untouched.entries()) {
      expect(await contactRow(tenant, c.contact_id)).toEqual(before[i]!.row);
      expect(await eventsOf(t, tenant, c.contact_id)).toHaveLength(before[i]!.events);
    }

    expect(await runMerge(ctx)).toEqual({ counts: { contacts: 0 }, moved: { contacts: 0 } });
  });
});
