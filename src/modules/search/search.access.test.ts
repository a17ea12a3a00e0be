import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/harness.ts';
import { makeTenant, makeUser } from '../../../test/factories.ts';
import { expectStatus, makeClient, makeContact } from '../../../test/client-factories.ts';
import { makeTicket } from '../../../test/ticket-factories.ts';
import { newId } from '../../platform/ids.ts';
import { upsertSearchDocuments } from '../../platform/search/writer.ts';
import type { SearchDocument } from '../../platform/search/types.ts';
import { idsOf, search, searchAll } from '../../../test/search-kit.ts';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => { await t.close(); });

const word = () => `kiwi${Math.random().toString(36).slice(2, 9)}`;

/** Index rows for types whose areas are not built yet, written as their indexers will write them. */
async function indexRaw(tenant: string, docs: Omit<SearchDocument, 'id' | 'url' | 'updatedAt'>[]): Promise<string[]> {
  const full = docs.map((d) => ({ ...d, id: newId(), url: `/${d.type}`, updatedAt: new Date() }));
  await upsertSearchDocuments(t.database.db, tenant, full);
  return full.map((d) => d.id);
}

describe('search access', () => {
  it('silently drops types the caller cannot read, from results and counts', async () => {
    const { tenant, admin } = await makeTenant(t);
    const w = word();
    const client = await makeClient(admin, { client_name: `${w} Inc` });
    await makeTicket(admin, client.client_id, { title: `${w} ticket` });
    const [invoice, item, annotation] = await indexRaw(tenant, [
      { type: 'invoice', title: `Invoice ${w}`, identifier: 'INV-000042' },
      { type: 'invoice_item', title: `Item ${w}` },
      { type: 'invoice_annotation', title: `Note ${w}` },
    ]);
    const all = await search(admin, { query: w });
    expect(all.groups).toMatchObject({ client: 1, ticket: 1, invoice: 1, invoice_item: 1, invoice_annotation: 1 });
    expect(idsOf(all.results)).toEqual(expect.arrayContaining([client.client_id, invoice, item, annotation]));
    expect(all.totalCount).toBe(5);

    const tech = await makeUser(t, tenant, { role: 'Technician' });
    const techPage = await search(tech.api, { query: w });
    expect(techPage.results.map((r) => r.type).sort()).toEqual(['client', 'ticket']);
    expect(techPage.groups.invoice).toBeUndefined();
    expect(techPage.totalCount).toBe(2);
    expect(await search(tech.api, { query: w, types: 'invoice,invoice_item,invoice_annotation' })).toEqual({ results: [], groups: {}, totalCount: 0, countsExact: true });
    expect((await search(tech.api, { query: 'INV-000042' })).results).toEqual([]);

    const clientsOnly = await makeUser(t, tenant, { role: 'Admin', scopes: ['client:read'] });
    const scoped = await search(clientsOnly.api, { query: w });
    expect(idsOf(scoped.results)).toEqual([client.client_id]);
    // Interactions have their own permission (interaction:read): a client:read key sees no group of them.
    expect(scoped.groups).toEqual({ client: 1 });
    // No search permission exists: a key with no read permission at all still gets a (empty) 200.
    const none = await makeUser(t, tenant, { role: 'Admin', scopes: ['api_key:read'] });
    expect(await search(none.api, { query: w })).toEqual({ results: [], groups: {}, totalCount: 0, countsExact: true });
  });

  it('applies per-row access (assignee-only rows, per-row permission) before paging and counting', async () => {
    const { tenant, admin, adminUserId } = await makeTenant(t);
    const w = word();
    const viewer = await makeUser(t, tenant, { role: 'Viewer' });
    const docs: Omit<SearchDocument, 'id' | 'url' | 'updatedAt'>[] = [];
    for (let i = 0; i < 12; i++) docs.push({ type: 'time_entry', title: `${w} hidden ${i}`, visibleToUserIds: [adminUserId] });
    for (let i = 0; i < 5; i++) docs.push({ type: 'time_entry', title: `${w} shared ${i}`, visibleToUserIds: [adminUserId, viewer.userId] });
    for (let i = 0; i < 3; i++) docs.push({ type: 'schedule_entry', title: `${w} open ${i}` });
    docs.push({ type: 'status', title: `${w} project status`, requiredPermission: 'project:update' });
    await indexRaw(tenant, docs);

    const adminAll = await searchAll(admin, { query: w, limit: 4 });
    expect(adminAll.hits).toHaveLength(21);
    const { hits, pages } = await searchAll(viewer.api, { query: w, limit: 3 });
    expect(hits.map((h) => h.title).sort()).toEqual([...[0, 1, 2, 3, 4].map((i) => `${w} shared ${i}`), ...[0, 1, 2].map((i) => `${w} open ${i}`)].sort());
    // Hidden rows never shorten a page or show in a count.
    expect(pages.map((p) => p.results.length)).toEqual([3, 3, 2]);
    for (const p of pages) expect(p.groups).toMatchObject({ time_entry: 5, schedule_entry: 3, status: 0 });
    expect(pages[0]!.totalCount).toBe(8);
  });

  it('scopes client-portal keys to their own client and hides internal-only rows', async () => {
    const { tenant, admin } = await makeTenant(t);
    const w = word();
    const mine = await makeClient(admin, { client_name: `${w} Mine` });
    const other = await makeClient(admin, { client_name: `${w} Other` });
    const myContact = await makeContact(admin, { full_name: `${w} Alice`, client_id: mine.client_id });
    await makeContact(admin, { full_name: `${w} Bob`, client_id: other.client_id });
    const myTicket = await makeTicket(admin, mine.client_id, { title: `${w} my printer`, tags: [`${w}tag`] });
    const otherTicket = await makeTicket(admin, other.client_id, { title: `${w} their printer` });
    const pub = (await admin.post(`/api/v1/tickets/${myTicket.ticket_id}/comments`, { comment_text: `${w} public reply` })).json().data;
    expectStatus(await admin.post(`/api/v1/tickets/${myTicket.ticket_id}/comments`, { comment_text: `${w} internal musing`, is_internal: true }), 201);
    expectStatus(await admin.post(`/api/v1/tickets/${otherTicket.ticket_id}/comments`, { comment_text: `${w} other reply` }), 201);
    await admin.post('/api/v1/boards', { board_name: `${w} board` });

    const portal = await makeUser(t, tenant, { role: 'Client User', userType: 'client', clientId: mine.client_id });
    const page = await search(portal.api, { query: w, limit: 100 });
    expect(new Set(idsOf(page.results))).toEqual(new Set([mine.client_id, myContact.contact_id, myTicket.ticket_id, pub.comment_id]));
    expect(page.totalCount).toBe(4);
    expect(page.groups).toMatchObject({ client: 1, contact: 1, ticket: 1, ticket_comment: 1, board: 0, status: 0, tag: 0 });
    expect(page.groups.user).toBeUndefined();
    expect((await search(portal.api, { query: otherTicket.ticket_number })).results).toEqual([]);

    const internal = await search(admin, { query: w, limit: 100 });
    expect(internal.groups).toMatchObject({ client: 2, contact: 2, ticket: 2, ticket_comment: 3, board: 1, tag: 1 });
  });
});
