import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/harness.ts';
import { makeTenant } from '../../../test/factories.ts';
import { expectError, expectStatus, makeClient } from '../../../test/client-factories.ts';
import { makeTicket, type TicketJson } from '../../../test/ticket-factories.ts';
import { idsOf, search, searchAll, searchRes } from '../../../test/search-kit.ts';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => { await t.close(); });

const word = () => `lynx${Math.random().toString(36).slice(2, 9)}`;

/** Tickets whose matches land in several score tiers (title, body, prefix) with many ties. */
async function corpus(n: number) {
  const { admin, tenant } = await makeTenant(t);
  const w = word();
  const client = await makeClient(admin);
  const tickets: TicketJson[] = [];
  for (let i = 0; i < n; i++) {
    const kind = i % 3;
    const fields = kind === 0 ? { title: `${w} case ${i}` } : kind === 1 ? { title: `Case ${i}`, description: `mentions ${w} here` } : { title: `${w}s plural ${i}` };
    tickets.push(await makeTicket(admin, client.client_id, fields));
  }
  return { admin, tenant, w, client, tickets };
}

describe('search paging', () => {
  it('walks every result exactly once, in the single-page order, for both sorts', async () => {
    const { admin, w, tickets } = await corpus(23);
    for (const sort of ['relevance', 'recent'] as const) {
      const whole = await search(admin, { query: w, sort, limit: 100 });
      expect(whole.results).toHaveLength(23);
      expect(whole.nextCursor).toBeUndefined();
      const { hits, pages } = await searchAll(admin, { query: w, sort, limit: 4 });
      expect(pages).toHaveLength(6);
      expect(pages.slice(0, 5).every((p) => p.results.length === 4 && p.nextCursor)).toBe(true);
      expect(idsOf(hits)).toEqual(idsOf(whole.results));
      expect(new Set(idsOf(hits))).toEqual(new Set(tickets.map((x) => x.ticket_id)));
      for (const p of pages) expect(p.totalCount).toBe(23);
    }
  });

  it('never repeats or skips unchanged rows while other rows change, appear or disappear between pages', async () => {
    const { admin, w, client, tickets } = await corpus(24);
    const before = idsOf((await search(admin, { query: w, limit: 100 })).results);
    const changed = new Set<string>();
    const deleted = new Set<string>();
    const { hits } = await searchAll(admin, { query: w, limit: 5 }, async (page) => {
      // Promote a row near the end to the top tier, demote one from the start, add and delete rows.
      const promote = tickets[(page * 7) % tickets.length]!;
      changed.add(promote.ticket_id);
      expectStatus(await admin.put(`/api/v1/tickets/${promote.ticket_id}`, { title: w }), 200);
      const demote = tickets[page]!;
      changed.add(demote.ticket_id);
      expectStatus(await admin.put(`/api/v1/tickets/${demote.ticket_id}`, { title: `Other ${page}`, description: `late ${w}` }), 200);
      await makeTicket(admin, client.client_id, { title: `${w} newcomer ${page}` });
      const gone = tickets[tickets.length - page]!;
      if (!changed.has(gone.ticket_id)) {
        deleted.add(gone.ticket_id);
        expectStatus(await admin.delete(`/api/v1/tickets/${gone.ticket_id}`), 204);
      }
    });
    const seen = idsOf(hits);
    expect(new Set(seen).size).toBe(seen.length);
    const unchanged = before.filter((id) => !changed.has(id) && !deleted.has(id));
    expect(seen.filter((id) => unchanged.includes(id))).toEqual(unchanged);
    // A fresh search sees the current state, newcomers included.
    const fresh = await search(admin, { query: w, limit: 100 });
    expect(fresh.results.filter((r) => r.title.includes('newcomer'))).not.toHaveLength(0);
    // The promoted rows (titled the word) are in the title tier, newest first with the newcomers.
    expect(fresh.results.filter((r) => r.title === w).every((r) => r.score === 700)).toBe(true);
    expect(fresh.results[0]!.score).toBe(700);
  });

  it('refuses a cursor that was tampered with, forged or reused with another search', async () => {
    const { admin, w } = await corpus(6);
    const first = await search(admin, { query: w, limit: 2 });
    const cursor = first.nextCursor!;
    expect(cursor).toBeDefined();
    expectStatus(await searchRes(admin, { query: w, limit: 2, cursor }), 200);
    // Page size may change between pages.
    expectStatus(await searchRes(admin, { query: w, limit: 50, cursor }), 200);
    const [body, mac] = cursor.split('.') as [string, string];
    const decoded = JSON.parse(Buffer.from(body, 'base64url').toString());
    const forged = Buffer.from(JSON.stringify({ ...decoded, k: [0, decoded.k[1], decoded.k[2], decoded.k[3]] })).toString('base64url');
    const flip = (s: string) => s.slice(0, 5) + (s[5] === 'A' ? 'B' : 'A') + s.slice(6);
    for (const bad of [`${forged}.${mac}`, `${flip(body)}.${mac}`, `${body}.${flip(mac)}`, body, `${cursor}.x`, 'a.b', '..', '%%%']) {
      expectError(await searchRes(admin, { query: w, cursor: bad, limit: 2 }), 400, 'VALIDATION_ERROR');
    }
    for (const other of [{ query: `${w}x` }, { query: w, types: 'ticket' }, { query: w, sort: 'recent' }]) {
      const res = await searchRes(admin, { limit: 2, ...other, cursor });
      expectError(res, 400, 'VALIDATION_ERROR');
      expect(res.json().error.message).toBe('invalid cursor');
    }
    // Another tenant cannot continue it either.
    const stranger = await makeTenant(t);
    expectError(await searchRes(stranger.admin, { query: w, limit: 2, cursor }), 400, 'VALIDATION_ERROR');
  });

  it('pages a typo-corrected search with the correction of its first page, whatever is written in between', async () => {
    const { admin } = await makeTenant(t);
    const client = await makeClient(admin);
    const tickets: TicketJson[] = [];
    for (let i = 0; i < 7; i++) tickets.push(await makeTicket(admin, client.client_id, { title: `Kiosk calibration round ${i}` }));
    const { hits, pages } = await searchAll(admin, { query: 'calibartion', limit: 3 }, async (page) => {
      // After the first page the misspelling becomes a real word of the tenant: a fresh search would now
      // match it as typed, but this search keeps paging through its corrected query.
      if (page === 1) await makeTicket(admin, client.client_id, { title: 'Calibartion spelled wrong on purpose' });
    });
    expect(pages.map((p) => p.results.length)).toEqual([3, 3, 1]);
    expect(new Set(idsOf(hits))).toEqual(new Set(tickets.map((x) => x.ticket_id)));
    expect(hits.every((h) => h.score === 70)).toBe(true);
    const fresh = await search(admin, { query: 'calibartion' });
    expect(fresh.results).toHaveLength(1);
    expect(fresh.results[0]!.score).toBe(700);
    // A cursor that claims a correction its MAC does not cover, or drops one, is refused.
    const first = await search(admin, { query: 'kiosk', limit: 2 });
    const [body, mac] = first.nextCursor!.split('.') as [string, string];
    const decoded = JSON.parse(Buffer.from(body, 'base64url').toString());
    const forged = Buffer.from(JSON.stringify({ ...decoded, f: 1, c: 'anything' })).toString('base64url');
    expectError(await searchRes(admin, { query: 'kiosk', limit: 2, cursor: `${forged}.${mac}` }), 400, 'VALIDATION_ERROR');
  });

  it('pages a long corrected query in another script: its cursor is accepted however long the words', async () => {
    const { admin } = await makeTenant(t);
    const client = await makeClient(admin);
    // Six 30-letter words in a 3-byte script and one misspelt word: a 197-character query.
    const letters = '的一是不了人我在有他这为之大来以个中上们到说国和地也子时道出而要于就下得可你年生自会那后能对着事其里所去行过家十用发天如然作方成者多日都三小理么心';
    const long = Array.from({ length: 6 }, (_, i) => Array.from({ length: 30 }, (_, j) => letters[(i * 11 + j * 7) % letters.length]).join(''));
    const tickets: TicketJson[] = [];
    for (let i = 0; i < 3; i++) tickets.push(await makeTicket(admin, client.client_id, { title: `Calibration ${i}`, description: long.join(' ') }));
    const { hits, pages } = await searchAll(admin, { query: `${long.join(' ')} calibartion`, limit: 1 });
    expect(pages).toHaveLength(3);
    expect(pages[0]!.nextCursor!.length).toBeGreaterThan(1000);
    expect(new Set(idsOf(hits))).toEqual(new Set(tickets.map((x) => x.ticket_id)));
  });
});
