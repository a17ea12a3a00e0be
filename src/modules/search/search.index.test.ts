import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/harness.ts';
import { makeTenant } from '../../../test/factories.ts';
import { expectStatus, makeClient, makeContact } from '../../../test/client-factories.ts';
import { makeTicket } from '../../../test/ticket-factories.ts';
import { makeProject } from '../../../test/project-factories.ts';
import { withTransaction } from '../../platform/db/executor.ts';
import { newId } from '../../platform/ids.ts';
import { searchReindexCommand } from './reindex.cli.ts';
import { pendingWords as pendingWordsText, pendingWordsOf } from './lexicon.ts';
import { mergePendingPostings } from '../../platform/search/postings.ts';
import { syncSearch } from '../../platform/search/writer.ts';
import { idsOf, search } from '../../../test/search-kit.ts';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => { await t.close(); });

const word = () => `tapir${Math.random().toString(36).slice(2, 9)}`;

async function indexRows(tenant: string) {
  return t.database.db.selectFrom('search_documents').select(['object_type', 'object_id', 'title', 'subtitle', 'indexed_at'])
    .where('tenant', '=', tenant).orderBy('object_type').orderBy('object_id').execute();
}

describe('search index maintenance', () => {
  it('reflects creates, updates and deletes at once, cascading to comments and tags', async () => {
    const { admin } = await makeTenant(t);
    const [a, b] = [word(), word()];
    const client = await makeClient(admin);
    const ticket = await makeTicket(admin, client.client_id, { title: `${a} laptop`, tags: [`${a}-tag`] });
    const comment = (await admin.post(`/api/v1/tickets/${ticket.ticket_id}/comments`, { comment_text: `about ${a}` })).json().data;
    expect((await search(admin, { query: a })).groups).toMatchObject({ ticket: 1, ticket_comment: 1, tag: 1 });

    expectStatus(await admin.put(`/api/v1/tickets/${ticket.ticket_id}`, { title: `${b} laptop`, tags: [`${b}-tag`] }), 200);
    const afterEdit = await search(admin, { query: a });
    expect(afterEdit.groups).toMatchObject({ ticket: 0, ticket_comment: 1, tag: 0 });
    const renamed = await search(admin, { query: b, limit: 50 });
    expect(renamed.groups).toMatchObject({ ticket: 1, ticket_comment: 1, tag: 1 });
    expect(renamed.results.find((r) => r.id === comment.comment_id)!.subtitle).toBe(`${b} laptop`);

    expectStatus(await admin.delete(`/api/v1/tickets/${ticket.ticket_id}`), 204);
    expect((await search(admin, { query: b })).totalCount).toBe(0);
    expect((await search(admin, { query: a })).totalCount).toBe(0);
  });

  it('a ticket or project create and update write the document a re-index would write', async () => {
    // Those writes build the document from the view they read; the re-index builds it from the loader's rows.
    const { admin, tenant } = await makeTenant(t);
    const [a, b] = [word(), word()];
    const client = await makeClient(admin);
    const ticket = await makeTicket(admin, client.client_id, { title: `${a} monitor`, description: 'flickers at night' });
    const project = await makeProject(admin, { project_name: `${a} rollout`, client_id: client.client_id, description: 'phase one' });
    const untouched = await makeProject(admin, { project_name: `${a} audit` });
    expectStatus(await admin.put(`/api/v1/tickets/${ticket.ticket_id}`, { title: `${b} monitor` }), 200);
    expectStatus(await admin.put(`/api/v1/projects/${project.project_id}`, { project_name: `${b} rollout` }), 200);
    const documents = () => t.database.db.selectFrom('search_documents')
      .select(['object_type', 'object_id', 'title', 'subtitle', 'body', 'url', 'identifier', 'client_id', 'updated_at', 'indexed_at'])
      .where('tenant', '=', tenant).where('object_type', 'in', ['ticket', 'project']).orderBy('object_id').execute();
    const written = await documents();
    expect(written.map((d) => d.title).sort()).toEqual([`${a} audit`, `${b} monitor`, `${b} rollout`].sort());
    expect(written.find((d) => d.object_id === ticket.ticket_id)).toMatchObject({ subtitle: `${client.client_name} | ${ticket.ticket_number}`, body: 'flickers at night', client_id: client.client_id });
    await withTransaction(t.database.db, async (trx) => {
      await syncSearch(trx, tenant, 'ticket', [ticket.ticket_id]);
      await syncSearch(trx, tenant, 'project', [project.project_id, untouched.project_id]);
    });
    // Unchanged content is not rewritten, so equal rows (indexed_at included) mean equal documents.
    expect(await documents()).toEqual(written);
  });

  it('refreshes the subtitles embedding a client name when the client is renamed', async () => {
    const { admin } = await makeTenant(t);
    const [a, b] = [word(), word()];
    const client = await makeClient(admin, { client_name: `${a} Corp` });
    const contact = await makeContact(admin, { full_name: 'Sam Spade', client_id: client.client_id });
    const ticket = await makeTicket(admin, client.client_id, { title: 'Screen flicker' });
    expectStatus(await admin.put(`/api/v1/clients/${client.client_id}`, { client_name: `${b} Corp` }), 200);
    const page = await search(admin, { query: b, limit: 50 });
    expect(new Set(idsOf(page.results))).toEqual(new Set([client.client_id, contact.contact_id, ticket.ticket_id]));
    expect(page.results.find((r) => r.id === ticket.ticket_id)!.subtitle).toBe(`${b} Corp | ${ticket.ticket_number}`);
    expect((await search(admin, { query: a })).totalCount).toBe(0);
    expectStatus(await admin.delete(`/api/v1/contacts/${contact.contact_id}`), 204);
    expect((await search(admin, { query: 'Spade' })).totalCount).toBe(0);
  });

  it('leaves no index row behind when the write rolls back', async () => {
    const { tenant } = await makeTenant(t);
    const w = word();
    const clientId = newId();
    await expect(withTransaction(t.database.db, async (trx) => {
      const now = new Date();
      await trx.insertInto('clients').values({ tenant, client_id: clientId, client_name: w, client_type: 'company', billing_cycle: 'monthly', payment_terms: null, default_currency_code: 'USD', client_since: null, tax_id_number: null, notes: null, notes_updated_at: null, merged_into_client_id: null, merged_at: null, created_at: now, updated_at: now }).execute();
      await syncSearch(trx, tenant, 'client', [clientId]);
      expect((await trx.selectFrom('search_documents').select('object_id').where('tenant', '=', tenant).where('object_id', '=', clientId).execute())).toHaveLength(1);
      throw new Error('boom');
    })).rejects.toThrow('boom');
    expect(await t.database.db.selectFrom('search_documents').select('object_id').where('tenant', '=', tenant).where('object_id', '=', clientId).execute()).toEqual([]);
  });

  it('re-index rebuilds from the source tables, removes stale rows and leaves unchanged rows untouched', async () => {
    const { tenant, slug, admin } = await makeTenant(t);
    const other = await makeTenant(t);
    const client = await makeClient(admin);
    await makeTicket(admin, client.client_id, { title: 'Reindex me', tags: ['alpha'] });
    const before = await indexRows(tenant);
    expect(before.map((r) => r.object_type)).toEqual(expect.arrayContaining(['board', 'client', 'status', 'tag', 'ticket', 'user']));

    // Nothing changed: nothing is rewritten (indexed_at stays).
    const noop = await searchReindexCommand(t.database.db, { tenant: slug });
    expect(noop.removed).toBe(0);
    expect(noop.indexed).toBe(before.length);
    expect(await indexRows(tenant)).toEqual(before);

    // Lost and stale rows: a deleted index row comes back, an orphan goes, another tenant is untouched.
    await t.database.db.deleteFrom('search_documents').where('tenant', '=', tenant).where('object_type', '=', 'ticket').execute();
    const orphan = newId();
    await sql`insert into search_documents (tenant, object_type, object_id, title, url, updated_at, indexed_at)
      values (${tenant}, 'ticket', ${orphan}, 'ghost', '/tickets/x', now(), now())`.execute(t.database.db);
    const otherBefore = await indexRows(other.tenant);
    const typed = await searchReindexCommand(t.database.db, { tenant, type: 'ticket' });
    expect(typed.results).toEqual([{ tenant, type: 'ticket', indexed: 1, removed: 1 }]);
    expect((await indexRows(tenant)).map((r) => [r.object_type, r.object_id])).toEqual(before.map((r) => [r.object_type, r.object_id]));
    expect(await indexRows(other.tenant)).toEqual(otherBefore);
    expect(typed.lines.at(-1)).toBe('reindexed 1 tenant(s): 1 rows indexed, 1 stale rows removed');
    // What it wrote is merged into the head postings (no worker needed): nothing is left pending.
    expect(await t.database.db.selectFrom('search_postings_pending').select('object_id').where('tenant', '=', tenant).execute()).toEqual([]);

    await expect(searchReindexCommand(t.database.db, { tenant: 'no-such-tenant' })).rejects.toThrow(/No tenant/);
    await expect(searchReindexCommand(t.database.db, { tenant, type: 'spaceship' })).rejects.toThrow(/--type/);
    await expect(searchReindexCommand(t.database.db, { tenant, type: 'time_entry' })).rejects.toThrow(/no indexer/);
  });

  it('keeps the typo dictionary in step with writes: merged after the write, corrected to at once; re-index drops words no document has any more', async () => {
    const { tenant, slug, admin } = await makeTenant(t);
    const other = await makeTenant(t);
    const client = await makeClient(admin);
    const words = async (tn: string) => (await t.database.db.selectFrom('search_lexicon').select('word').where('tenant', '=', tn).execute()).map((r) => r.word);
    const pendingWords = async (tn: string) => [...pendingWordsOf((await sql<{ words: string }>`select ${pendingWordsText(tn)} as words`.execute(t.database.db)).rows[0]!.words)];
    const corrected = async (query: string) => idsOf((await search(admin, { query, types: 'ticket' })).results);
    const gone = await makeTicket(admin, client.client_id, { title: 'Quokka sanctuary' });
    const kept = await makeTicket(admin, client.client_id, { title: 'Sanctuary roof leaks' });
    // Before the merge the words are the pending documents' (as written: lower case, not stemmed), and a typo is
    // corrected to them at once: one edit away, the nearest by trigrams, and an earlier word only begun.
    expect(await words(tenant)).not.toContain('quokka');
    expect(await pendingWords(tenant)).toEqual(expect.arrayContaining(['quokka', 'sanctuary', 'roof', 'leaks']));
    // Both tickets hold "sanctuary": the pending rows' text repeats it, the words once. Past its row limit (a bulk
    // load's backlog) the function drops the repeats itself: the same words.
    expect((await pendingWords(tenant)).filter((w) => w === 'sanctuary')).toEqual(['sanctuary']);
    const distinct = (await sql<{ words: string }>`select search_pending_words(${tenant}::uuid, 1) as words`.execute(t.database.db)).rows[0]!.words.split(' ');
    expect(distinct.filter((w) => w === 'sanctuary')).toEqual(['sanctuary']);
    expect(distinct.sort()).toEqual((await pendingWords(tenant)).sort());
    for (const typo of ['quokak', 'quokkaaa', 'quok sanctuary']) expect(await corrected(typo)).toEqual([gone.ticket_id]);

    await mergePendingPostings(t.database.db);
    expect(await pendingWords(tenant)).toEqual([]);
    expect(await words(tenant)).toEqual(expect.arrayContaining(['quokka', 'sanctuary', 'roof', 'leaks']));
    // Numbers and fragments are not words; each tenant has its own.
    expect((await words(tenant)).filter((w) => /\d/.test(w))).toEqual([]);
    expect(await words(other.tenant)).not.toContain('quokka');
    for (const typo of ['quokak', 'quokkaaa', 'quok sanctuary']) expect(await corrected(typo)).toEqual([gone.ticket_id]);
    // An update's words are pending until the merge too, and corrected to at once.
    expectStatus(await admin.put(`/api/v1/tickets/${kept.ticket_id}`, { title: 'Sanctuary wombat burrow' }), 200);
    expect(await pendingWords(tenant)).toEqual(expect.arrayContaining(['wombat', 'burrow']));
    expect(await corrected('wombta')).toEqual([kept.ticket_id]);
    await mergePendingPostings(t.database.db);
    expect(await words(tenant)).toEqual(expect.arrayContaining(['wombat', 'burrow']));

    expectStatus(await admin.delete(`/api/v1/tickets/${gone.ticket_id}`), 204);
    await mergePendingPostings(t.database.db);
    expect(await words(tenant)).toContain('quokka');
    // A re-index racing a merge may add a word twice; the re-index leaves each word once.
    await t.database.db.insertInto('search_lexicon').values({ tenant, word: 'sanctuary' }).execute();
    const otherBefore = (await words(other.tenant)).sort();
    await searchReindexCommand(t.database.db, { tenant: slug });
    const after = await words(tenant);
    expect(after).not.toContain('quokka');
    expect(after.filter((w) => w === 'sanctuary')).toEqual(['sanctuary']);
    expect(after.length).toBe(new Set(after).size);
    expect((await words(other.tenant)).sort()).toEqual(otherBefore);
  });
});
