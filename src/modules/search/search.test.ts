import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/harness.ts';
import { makeTenant, makeUser, unique } from '../../../test/factories.ts';
import { anonymous, expectError, expectStatus, makeClient, makeContact } from '../../../test/client-factories.ts';
import { makeTicket } from '../../../test/ticket-factories.ts';
import { idsOf, search, searchRes } from '../../../test/search-kit.ts';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => { await t.close(); });

describe('GET /search — finding and ranking', () => {
  it('finds a ticket by title, description, number and client name, with the documented result shape', async () => {
    const { admin } = await makeTenant(t);
    const word = unique('zebrafish').replace(/[^a-z0-9]/gi, '');
    const client = await makeClient(admin, { client_name: `Acme ${word}` });
    const ticket = await makeTicket(admin, client.client_id, { title: 'Printer jammed on floor two', description: `The ${word} sensor reports paper stuck` });
    const page = await search(admin, { query: 'printer jammed' });
    const hit = page.results.find((r) => r.id === ticket.ticket_id)!;
    expect(hit).toEqual({
      type: 'ticket',
      id: ticket.ticket_id,
      title: 'Printer jammed on floor two',
      subtitle: `Acme ${word} | ${ticket.ticket_number}`,
      snippet: '<mark>Printer</mark> <mark>jammed</mark> on floor two',
      url: `/tickets/${ticket.ticket_id}`,
      score: 700,
      updatedAt: ticket.updated_at,
    });
    const byBody = await search(admin, { query: word, types: 'ticket' });
    expect(idsOf(byBody.results)).toEqual([ticket.ticket_id]);
    expect(byBody.results[0]!.snippet).toBe(`The <mark>${word}</mark> sensor reports paper stuck`);
    const byNumber = await search(admin, { query: ticket.ticket_number });
    expect(byNumber.results[0]).toMatchObject({ id: ticket.ticket_id, score: 1000 });
    expect(byNumber.groups).toMatchObject({ ticket: 1 });
    expect(byNumber.nextCursor).toBeUndefined();
  });

  it('ranks an identifier match first, then title matches (newest first) above a body mention', async () => {
    const { admin } = await makeTenant(t);
    const client = await makeClient(admin);
    const bodyOnly = await makeTicket(admin, client.client_id, { title: 'Something else entirely', description: 'the quarterly firewall audit is due' });
    const inTitle = await makeTicket(admin, client.client_id, { title: 'Firewall audit for the branch office' });
    const exact = await makeTicket(admin, client.client_id, { title: 'Firewall Audit' });
    const page = await search(admin, { query: 'firewall audit', types: 'ticket' });
    expect(idsOf(page.results)).toEqual([exact.ticket_id, inTitle.ticket_id, bodyOnly.ticket_id]);
    expect(page.results.map((r) => r.score)).toEqual([700, 700, 300]);
    const num = await search(admin, { query: bodyOnly.ticket_number.toLowerCase() });
    expect(num.results[0]!.id).toBe(bodyOnly.ticket_id);
    // Prefix of a number: T-0000 matches all three, still ahead of anything textual.
    const prefix = await search(admin, { query: 'T-0000', types: 'ticket' });
    expect(prefix.results.every((r) => r.score >= 900)).toBe(true);
    expect(prefix.totalCount).toBe(3);
  });

  it('matches partial words by prefix and corrects misspelt words against the tenant\'s own words', async () => {
    const { admin } = await makeTenant(t);
    const client = await makeClient(admin);
    const ticket = await makeTicket(admin, client.client_id, { title: 'Replace projector lamp in boardroom' });
    const prefix = await search(admin, { query: 'project', types: 'ticket' });
    expect(idsOf(prefix.results)).toEqual([ticket.ticket_id]);
    expect(prefix.results[0]!.score).toBe(700);
    expect(prefix.results[0]!.snippet).toBe('Replace <mark>projector</mark> lamp in boardroom');
    // Nothing matches "boardrom" as typed: it is corrected to "boardroom" and scores a tenth of a typed match.
    const typo = await search(admin, { query: 'boardrom', types: 'ticket' });
    expect(idsOf(typo.results)).toEqual([ticket.ticket_id]);
    expect(typo.results[0]!.score).toBe(70);
    expect(typo.results[0]!.snippet).toBe('Replace projector lamp in <mark>boardroom</mark>');
    expect(typo.groups.ticket).toBe(1);
    // A corrected word matches whole: "mdio" becomes "mido", which does not pull in "midori".
    const mido = await makeTicket(admin, client.client_id, { title: 'Mido sensor offline' });
    await makeTicket(admin, client.client_id, { title: 'Midori plant watering' });
    expect(idsOf((await search(admin, { query: 'mdio', types: 'ticket' })).results)).toEqual([mido.ticket_id]);
    // The swapped neighbours are looked up before the other spellings: "mdi" (a letter missing) does not win.
    await makeTicket(admin, client.client_id, { title: 'Mdi panel firmware' });
    expect(idsOf((await search(admin, { query: 'mdio', types: 'ticket' })).results)).toEqual([mido.ticket_id]);
    // Two edits away: the nearest word by trigram similarity.
    expect(idsOf((await search(admin, { query: 'bordroomz', types: 'ticket' })).results)).toEqual([ticket.ticket_id]);
    // A correct word stays as typed next to a corrected one; a word like nothing in the tenant finds nothing.
    expect(idsOf((await search(admin, { query: 'projector boardrom', types: 'ticket' })).results)).toEqual([ticket.ticket_id]);
    expect((await search(admin, { query: 'qwxzvy', types: 'ticket' })).totalCount).toBe(0);
    expect((await search(admin, { query: 'projector qwxzvy', types: 'ticket' })).totalCount).toBe(0);
  });

  it('matches the last word as a prefix and the others whole, widening an earlier word only when nothing matched', async () => {
    const { admin } = await makeTenant(t);
    const client = await makeClient(admin);
    const setup = await makeTicket(admin, client.client_id, { title: 'Projector setup in boardroom' });
    const lamp = await makeTicket(admin, client.client_id, { title: 'Project lamp order' });
    // As typed: "projector" whole (stemmed: "projectors" too), "setu" as a prefix; full scores.
    for (const query of ['projector setu', 'projectors setup']) {
      const page = await search(admin, { query, types: 'ticket' });
      expect(idsOf(page.results), query).toEqual([setup.ticket_id]);
      expect(page.results[0]!.score).toBe(700);
    }
    // "project" is a word of the tenant's: it matches whole, so "Projector setup" is not pulled in by it.
    const project = await search(admin, { query: 'project lamp', types: 'ticket' });
    expect(idsOf(project.results)).toEqual([lamp.ticket_id]);
    expect(project.totalCount).toBe(1);
    // Nothing matches "proj" whole: the fallback reads it as a prefix too, at a tenth of the score.
    const widened = await search(admin, { query: 'proj setu', types: 'ticket' });
    expect(idsOf(widened.results)).toEqual([setup.ticket_id]);
    expect(widened.results[0]!.score).toBe(70);
    expect(widened.results[0]!.snippet).toBe('<mark>Projector</mark> <mark>setup</mark> in boardroom');
    // A widened word next to a misspelt one: both fixed in the same fallback.
    expect(idsOf((await search(admin, { query: 'proj boardrom', types: 'ticket' })).results)).toEqual([setup.ticket_id]);
  });

  it('corrects words found only in bodies and comments, and only from the caller\'s own tenant', async () => {
    const { admin } = await makeTenant(t);
    const other = await makeTenant(t);
    const client = await makeClient(admin);
    const ticket = await makeTicket(admin, client.client_id, { title: 'Slow network', description: 'the hypervisor keeps swapping' });
    const comment = (await admin.post(`/api/v1/tickets/${ticket.ticket_id}/comments`, { comment_text: 'rebooted the hypervisor twice' })).json().data;
    const page = await search(admin, { query: 'hypervsior' });
    expect(new Set(idsOf(page.results))).toEqual(new Set([ticket.ticket_id, comment.comment_id]));
    expect(page.results.every((r) => r.score === 30)).toBe(true);
    expect(page.groups).toMatchObject({ ticket: 1, ticket_comment: 1 });
    expect((await search(other.admin, { query: 'hypervsior' })).totalCount).toBe(0);
  });

  it('finds e-mail addresses, hyphenated words and words with punctuation as typed', async () => {
    const { admin } = await makeTenant(t);
    const w = `wren${Date.now().toString(36)}`;
    const client = await makeClient(admin);
    const contact = await makeContact(admin, { full_name: 'Dana Scully', email: `${w}@fbi.example`, client_id: client.client_id });
    const ticket = await makeTicket(admin, client.client_id, { title: `Wi-Fi drops for ${w}.example.com` });
    expect(idsOf((await search(admin, { query: `${w}@fbi.example` })).results)).toEqual([contact.contact_id]);
    expect(idsOf((await search(admin, { query: 'wi-fi', types: 'ticket' })).results)).toEqual([ticket.ticket_id]);
    expect(idsOf((await search(admin, { query: `${w}.example.com` })).results)).toEqual([ticket.ticket_id]);
  });

  it('escapes HTML in snippets and marks only the matched terms', async () => {
    const { admin } = await makeTenant(t);
    const client = await makeClient(admin);
    await makeTicket(admin, client.client_id, { title: 'Markup', description: 'User pasted <script>alert("x")</script> & the kumquat log' });
    const page = await search(admin, { query: 'kumquat', types: 'ticket' });
    expect(page.results[0]!.snippet).toBe('User pasted &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; the <mark>kumquat</mark> log');
  });

  it('supports websearch syntax (phrases, OR, exclusion)', async () => {
    const { admin } = await makeTenant(t);
    const client = await makeClient(admin);
    const a = await makeTicket(admin, client.client_id, { title: 'VPN drops every hour' });
    const b = await makeTicket(admin, client.client_id, { title: 'Hour long outage of mail' });
    const both = await search(admin, { query: 'vpn OR mail', types: 'ticket' });
    expect(new Set(idsOf(both.results))).toEqual(new Set([a.ticket_id, b.ticket_id]));
    const not = await search(admin, { query: 'hour -vpn', types: 'ticket' });
    expect(idsOf(not.results)).toEqual([b.ticket_id]);
    const phrase = await search(admin, { query: '"every hour"', types: 'ticket' });
    expect(idsOf(phrase.results)).toEqual([a.ticket_id]);
  });

  it('filters by types and sorts by recency on request', async () => {
    const { admin } = await makeTenant(t);
    const word = `wombat${Date.now().toString(36)}`;
    const client = await makeClient(admin, { client_name: `${word} Ltd` });
    const contact = await makeContact(admin, { full_name: `Pat ${word}`, client_id: client.client_id });
    const ticket = await makeTicket(admin, client.client_id, { title: `${word} keyboard` });
    const all = await search(admin, { query: word });
    expect(all.groups).toMatchObject({ client: 1, contact: 1, ticket: 1 });
    expect(all.totalCount).toBe(3);
    const some = await search(admin, { query: word, types: 'contact,ticket' });
    expect(new Set(idsOf(some.results))).toEqual(new Set([contact.contact_id, ticket.ticket_id]));
    expect(some.groups).toEqual({ contact: 1, ticket: 1 });
    const recent = await search(admin, { query: word, sort: 'recent' });
    const times = recent.results.map((r) => r.updatedAt);
    expect(times).toEqual([...times].sort().reverse());
    expect(recent.results[0]!.id).toBe(ticket.ticket_id);
    // Types whose area is not built yet are accepted and return nothing.
    expect(await search(admin, { query: word, types: 'invoice,kb_article' })).toEqual({ results: [], groups: { invoice: 0, kb_article: 0 }, totalCount: 0, countsExact: true });
  });

  it('indexes every type it owns: client notes, contacts, users, comments, boards, statuses, categories, tags', async () => {
    const { admin, tenant } = await makeTenant(t);
    const w = `quokka${Date.now().toString(36)}`;
    const client = await makeClient(admin);
    expectStatus(await admin.put(`/api/v1/clients/${client.client_id}/notes`, { notes: `Prefers ${w} on Fridays` }), 200);
    const ticket = await makeTicket(admin, client.client_id, { tags: [`${w}-tag`] });
    const comment = (await admin.post(`/api/v1/tickets/${ticket.ticket_id}/comments`, { comment_text: `Called about the ${w}` })).json().data;
    const board = (await admin.post('/api/v1/boards', { board_name: `${w} board` })).json().data;
    const category = (await admin.post('/api/v1/categories', { category_name: `${w} category`, board_id: board.board_id })).json().data;
    const status = (await admin.post(`/api/v1/boards/${board.board_id}/statuses`, { name: `${w} status` })).json().data;
    const user = await makeUser(t, tenant, { role: 'Viewer' });
    await t.database.db.updateTable('users').set({ first_name: w }).where('user_id', '=', user.userId).execute();
    expectStatus(await admin.put(`/api/v1/users/${user.userId}`, { last_name: 'Changed' }), 200);
    const page = await search(admin, { query: w, limit: 100 });
    const byType = Object.fromEntries(page.results.map((r) => [r.type, r]));
    expect(byType.client).toMatchObject({ id: client.client_id, url: `/clients/${client.client_id}` });
    expect(byType.client!.snippet).toContain(`<mark>${w}</mark>`);
    expect(byType.ticket_comment).toMatchObject({ id: comment.comment_id, parentId: ticket.ticket_id, url: `/tickets/${ticket.ticket_id}#comment-${comment.comment_id}` });
    expect(byType.board).toMatchObject({ id: board.board_id });
    expect(byType.category).toMatchObject({ id: category.category_id, subtitle: `${w} board` });
    expect(page.results.find((r) => r.id === status.status_id)).toMatchObject({ type: 'status', parentId: board.board_id, subtitle: `${w} board | open` });
    expect(byType.tag).toMatchObject({ title: `${w}-tag`, subtitle: '1 ticket' });
    expect(byType.user).toMatchObject({ id: user.userId, title: `${w} Changed` });
    // The board's three default statuses embed its name too.
    expect(page.groups).toMatchObject({ client: 1, ticket_comment: 1, board: 1, category: 1, status: 4, tag: 1, user: 1, ticket: 0 });
  });
});

describe('GET /search — input', () => {
  it('rejects bad parameters with 400 and an unauthenticated call with 401', async () => {
    const { admin } = await makeTenant(t);
    for (const params of [
      { query: '' }, { query: 'x'.repeat(201) }, { query: '   ' }, { query: 'a', types: 'ticket,spaceship' }, { query: 'a', types: ',' },
      { query: 'a', limit: 0 }, { query: 'a', limit: 101 }, { query: 'a', limit: 'ten' }, { query: 'a', sort: 'best' },
      { query: 'a', cursor: 'garbage' }, { query: 'a', extra: '1' }, {},
    ]) {
      expectError(await searchRes(admin, params as Record<string, string>), 400, 'VALIDATION_ERROR');
    }
    expect((await search(admin, { query: 'x'.repeat(200) })).results).toEqual([]);
    expectError(await anonymous(t).get('/api/v1/search?query=a'), 401, 'UNAUTHORIZED');
    expectError(await anonymous(t).get('/api/v1/search?query=a', { 'x-api-key': 'psa_nope' }), 401, 'UNAUTHORIZED');
  });

  it('never fails on hostile query text', async () => {
    const { admin } = await makeTenant(t);
    await makeTicket(admin, (await makeClient(admin)).client_id, { title: 'Normal ticket' });
    const nasty = [
      "'", '"', '\\', '%', '_', '%_%', '!', '&', '|', ':*', '(', ')', '<->', '!!!', 'a & | b', '"unclosed', "o'reilly",
      '-', '--', 'or', 'OR OR', 'a:*B', '*', '\u0000x', '\u0007bell', '😀 emoji', 'x²', 'ǅ', '\u200b', 'select * from tickets;',
      'T-', 'T-999999999999', 'ab-12-34', '<script>', 'ticket:A', 'the', 'the and of', '   spaced   out   ',
    ];
    for (const query of nasty) {
      const res = await searchRes(admin, { query });
      expect([200, 400], `${JSON.stringify(query)}: ${res.body}`).toContain(res.statusCode);
    }
    for (let i = 0; i < 60; i++) {
      const len = 1 + Math.floor(Math.random() * 40);
      const query = Array.from({ length: len }, () => String.fromCharCode(32 + Math.floor(Math.random() * 95))).join('');
      const res = await searchRes(admin, { query });
      expect([200, 400], `${JSON.stringify(query)}: ${res.body}`).toContain(res.statusCode);
    }
  });
});

describe('query parsing', () => {
  it('builds prefix queries from words (the last a prefix unless short) and recognises identifiers without losing prefixes', async () => {
    const { parseQuery } = await import('./search.parse.ts');
    expect(parseQuery('  Printer\u0000  jam ')).toEqual({ text: 'Printer jam', tokens: ['printer', 'jam'], prefix: 'printer & jam:*', plainWords: true, identifiers: [], identifierPrefix: null });
    expect(parseQuery('new printer ab')).toMatchObject({ prefix: 'new & printer & ab' });
    expect(parseQuery('T-123')).toMatchObject({ prefix: 't & 123:*', plainWords: false, identifiers: ['t-123', 't-000123'], identifierPrefix: 't-123%' });
    expect(parseQuery('srv01')).toMatchObject({ prefix: 'srv01:*', plainWords: true, identifiers: ['srv-01', 'srv-000001'] });
    expect(parseQuery('"exact phrase"')).toMatchObject({ prefix: null, plainWords: false });
    expect(parseQuery('vpn or mail')).toMatchObject({ prefix: null, plainWords: false });
    expect(parseQuery('bob@example.com')).toMatchObject({ plainWords: false });
  });

  it('reads a correction: words kept or widened by prefix, corrected words whole', async () => {
    const { parseCorrected } = await import('./search.parse.ts');
    expect(parseCorrected('proj* boardroom ab*')).toEqual({
      text: 'proj boardroom ab', tokens: ['proj', 'boardroom', 'ab'], prefix: 'proj:* & boardroom & ab', plainWords: true, identifiers: [], identifierPrefix: null,
    });
  });

  it('lists the spellings one edit away, swapped neighbours first', async () => {
    const { oneEditAway } = await import('./lexicon.ts');
    const v = oneEditAway('cta');
    expect(v.slice(0, 2)).toEqual(['tca', 'cat']);
    expect(v).toEqual(expect.arrayContaining(['ata', 'cxa', 'ta', 'ca', 'ctab', 'acta']));
    expect(v).not.toContain('cut');
    expect(v).not.toContain('cta');
    expect(new Set(v).size).toBe(v.length);
    // Letters outside a–z that the word has are tried too.
    expect(oneEditAway('café')).toEqual(expect.arrayContaining(['éafé', 'caf']));
  });

  it('finds the plural of a word that looks like an identifier', async () => {
    const { admin } = await makeTenant(t);
    const ticket = await makeTicket(admin, (await makeClient(admin)).client_id, { title: 'Replace the xqz4711s' });
    expect(idsOf((await search(admin, { query: 'xqz4711', types: 'ticket' })).results)).toEqual([ticket.ticket_id]);
  });
});
