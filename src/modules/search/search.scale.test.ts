import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/harness.ts';
import { makeTenant } from '../../../test/factories.ts';
import type { Actor } from '../../platform/auth/context.ts';
import { allPermissions } from '../../platform/auth/permissions.ts';
import { newId } from '../../platform/ids.ts';
import type { SearchDocument } from '../../platform/search/types.ts';
import { startWorker } from '../../platform/events/worker.ts';
import { mergePendingPostings } from '../../platform/search/postings.ts';
import { removeFromSearch, upsertSearchDocuments } from '../../platform/search/writer.ts';
import { createSearchService, type SearchService } from './search.service.ts';
import type { SearchPage, SearchQuery } from './search.schemas.ts';
import type { SearchType } from './search.types.ts';
import { IDENTIFIER_TIER_MAX } from './search.identifier-tier.ts';
import { prefixEnd } from './search.word-engine.ts';

/**
 * Counts that stop at the cap, and the ranking the word engine reads from the head postings, checked against
 * the general engine. The cap is injected small (5) so "above the cap" needs a handful of rows. Every case runs
 * twice: with the documents' postings still pending (computed from their rows) and merged into the index
 * (platform/search/postings.ts); a search must not tell the two apart.
 */
let t: TestApp;
const CAP = 5;
let service: SearchService;
const mac = { mac: (d: string) => `m${d.length}`, verifyMac: (d: string, m: string) => m === `m${d.length}` };
beforeAll(async () => {
  t = await buildTestApp();
  service = createSearchService({ db: t.database.db, cursorMac: mac, countCap: CAP });
});
afterAll(async () => { await t.close(); });

// A digit keeps the word out of the stemmer (a numword), so a longer word starting with it matches as a prefix. The
// final letter keeps it from looking like an identifier ("quokkaab123450" reads as quokkaab-123450, and an identifier
// query takes the general engine, whose counts are exact and uncapped: ~1 % of words did before, failing these tests).
const word = () => `quokka${Math.random().toString(36).slice(2, 9)}0q`;

const actorOf = (tenant: string, userId: string, permissions: readonly string[] = allPermissions()): Actor => ({
  tenant, tenantSlug: 'scale', userId, apiKeyId: 'test', userType: 'internal', clientId: null, contactId: null, permissions: new Set(permissions), scopes: null,
});

type Doc = Omit<SearchDocument, 'id' | 'url' | 'updatedAt'> & { updatedAt?: Date };

/** Whether index() merges the postings it wrote (the state a describe block runs its cases in). */
let mergeOnIndex = false;

async function index(tenant: string, docs: Doc[]): Promise<string[]> {
  const full = docs.map((d, i) => ({ ...d, id: newId(), url: `/${d.type}`, updatedAt: d.updatedAt ?? new Date(Date.UTC(2026, 0, 1, 0, 0, i)) }));
  await upsertSearchDocuments(t.database.db, tenant, full);
  if (mergeOnIndex) await mergePendingPostings(t.database.db);
  return full.map((d) => d.id);
}

async function all(actor: Actor, q: SearchQuery): Promise<{ ids: string[]; pages: SearchPage[] }> {
  const pages: SearchPage[] = [];
  let cursor: string | undefined;
  do {
    const page = await service.search(actor, { ...q, ...(cursor ? { cursor } : {}) });
    pages.push(page);
    cursor = page.nextCursor;
  } while (cursor && pages.length < 500);
  return { ids: pages.flatMap((p) => p.results.map((r) => r.id)), pages };
}

describe('search at scale: prefix ranges', () => {
  it('bounds a prefix by the least string after every string that starts with it', () => {
    expect(prefixEnd('abc')).toBe('abd');
    expect(prefixEnd('printer')).toBe('printes');
    expect(prefixEnd('a\u{10FFFF}')).toBe('b');
    expect(prefixEnd('\u{D7FF}')).toBe('\u{E000}');
    expect(prefixEnd('\u{10FFFF}\u{10FFFF}')).toBeNull();
    for (const [s, inside] of [['abc', 'abczzz'], ['ü', 'über'], ['x', 'x\u{10FFFF}y']] as const) {
      expect(Buffer.compare(Buffer.from(inside), Buffer.from(prefixEnd(s)!))).toBe(-1);
    }
  });
});

for (const state of ['pending', 'merged'] as const) describe(`search at scale, head postings ${state}`, () => {
  beforeAll(() => { mergeOnIndex = state === 'merged'; });

  describe('search at scale: capped counts', () => {
    it('counts exactly up to the cap and reports the cap, flagged, above it', async () => {
      const { tenant, adminUserId } = await makeTenant(t);
      const admin = actorOf(tenant, adminUserId);
      const w = word();
      await index(tenant, [
        ...Array.from({ length: 4 }, (_, i): Doc => ({ type: 'ticket', title: `${w} ticket ${i}` })),
        // Body-only matches: counted from the type's full-text index, not the head postings.
        ...Array.from({ length: 7 }, (_, i): Doc => ({ type: 'asset', title: `Asset ${i}`, body: `notes about ${w}` })),
        // Title matches: the head count alone passes the cap.
        ...Array.from({ length: 6 }, (_, i): Doc => ({ type: 'kb_article', title: `${w} article ${i}` })),
        // Exactly the cap.
        ...Array.from({ length: CAP }, (_, i): Doc => ({ type: 'contact', title: `Contact ${i}`, subtitle: `${w} desk` })),
      ]);
      const page = await service.search(admin, { query: w, limit: 100 });
      expect(page.groups).toMatchObject({ ticket: 4, asset: CAP, kb_article: CAP, contact: CAP });
      expect(page.countsExact).toBe(false);
      expect(page.totalCount).toBe(4 + CAP + CAP + CAP);
      // The page itself is never capped: every match is there.
      expect(page.results).toHaveLength(4 + 7 + 6 + CAP);

      for (const [types, n] of [['ticket', 4], ['contact', CAP]] as const) {
        const exact = await service.search(admin, { query: w, types });
        expect(exact.groups).toEqual({ [types]: n });
        expect(exact.countsExact).toBe(true);
      }
      for (const types of ['asset', 'kb_article']) {
        const capped = await service.search(admin, { query: w, types });
        expect(capped.groups).toEqual({ [types]: CAP });
        expect(capped.countsExact).toBe(false);
        expect(capped.totalCount).toBe(CAP);
      }
      // The general engine (two words) counts exactly at any size.
      const general = await service.search(admin, { query: `${w} notes`, types: 'asset' });
      expect(general.groups).toEqual({ asset: 7 });
      expect(general.countsExact).toBe(true);
    });

    it('never counts a row the caller cannot open, even near the cap', async () => {
      const { tenant, adminUserId } = await makeTenant(t);
      const admin = actorOf(tenant, adminUserId);
      const other = newId();
      const w = word();
      const visible = (type: SearchType, where: 'title' | 'body', n: number): Doc[] =>
        Array.from({ length: n }, (_, i) => (where === 'title' ? { type, title: `${w} ${i}` } : { type, title: `Row ${i}`, body: `about ${w}` }));
      const hidden = (rows: Doc[]): Doc[] => rows.flatMap((d, i) => [
        { ...d, visibleToUserIds: [other] },
        { ...d, requiredPermission: 'nobody:holds', title: `${d.title} ${i}` },
      ]);
      await index(tenant, [
        ...visible('ticket', 'title', CAP), ...hidden(visible('ticket', 'title', 3)),
        ...visible('asset', 'body', CAP), ...hidden(visible('asset', 'body', 3)),
      ]);
      for (const types of ['ticket', 'asset']) {
        const page = await service.search(admin, { query: w, types, limit: 100 });
        expect(page.groups).toEqual({ [types]: CAP });
        expect(page.countsExact).toBe(true);
        expect(page.results).toHaveLength(CAP);
        // The user the hidden rows are for sees three more: past the cap.
        const theirs = await service.search(actorOf(tenant, other), { query: w, types, limit: 100 });
        expect(theirs.groups).toEqual({ [types]: CAP });
        expect(theirs.countsExact).toBe(false);
        expect(theirs.results).toHaveLength(CAP + 3);
      }
      // A portal caller counts only its client's rows, internal ones excluded.
      const client = newId();
      await index(tenant, [
        ...Array.from({ length: 2 }, (_, i): Doc => ({ type: 'ticket_comment', title: `${w} comment ${i}`, clientId: client })),
        ...Array.from({ length: 4 }, (_, i): Doc => ({ type: 'ticket_comment', title: `${w} internal ${i}`, clientId: client, isInternal: true })),
        ...Array.from({ length: 4 }, (_, i): Doc => ({ type: 'ticket_comment', title: `${w} elsewhere ${i}`, clientId: newId() })),
      ]);
      const portal = { ...actorOf(tenant, newId()), userType: 'client' as const, clientId: client };
      const portalPage = await service.search(portal, { query: w, types: 'ticket_comment' });
      expect(portalPage.groups).toEqual({ ticket_comment: 2 });
      expect(portalPage.countsExact).toBe(true);
    });

    it('counts a client-portal caller\'s matches exactly past the cap and pages them in ranking order', async () => {
      const { tenant } = await makeTenant(t);
      const w = word();
      const client = newId();
      const at = (i: number) => new Date(Date.UTC(2026, 1, 1, 0, 0, i));
      const titles = await index(tenant, Array.from({ length: CAP + 3 }, (_, i): Doc => ({ type: 'ticket', title: `${w} ${i}`, clientId: client, updatedAt: at(i) })));
      const bodies = await index(tenant, Array.from({ length: 2 }, (_, i): Doc => ({ type: 'ticket', title: `Row ${i}`, body: `about ${w}`, clientId: client, updatedAt: at(100 + i) })));
      await index(tenant, [
        ...Array.from({ length: 2 }, (_, i): Doc => ({ type: 'ticket', title: `${w} internal ${i}`, clientId: client, isInternal: true })),
        ...Array.from({ length: CAP + 2 }, (_, i): Doc => ({ type: 'ticket', title: `${w} elsewhere ${i}`, clientId: newId() })),
      ]);
      const portal = { ...actorOf(tenant, newId()), userType: 'client' as const, clientId: client };
      // Title matches newest first, then the body matches newest first; never another client's or an internal row.
      const expected = [...titles.reverse(), ...bodies.reverse()];
      // The prefix is the word's fixed start: a cut through its random letters can end in one the stemmer rewrites
      // (`…jyry` → `…jyri`), which then begins no word (1 run in ~150 failed so).
      for (const query of [w, w.slice(0, 6)]) {
        const walk = await all(portal, { query, types: 'ticket', limit: 3 });
        expect(walk.ids).toEqual(expected);
        expect(walk.pages.map((p) => [p.groups, p.countsExact])).toEqual(walk.pages.map(() => [{ ticket: CAP + 5 }, true]));
      }
    });
  });

  describe('search at scale: ranking and paging', () => {
    it('ranks title over subtitle over body, newest first within each, the same in both engines', async () => {
      const { tenant, adminUserId } = await makeTenant(t);
      const admin = actorOf(tenant, adminUserId);
      const w = word();
      const v = word();
      const at = (minute: number) => new Date(Date.UTC(2026, 5, 1, 12, minute));
      const [titleOld, titleNew, subOld, subNew, bodyOld, bodyNew, prefixTitle] = await index(tenant, [
        { type: 'ticket', title: `${w} ${v} old`, updatedAt: at(1) },
        { type: 'asset', title: `${w} ${v} new`, updatedAt: at(5) },
        { type: 'contact', title: 'Someone', subtitle: `${w} ${v} old`, updatedAt: at(2) },
        { type: 'ticket', title: 'Something', subtitle: `${w} ${v} new`, updatedAt: at(6) },
        // The newest rows mention the words only in their bodies: they still rank last.
        { type: 'kb_article', title: 'Article', body: `a ${w} ${v} here`, updatedAt: at(8) },
        { type: 'ticket', title: 'Other', body: `and ${w} ${v} there`, updatedAt: at(9) },
        // A longer word starting with the query is a title match too.
        { type: 'client', title: `${w}ville ${v} Ltd`, updatedAt: at(3) },
      ]);
      const expected = [titleNew, prefixTitle, titleOld, subNew, subOld, bodyNew, bodyOld];
      const single = await service.search(admin, { query: w });
      expect(single.results.map((r) => r.id)).toEqual(expected);
      expect(single.results.map((r) => r.score)).toEqual([700, 700, 700, 500, 500, 300, 300]);
      // Two words take the general engine: same tiers, same order (the last word is the prefix).
      const general = await service.search(admin, { query: `${v} ${w}` });
      expect(general.results.map((r) => r.id)).toEqual(expected);
      expect(general.results.map((r) => r.score)).toEqual([700, 700, 700, 500, 500, 300, 300]);
      // Recency alone on request.
      const recent = await service.search(admin, { query: w, sort: 'recent' });
      expect(recent.results.map((r) => r.id)).toEqual([bodyNew, bodyOld, subNew, titleNew, prefixTitle, subOld, titleOld]);
      expect(recent.results.map((r) => r.score)).toEqual([300, 300, 500, 700, 700, 500, 700]);
    });

    it('pages a large match set across many pages without repeating or skipping, ties included', async () => {
      const { tenant, adminUserId } = await makeTenant(t);
      const admin = actorOf(tenant, adminUserId);
      const w = word();
      const tied = new Date(Date.UTC(2026, 2, 3, 4, 5, 6));
      const types: SearchType[] = ['ticket', 'asset', 'contact', 'kb_article'];
      const docs: Doc[] = Array.from({ length: 240 }, (_, i) => {
        const type = types[i % types.length]!;
        // Every third row shares one timestamp, so type and id decide among them.
        const updatedAt = i % 3 === 0 ? tied : new Date(Date.UTC(2026, 1, 1) + i * 60_000);
        const where = i % 5;
        return where < 2 ? { type, title: `${w} row ${i}`, updatedAt }
          : where === 2 ? { type, title: `Row ${i}`, subtitle: `${w}`, updatedAt }
            : { type, title: `Row ${i}`, body: `mentions ${w}`, updatedAt };
      });
      const ids = await index(tenant, docs);
      const tier = (d: Doc) => (d.title.includes(w) ? 1 : d.subtitle ? 2 : 3);
      const expected = docs.map((d, i) => ({ d, id: ids[i]! }))
        .sort((a, b) => tier(a.d) - tier(b.d) || b.d.updatedAt!.getTime() - a.d.updatedAt!.getTime()
          || (a.d.type < b.d.type ? -1 : a.d.type > b.d.type ? 1 : 0) || (a.id < b.id ? -1 : 1))
        .map((x) => x.id);
      for (const limit of [7, 30]) {
        const walk = await all(admin, { query: w, limit });
        expect(walk.ids).toEqual(expected);
        expect(walk.pages).toHaveLength(Math.ceil(240 / limit));
        // Per page, so a failure shows which page and which type's count went wrong.
        const capped = Object.fromEntries(Object.keys(walk.pages[0]!.groups).map((type) => [type, types.includes(type as SearchType) ? CAP : 0]));
        expect(walk.pages.map((p) => [p.groups, p.totalCount, p.countsExact])).toEqual(walk.pages.map(() => [capped, 4 * CAP, false]));
      }
      const recent = await all(admin, { query: w, limit: 11, sort: 'recent' });
      expect(new Set(recent.ids).size).toBe(240);
      expect(recent.ids).toHaveLength(240);
    });

    it('reads a prefix covering several words like one: a document holding several counts once, at its best tier', async () => {
      // 3 words are read in ranking order on the first page; 7 are more than the ranked read takes and are read grouped;
      // their prefixes of four and three letters ("quok", "quo", which no other word of the tenant begins) from their own
      // postings, in ranking order.
      for (const [words, prefixLength] of [[3, 0], [7, 0], [7, 4], [7, 3]] as const) {
        const { tenant, adminUserId } = await makeTenant(t);
        const admin = actorOf(tenant, adminUserId);
        const w = word();
        const query = prefixLength ? w.slice(0, prefixLength) : w;
        const terms = Array.from({ length: words }, (_, i) => (i === 0 ? w : `${w}x${i}`));
        const at = (i: number) => new Date(Date.UTC(2026, 3, 1) + (i % 4 === 0 ? 0 : i) * 60_000);
        let n = 0;
        const doc = (d: Omit<Doc, 'updatedAt'>): Doc => ({ ...d, updatedAt: at(n++) });
        const docs: Doc[] = [
          // Every word in the title: one match each, not one per word.
          ...Array.from({ length: 3 }, (_, i) => doc({ type: 'ticket', title: `${terms.join(' ')} ${i}` })),
          // One word in the title and another in the subtitle: a title match.
          ...Array.from({ length: 2 }, (_, i) => doc({ type: 'asset', title: `${terms[1]} ${i}`, subtitle: terms[0]! })),
          ...Array.from({ length: 2 }, (_, i) => doc({ type: 'asset', title: `Asset ${i}`, subtitle: terms[2]! })),
          // No word past the cap alone, but together they are.
          ...Array.from({ length: 4 }, (_, i) => doc({ type: 'contact', title: `Contact ${i}`, subtitle: terms[0]! })),
          ...Array.from({ length: 4 }, (_, i) => doc({ type: 'contact', title: `Person ${i}`, subtitle: terms[1]! })),
          // One word past the cap alone.
          ...Array.from({ length: CAP + 1 }, (_, i) => doc({ type: 'kb_article', title: `${terms[0]} guide ${i}` })),
          // Body only.
          ...Array.from({ length: 2 }, (_, i) => doc({ type: 'client', title: `Client ${i}`, body: `uses ${terms.at(-1)}` })),
        ];
        const ids = await index(tenant, docs);
        const tier = (d: Doc) => (terms.some((x) => d.title.includes(x)) ? 1 : d.subtitle ? 2 : 3);
        const expected = docs.map((d, i) => ({ d, id: ids[i]! }))
          .sort((a, b) => tier(a.d) - tier(b.d) || b.d.updatedAt!.getTime() - a.d.updatedAt!.getTime()
            || (a.d.type < b.d.type ? -1 : a.d.type > b.d.type ? 1 : 0) || (a.id < b.id ? -1 : 1))
          .map((x) => x.id);
        const groups = { ticket: 3, asset: 4, contact: CAP, kb_article: CAP, client: 2 };
        for (const limit of [4, 50]) {
          const walk = await all(admin, { query, limit });
          expect(walk.ids).toEqual(expected);
          for (const page of walk.pages) {
            expect(page.groups).toMatchObject(groups);
            expect(page.countsExact).toBe(false);
          }
        }
        const exact = await service.search(admin, { query, types: 'ticket,asset,client', limit: 50 });
        expect(exact.groups).toEqual({ ticket: 3, asset: 4, client: 2 });
        expect(exact.countsExact).toBe(true);
        expect(exact.results.map((r) => r.score)).toEqual([...Array(5).fill(700), 500, 500, 300, 300]);
      }
    });
  });

  describe('search at scale: one word shaped like an identifier', () => {
    // Letters then digits (`office365`, `srv01`): parseQuery reads identifiers from it, and the word engine still serves it.
    const letters = () => `qz${Array.from({ length: 6 }, () => String.fromCharCode(97 + Math.floor(Math.random() * 26))).join('')}`;

    it('reads its text matches like any word: counts stop at the cap', async () => {
      const { tenant, adminUserId } = await makeTenant(t);
      const w = `${letters()}42`;
      await index(tenant, Array.from({ length: CAP + 3 }, (_, i): Doc => ({ type: 'ticket', title: `${w} printer ${i}` })));
      const page = await service.search(actorOf(tenant, adminUserId), { query: w });
      expect([page.groups.ticket, page.totalCount, page.countsExact]).toEqual([CAP, CAP, false]);
      expect(page.results).toHaveLength(CAP + 3);
    });

    it('ranks the identifiers it names above its text matches, counts each document once and never a hidden one', async () => {
      const { tenant, adminUserId } = await makeTenant(t);
      const admin = actorOf(tenant, adminUserId);
      const l = letters();
      const w = `${l}12`;
      const at = (minute: number) => new Date(Date.UTC(2026, 6, 1, 9, minute));
      const [exactPadded, exact, prefixed, prefixedAndTitle, , title, subtitle, body] = await index(tenant, [
        { type: 'ticket', title: 'Printer jam', identifier: `${l.toUpperCase()}-000012`, updatedAt: at(1) },
        { type: 'project_task', title: 'Rack the switch', identifier: `${l}-12`, updatedAt: at(2) },
        { type: 'ticket', title: 'Other', identifier: `${l}-123`, updatedAt: at(3) },
        { type: 'ticket', title: `${w} replaced`, identifier: `${l}-124`, updatedAt: at(9) },
        // Visible to another user only: neither returned nor counted.
        { type: 'project_task', title: `${w} private`, identifier: `${l}-125`, visibleToUserIds: [newId()], updatedAt: at(10) },
        { type: 'asset', title: `${w} server`, updatedAt: at(4) },
        { type: 'contact', title: 'Someone', subtitle: w, updatedAt: at(5) },
        { type: 'kb_article', title: 'Article', body: `see ${w} here`, updatedAt: at(6) },
      ]);
      const expected = [exact, exactPadded, prefixedAndTitle, prefixed, title, subtitle, body];
      const first = await service.search(admin, { query: w });
      expect(first.results.map((r) => r.id)).toEqual(expected);
      expect(first.results.map((r) => r.score)).toEqual([1000, 1000, 900, 900, 700, 500, 300]);
      expect([first.groups, first.totalCount, first.countsExact]).toEqual([
        { ...Object.fromEntries(Object.keys(first.groups).map((k) => [k, 0])), ticket: 3, project_task: 1, asset: 1, contact: 1, kb_article: 1 }, 7, true,
      ]);
      // Pages end inside and between the tiers without repeating or skipping.
      for (const limit of [1, 2, 3]) expect((await all(admin, { query: w, limit })).ids).toEqual(expected);
      const recent = await all(admin, { query: w, limit: 2, sort: 'recent' });
      expect(recent.ids).toEqual([prefixedAndTitle, body, subtitle, title, prefixed, exact, exactPadded]);
      expect(recent.pages.flatMap((p) => p.results.map((r) => r.score))).toEqual([900, 300, 500, 700, 900, 1000, 1000]);

      // Past the cap in text and identifier matches together: the count stops there, the identifiers still lead.
      await index(tenant, Array.from({ length: 3 }, (_, i): Doc => ({ type: 'ticket', title: `${w} again ${i}`, updatedAt: at(20 + i) })));
      const capped = await service.search(admin, { query: w });
      expect([capped.groups.ticket, capped.countsExact]).toEqual([CAP, false]);
      expect(capped.results.slice(0, 4).map((r) => r.id)).toEqual(expected.slice(0, 4));
      expect(capped.results).toHaveLength(10);
    });

    it('leaves a word naming more identifiers than the tier holds to the general engine, with exact counts', async () => {
      const { tenant, adminUserId } = await makeTenant(t);
      const l = letters();
      const n = IDENTIFIER_TIER_MAX + 1;
      await index(tenant, Array.from({ length: n }, (_, i): Doc => ({ type: 'ticket', title: `Ticket ${i}`, identifier: `${l}-7${String(i).padStart(4, '0')}` })));
      const page = await service.search(actorOf(tenant, adminUserId), { query: `${l}7`, limit: 5 });
      expect([page.groups.ticket, page.countsExact]).toEqual([n, true]);
      expect(page.results.map((r) => r.score)).toEqual(Array(5).fill(900));
    });
  });
});

describe('search at scale: postings merged after the write', () => {
  beforeAll(() => { mergeOnIndex = false; });
  const postingsOf = async (tenant: string, id: string) => (await sql<{ term: string; tier: number }>`
    select term, tier from search_postings where tenant = ${tenant}::uuid and object_id = ${id}::uuid order by term`.execute(t.database.db)).rows;
  const pendingOf = async (tenant: string, id?: string) => Number((await sql<{ n: string }>`
    select count(*) as n from search_postings_pending where tenant = ${tenant}::uuid ${id ? sql`and object_id = ${id}::uuid` : sql``}`.execute(t.database.db)).rows[0]!.n);

  it('answers the same before and after each merge: a write, a rewrite over merged postings, a removal', async () => {
    const { tenant, adminUserId } = await makeTenant(t);
    const admin = actorOf(tenant, adminUserId);
    const w = word();
    const search = async (query: string) => (await service.search(admin, { query })).results.map((r) => [r.id, r.score]);
    const [id] = await index(tenant, [{ type: 'ticket', title: `${w} printer`, subtitle: `${w} lab` }]);
    expect([await postingsOf(tenant, id!), await pendingOf(tenant, id)]).toEqual([[], 1]);
    expect(await search(w)).toEqual([[id, 700]]);

    expect(await mergePendingPostings(t.database.db)).toBeGreaterThanOrEqual(1);
    // With the three- and four-letter prefixes of its words (migrations 0033 and 0035), at their best tier.
    expect([await postingsOf(tenant, id!), await pendingOf(tenant)]).toEqual([[
      { term: '\u0001lab', tier: 2 }, { term: '\u0001pri', tier: 1 }, { term: '\u0001prin', tier: 1 }, { term: '\u0001quo', tier: 1 },
      { term: '\u0001quok', tier: 1 }, { term: 'lab', tier: 2 }, { term: 'printer', tier: 1 }, { term: w, tier: 1 },
    ], 0]);
    expect(await search(w)).toEqual([[id, 700]]);

    // Rewritten: its merged postings are the old version's until the next merge, and a search must not read them.
    await upsertSearchDocuments(t.database.db, tenant, [{ type: 'ticket', id: id!, title: 'Scanner', body: `was ${w}`, url: '/ticket', updatedAt: new Date() }]);
    expect((await postingsOf(tenant, id!)).map((p) => p.term)).toEqual(['\u0001lab', '\u0001pri', '\u0001prin', '\u0001quo', '\u0001quok', 'lab', 'printer', w]);
    for (let merged = 0; merged < 2; merged++) {
      expect(await search(w)).toEqual([[id, 300]]);
      expect(await search('printer')).toEqual([]);
      expect(await search('scan')).toEqual([[id, 700]]);
      await mergePendingPostings(t.database.db);
    }
    expect(await postingsOf(tenant, id!)).toEqual([{ term: '\u0001sca', tier: 1 }, { term: '\u0001scan', tier: 1 }, { term: 'scanner', tier: 1 }]);

    await removeFromSearch(t.database.db, tenant, 'ticket', [id!]);
    expect(await search('scanner')).toEqual([]);
    await mergePendingPostings(t.database.db);
    expect([await postingsOf(tenant, id!), await pendingOf(tenant), await search('scanner')]).toEqual([[], 0, []]);
  });

  it('merges any number of writes to a document into its current postings, a batch at a time', async () => {
    const { tenant, adminUserId } = await makeTenant(t);
    const admin = actorOf(tenant, adminUserId);
    const w = word();
    const ids = await index(tenant, Array.from({ length: 7 }, (_, i): Doc => ({ type: 'ticket', title: `${w} first ${i}` })));
    await mergePendingPostings(t.database.db);
    // Each document rewritten three times (new words, tiers and recency each time) and one removed, unmerged.
    for (let round = 1; round <= 3; round++) {
      await upsertSearchDocuments(t.database.db, tenant, ids.map((id, i) => ({
        type: 'ticket', id, url: '/ticket', updatedAt: new Date(Date.UTC(2026, 1, round, 0, 0, i)),
        title: round === 3 ? `${w} final ${i}` : `Round ${round} ${i}`, subtitle: round === 2 ? `${w} round two` : null,
      })));
    }
    await removeFromSearch(t.database.db, tenant, 'ticket', [ids[6]!]);
    const before = await all(admin, { query: w, limit: 2 });
    // Three rewrites of seven documents and a removal, two pending rows per merge transaction (with every other
    // pending row of their documents): a document's rows are merged together, never split across transactions.
    expect(await mergePendingPostings(t.database.db, { batch: 2 })).toBe(22);
    expect(await pendingOf(tenant)).toBe(0);
    const after = await all(admin, { query: w, limit: 2 });
    expect(after.ids).toEqual(before.ids);
    expect(after.ids).toEqual([...ids.slice(0, 6)].reverse());
    // The merged postings are exactly those of the documents as they are: nothing left from an older version.
    const stale = await sql<{ n: string }>`
      select count(*) as n from (
        (select term, tier, object_type, object_id, updated_at from search_postings where tenant = ${tenant}::uuid
         except select t.term, t.tier, d.object_type, d.object_id, d.updated_at from search_documents d cross join lateral search_head_words(d.search_vector) t where d.tenant = ${tenant}::uuid)
        union all
        (select t.term, t.tier, d.object_type, d.object_id, d.updated_at from search_documents d cross join lateral search_head_words(d.search_vector) t where d.tenant = ${tenant}::uuid
         except select term, tier, object_type, object_id, updated_at from search_postings where tenant = ${tenant}::uuid)
      ) x`.execute(t.database.db);
    expect(Number(stale.rows[0]!.n)).toBe(0);
    for (const id of ids.slice(0, 6)) expect((await postingsOf(tenant, id)).map((p) => p.term)).toContain('final');
  });

  it('is merged by the worker on its own, every second', async () => {
    const { tenant } = await makeTenant(t);
    const w = word();
    const [id] = await index(tenant, [{ type: 'asset', title: `${w} rack` }]);
    const worker = await startWorker({ database: t.database, consumers: [], log: { error: () => undefined, info: () => undefined }, pollMs: 100 });
    try {
      await expect.poll(() => pendingOf(tenant, id), { timeout: 8000, interval: 200 }).toBe(0);
    } finally {
      await worker.stop();
    }
    expect((await postingsOf(tenant, id!)).map((p) => p.term)).toEqual(['\u0001quo', '\u0001quok', '\u0001rac', '\u0001rack', w, 'rack']);
  });

  it('pages the same when a merge falls between two pages', async () => {
    const { tenant, adminUserId } = await makeTenant(t);
    const admin = actorOf(tenant, adminUserId);
    const w = word();
    await index(tenant, Array.from({ length: 9 }, (_, i): Doc => ({ type: i % 2 ? 'ticket' : 'asset', title: i % 3 ? `${w} ${i}` : `Row ${i}`, subtitle: `${w} sub` })));
    const whole = await all(admin, { query: w, limit: 4 });
    const first = await service.search(admin, { query: w, limit: 4 });
    await mergePendingPostings(t.database.db);
    const ids = first.results.map((r) => r.id);
    let cursor = first.nextCursor;
    while (cursor) {
      const page = await service.search(admin, { query: w, limit: 4, cursor });
      ids.push(...page.results.map((r) => r.id));
      cursor = page.nextCursor;
    }
    expect(ids).toEqual(whole.ids);
    expect(ids).toHaveLength(9);
  });
});
