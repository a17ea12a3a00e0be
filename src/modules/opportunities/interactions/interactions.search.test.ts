import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, engine, type TestApp } from '../../../../test/harness.ts';
import { makeTenant, makeUser } from '../../../../test/factories.ts';
import { expectStatus, makeClient, makeContact } from '../../../../test/client-factories.ts';
import { idsOf, search, uniqueWord } from '../../../../test/search-kit.ts';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => t.close());

describe(`interaction search (${engine})`, () => {
  it('finds an interaction by title and notes, follows updates, forgets it when deleted, and only for interaction:read', async () => {
    const { tenant, admin } = await makeTenant(t);
    const [titleWord, notesWord, newWord] = [uniqueWord(), uniqueWord(), uniqueWord()];
    const client = await makeClient(admin, { client_name: 'Tailspin Toys' });
    const contact = await makeContact(admin, { client_id: client.client_id, full_name: 'Tara Spin' });
    const res = await admin.post('/api/v1/interactions', {
      client_id: client.client_id, contact_id: contact.contact_id, interaction_type: 'call', title: `${titleWord} pricing call`, notes: `They asked about ${notesWord} licences`,
    });
    expectStatus(res, 201);
    const id = res.json().data.interaction_id as string;

    const byTitle = await search(admin, { query: titleWord, types: 'interaction' });
    expect(byTitle.results).toEqual([expect.objectContaining({
      type: 'interaction', id, title: `${titleWord} pricing call`, subtitle: 'call | Tailspin Toys | Tara Spin', url: `/interactions/${id}`,
    })]);
    expect(byTitle.groups.interaction).toBe(1);
    expect(idsOf((await search(admin, { query: notesWord, types: 'interaction' })).results)).toEqual([id]);
    expect(idsOf((await search(admin, { query: notesWord })).results)).toContain(id);

    // Roles that read interactions find it; a key without interaction:read, or a portal key, does not.
    const finance = (await makeUser(t, tenant, { role: 'Finance' })).api;
    expect(idsOf((await search(finance, { query: titleWord, types: 'interaction' })).results)).toEqual([id]);
    const tech = (await makeUser(t, tenant, { role: 'Technician' })).api;
    expect(idsOf((await search(tech, { query: titleWord })).results)).toEqual([id]);
    const noRole = (await makeUser(t, tenant)).api;
    const hidden = await search(noRole, { query: titleWord, types: 'interaction' });
    expect(hidden.results).toEqual([]);
    expect(hidden.groups.interaction ?? 0).toBe(0);
    const portal = (await makeUser(t, tenant, { role: 'Client Admin', userType: 'client', clientId: client.client_id })).api;
    expect((await search(portal, { query: titleWord })).results).toEqual([]);
    // Another tenant never sees it.
    const other = await makeTenant(t);
    expect((await search(other.admin, { query: titleWord })).results).toEqual([]);

    // An update re-indexes it at once.
    expectStatus(await admin.put(`/api/v1/interactions/${id}`, { title: `${newWord} follow-up`, interaction_type: 'email', contact_id: null }), 200);
    expect((await search(admin, { query: titleWord, types: 'interaction' })).results).toEqual([]);
    expect((await search(admin, { query: newWord, types: 'interaction' })).results).toEqual([expect.objectContaining({ id, title: `${newWord} follow-up`, subtitle: 'email | Tailspin Toys' })]);

    // A delete removes it.
    expect((await admin.delete(`/api/v1/interactions/${id}`)).statusCode).toBe(204);
    expect((await search(admin, { query: newWord, types: 'interaction' })).results).toEqual([]);
    expect((await search(admin, { query: notesWord })).results).toEqual([]);
    const docs = await t.database.db.selectFrom('search_documents').select('object_id').where('tenant', '=', tenant).where('object_id', '=', id).execute();
    expect(docs).toEqual([]);
  });
});
