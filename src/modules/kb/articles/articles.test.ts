import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/harness.ts';
import { makeTenant, makeUser, type Api } from '../../../../test/factories.ts';
import { anonymous, eventsOf, expectError, makeClient, randomId } from '../../../../test/client-factories.ts';
import { makeTicket } from '../../../../test/ticket-factories.ts';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => t.close());

interface ArticleJson { article_id: string; slug: string; status: string; revision: number }

async function article(api: Api, body: Record<string, unknown> = {}, content?: string): Promise<ArticleJson> {
  const res = await api.post('/api/v1/kb-articles', { title: 'Reset a password', ...body });
  expect(res.statusCode, res.body).toBe(201);
  const a = res.json().data as ArticleJson;
  if (content !== undefined) expect((await api.put(`/api/v1/kb-articles/${a.article_id}/content`, { content })).statusCode).toBe(200);
  return a;
}

async function published(api: Api, body: Record<string, unknown>, content = 'Body'): Promise<ArticleJson> {
  const a = await article(api, body, content);
  const res = await api.post(`/api/v1/kb-articles/${a.article_id}/publish`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data;
}

const searchIds = async (api: Api, query: string): Promise<string[]> =>
  (await api.get(`/api/v1/search?query=${encodeURIComponent(query)}&types=kb_article`)).json().data.results.map((r: { id: string }) => r.id);

describe('knowledge-base articles', () => {
  it('lives through draft → published → archived → published exactly as the States table says, keeping every revision', async () => {
    const { tenant, admin } = await makeTenant(t);
    const created = await admin.post('/api/v1/kb-articles', { title: 'Reset a VPN token', tags: ['VPN', 'vpn', 'Security'], review_cycle_days: 90 });
    expect(created.statusCode, created.body).toBe(201);
    const a = created.json().data;
    expect(created.headers.location).toBe(`/api/v1/kb-articles/${a.article_id}`);
    expect(a).toMatchObject({ slug: 'reset-a-vpn-token', status: 'draft', article_type: 'how_to', audience: 'internal', tags: ['vpn', 'security'], revision: 0, view_count: 0, published_at: null });
    const path = `/api/v1/kb-articles/${a.article_id}`;

    const empty = await admin.post(`${path}/publish`);
    expectError(empty, 422, 'UNPROCESSABLE');
    expectError(await admin.post(`${path}/archive`), 409, 'CONFLICT');
    expect((await admin.put(`${path}/content`, { content: '# Steps\n\n1. Open the portal' })).json().data).toEqual({ content: '# Steps\n\n1. Open the portal', format: 'markdown', revision: 1 });
    expect((await admin.put(`${path}/content`, { content: '# Steps\n\n1. Open the VPN portal' })).json().data.revision).toBe(2);
    expect((await admin.put(`${path}/content`, { content: '# Steps\n\n1. Open the VPN portal' })).json().data.revision).toBe(2);
    const revisions = await admin.get(`${path}/revisions`);
    expect(revisions.json().data.map((r: { revision: number; length: number }) => [r.revision, r.length])).toEqual([[2, 31], [1, 27]]);
    expect((await admin.get(`${path}/revisions/1`)).json().data.content).toBe('# Steps\n\n1. Open the portal');
    expectError(await admin.get(`${path}/revisions/3`), 404, 'NOT_FOUND');
    expectError(await admin.get(`${path}/revisions/zero`), 400, 'VALIDATION_ERROR');

    const pub = await admin.post(`${path}/publish`);
    expect(pub.statusCode, pub.body).toBe(200);
    const p = pub.json().data;
    expect(p.status).toBe('published');
    expect(p.next_review_due).toBe(new Date(Date.parse(p.published_at) + 90 * 86_400_000).toISOString().slice(0, 10));
    const again = await admin.post(`${path}/publish`);
    expectError(again, 409, 'CONFLICT');
    expect(again.json().error.message).toContain('published');
    expect((await admin.post(`${path}/archive`)).json().data).toMatchObject({ status: 'archived' });
    expect((await admin.post(`${path}/archive`)).json().error.message).toContain('archived');
    expect((await admin.post(`${path}/publish`)).json().data).toMatchObject({ status: 'published', archived_at: null });
    expect((await admin.get(`${path}/content`)).json().data.revision).toBe(2);
    expect((await admin.get(path)).json().data.view_count).toBe(1);
    expect(await searchIds(admin, 'vpn portal')).toEqual([a.article_id]);

    expect((await admin.delete(path)).statusCode).toBe(204);
    expectError(await admin.get(path), 404, 'NOT_FOUND');
    expectError(await admin.get(`${path}/revisions/1`), 404, 'NOT_FOUND');
    const left = await t.database.db.selectFrom('kb_article_revisions').select('revision').where('tenant', '=', tenant).where('article_id', '=', a.article_id).execute();
    expect(left).toEqual([]);
    expect(await searchIds(admin, 'vpn portal')).toEqual([]);
    expect((await eventsOf(t, tenant, a.article_id)).map((e) => e.event_type)).toEqual([
      'kb_article.created', 'kb_article.updated', 'kb_article.updated', 'kb_article.published', 'kb_article.archived', 'kb_article.published', 'kb_article.deleted',
    ]);
  });

  it('slugs come from the title and stay unique, also under concurrent creates; an explicit duplicate is a 409', async () => {
    const { admin } = await makeTenant(t);
    expect((await article(admin, { title: 'Printer jams!' })).slug).toBe('printer-jams');
    expect((await article(admin, { title: 'Printer  Jams' })).slug).toBe('printer-jams-2');
    const burst = await Promise.all(Array.from({ length: 5 }, () => admin.post('/api/v1/kb-articles', { title: 'Printer jams' })));
    expect(burst.map((r) => r.statusCode)).toEqual([201, 201, 201, 201, 201]);
    expect(burst.map((r) => r.json().data.slug).sort()).toEqual(['printer-jams-3', 'printer-jams-4', 'printer-jams-5', 'printer-jams-6', 'printer-jams-7']);
    expectError(await admin.post('/api/v1/kb-articles', { title: 'Other', slug: 'printer-jams' }), 409, 'CONFLICT');
    const other = await article(admin, { title: 'Other', slug: 'other-one' });
    expectError(await admin.put(`/api/v1/kb-articles/${other.article_id}`, { slug: 'printer-jams-2' }), 409, 'CONFLICT');
    expectError(await admin.post('/api/v1/kb-articles', { title: 'X', slug: 'Not A Slug' }), 400, 'VALIDATION_ERROR');
    expect((await admin.put(`/api/v1/kb-articles/${other.article_id}`, { slug: 'other-two', title: 'Other two' })).json().data).toMatchObject({ slug: 'other-two', title: 'Other two' });
  });

  it("starts from a template (its content is revision 1, its type the default) and files under the knowledge base's own categories", async () => {
    const { admin } = await makeTenant(t);
    const templates = (await admin.get('/api/v1/kb-articles/templates')).json().data as { template_id: string; name: string; content: string }[];
    const troubleshooting = templates.find((x) => x.name === 'Troubleshooting')!;
    const category = await admin.post('/api/v1/kb-articles/categories', { name: 'Email' });
    expect(category.statusCode, category.body).toBe(201);
    const categoryId = category.json().data.category_id;
    const res = await admin.post('/api/v1/kb-articles', { title: 'Mailbox full', template_id: troubleshooting.template_id, category_id: categoryId });
    expect(res.statusCode, res.body).toBe(201);
    const a = res.json().data;
    expect(a).toMatchObject({ article_type: 'troubleshooting', template_id: troubleshooting.template_id, category_id: categoryId, revision: 1 });
    expect((await admin.get(`/api/v1/kb-articles/${a.article_id}/content`)).json().data.content).toBe(troubleshooting.content);
    expect((await admin.get(`/api/v1/kb-articles?category_id=${categoryId}`)).json().data.map((x: { article_id: string }) => x.article_id)).toEqual([a.article_id]);
    expectError(await admin.delete(`/api/v1/kb-articles/categories/${categoryId}`), 409, 'CONFLICT');
    expect((await admin.put(`/api/v1/kb-articles/${a.article_id}`, { category_id: null })).json().data.category_id).toBeNull();
    expect((await admin.delete(`/api/v1/kb-articles/categories/${categoryId}`)).statusCode).toBe(204);
    const other = await makeTenant(t);
    const foreign = (await other.admin.post('/api/v1/kb-articles/categories', { name: 'Foreign' })).json().data.category_id;
    expectError(await admin.put(`/api/v1/kb-articles/${a.article_id}`, { category_id: foreign }), 400, 'VALIDATION_ERROR');
  });

  it('renders Markdown as sanitised HTML: scripts, raw HTML and javascript: links never come through', async () => {
    const { admin } = await makeTenant(t);
    const a = await article(admin, {}, '# Fix\n\n<script>alert(1)</script>\n\n<img src=x onerror=alert(2)>\n\n[click](javascript:alert(3)) and [docs](https://example.com)\n\n**bold**');
    const res = await admin.get(`/api/v1/kb-articles/${a.article_id}/content?format=html`);
    expect(res.statusCode, res.body).toBe(200);
    const html: string = res.json().data.content;
    expect(res.json().data.format).toBe('html');
    expect(html).toContain('<h1>Fix</h1>');
    expect(html).toContain('<strong>bold</strong>');
    expect(html).toContain('<a href="https://example.com">docs</a>');
    // Raw HTML arrives as text (escaped), and the javascript: link is not made a link.
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).not.toMatch(/<script|<img|href="javascript/i);
    expectError(await admin.get(`/api/v1/kb-articles/${a.article_id}/content?format=pdf`), 400, 'VALIDATION_ERROR');
  });

  it("drafts a troubleshooting article from a ticket's description and closing comment; needs ticket:read too", async () => {
    const { tenant, admin } = await makeTenant(t);
    const client = await makeClient(admin);
    const ticket = await makeTicket(admin, client.client_id, { title: 'Outlook keeps asking for a password', description: 'Since the update, Outlook prompts every hour.' });
    await admin.post(`/api/v1/tickets/${ticket.ticket_id}/comments`, { comment_text: 'Asked the user for a screenshot.' });
    await admin.post(`/api/v1/tickets/${ticket.ticket_id}/comments`, { comment_text: 'Cleared the cached credentials in Credential Manager.', is_internal: true });
    const res = await admin.post(`/api/v1/kb-articles/from-ticket/${ticket.ticket_id}`, {});
    expect(res.statusCode, res.body).toBe(201);
    const a = res.json().data;
    expect(a).toMatchObject({ title: 'Outlook keeps asking for a password', article_type: 'troubleshooting', status: 'draft', source_ticket_id: ticket.ticket_id, revision: 1 });
    const content: string = (await admin.get(`/api/v1/kb-articles/${a.article_id}/content`)).json().data.content;
    expect(content).toContain('## Problem\n\nSince the update, Outlook prompts every hour.');
    expect(content).toContain('## Resolution\n\nCleared the cached credentials in Credential Manager.');
    expect(content).toContain(ticket.ticket_number);
    expect((await admin.post(`/api/v1/kb-articles/${a.article_id}/publish`)).statusCode).toBe(200);

    expectError(await admin.post(`/api/v1/kb-articles/from-ticket/${randomId()}`, {}), 404, 'NOT_FOUND');
    expectError(await admin.post('/api/v1/kb-articles/from-ticket/nope', {}), 400, 'VALIDATION_ERROR');
    const role = await admin.post('/api/v1/roles', { role_name: 'Writer', permissions: ['kb:read', 'kb:create'] });
    expect(role.statusCode, role.body).toBe(201);
    const writer = await makeUser(t, tenant);
    expect((await admin.post(`/api/v1/users/${writer.userId}/roles`, { role_ids: [role.json().data.role_id] })).statusCode).toBe(200);
    expect((await writer.api.post('/api/v1/kb-articles', { title: 'Mine' })).statusCode).toBe(201);
    expectError(await writer.api.post(`/api/v1/kb-articles/from-ticket/${ticket.ticket_id}`, {}), 403, 'FORBIDDEN');
  });

  it('client-portal keys see published client and public articles only: in lists, by id and never in search', async () => {
    const { tenant, admin } = await makeTenant(t);
    const forClients = await published(admin, { title: 'Connect to Wi-Fi', audience: 'client' });
    const forAll = await published(admin, { title: 'Office hours', audience: 'public' });
    const internal = await published(admin, { title: 'Firewall admin password rotation', audience: 'internal' });
    const draft = await article(admin, { title: 'Draft for clients', audience: 'client' }, 'Draft body');
    const archived = await published(admin, { title: 'Old VPN client', audience: 'client' });
    await admin.post(`/api/v1/kb-articles/${archived.article_id}/archive`);
    const client = await makeClient(admin);
    const portal = (await makeUser(t, tenant, { role: 'Client User', userType: 'client', clientId: client.client_id })).api;

    expect((await portal.get('/api/v1/kb-articles')).json().data.map((a: { title: string }) => a.title)).toEqual(['Connect to Wi-Fi', 'Office hours']);
    expect((await portal.get('/api/v1/kb-articles?status=draft')).json().data).toEqual([]);
    expect((await portal.get(`/api/v1/kb-articles/${forClients.article_id}`)).statusCode).toBe(200);
    expect((await portal.get(`/api/v1/kb-articles/${forAll.article_id}/content?format=html`)).statusCode).toBe(200);
    for (const hidden of [internal, draft, archived]) {
      expectError(await portal.get(`/api/v1/kb-articles/${hidden.article_id}`), 404, 'NOT_FOUND');
      expectError(await portal.get(`/api/v1/kb-articles/${hidden.article_id}/content`), 404, 'NOT_FOUND');
      expectError(await portal.get(`/api/v1/kb-articles/${hidden.article_id}/revisions`), 404, 'NOT_FOUND');
    }
    expect(await searchIds(portal, 'firewall')).toEqual([]);
    expect(await searchIds(admin, 'firewall')).toEqual([internal.article_id]);
    expectError(await portal.post('/api/v1/kb-articles', { title: 'x' }), 403, 'FORBIDDEN');
    expectError(await portal.put(`/api/v1/kb-articles/${forClients.article_id}/content`, { content: 'x' }), 403, 'FORBIDDEN');
  });

  it('filters and sorts lists; 400 for bad input naming the field, 401, 403 by role, 404 across tenants', async () => {
    const { tenant, admin } = await makeTenant(t);
    await article(admin, { title: 'Alpha faq', article_type: 'faq', audience: 'client', tags: ['email'] });
    const beta = await article(admin, { title: 'Beta guide', tags: ['printing'], review_cycle_days: 1 });
    await t.database.db.updateTable('kb_articles').set({ next_review_due: '2020-01-01' }).where('tenant', '=', tenant).where('article_id', '=', beta.article_id).execute();
    const titles = async (q: string) => (await admin.get(`/api/v1/kb-articles${q}`)).json().data.map((a: { title: string }) => a.title);
    expect(await titles('')).toEqual(['Alpha faq', 'Beta guide']);
    expect(await titles('?article_type=faq')).toEqual(['Alpha faq']);
    expect(await titles('?audience=internal')).toEqual(['Beta guide']);
    expect(await titles('?tag=EMAIL')).toEqual(['Alpha faq']);
    expect(await titles('?search=print')).toEqual(['Beta guide']);
    expect(await titles('?review_due=true')).toEqual(['Beta guide']);
    expect(await titles('?review_due=false')).toEqual(['Alpha faq']);
    expect(await titles('?status=draft&sort=title&order=desc')).toEqual(['Beta guide', 'Alpha faq']);
    expect(await titles(`?category_id=${randomId()}`)).toEqual([]);

    for (const [body, field] of [
      [{}, 'body.title'],
      [{ title: '   ' }, 'body.title'],
      [{ title: 'x', article_type: 'story' }, 'body.article_type'],
      [{ title: 'x', audience: 'everyone' }, 'body.audience'],
      [{ title: 'x', category_id: randomId() }, 'body.category_id'],
      [{ title: 'x', template_id: randomId() }, 'body.template_id'],
      [{ title: 'x', review_cycle_days: 0 }, 'body.review_cycle_days'],
      [{ title: 'x', status: 'published' }, 'body.status'],
      [{ title: 'x', tags: ['a'.repeat(65)] }, 'body.tags.0'],
    ] as const) {
      const r = await admin.post('/api/v1/kb-articles', body);
      expectError(r, 400, 'VALIDATION_ERROR');
      expect(r.json().error.message, JSON.stringify(body)).toContain(field);
    }
    expectError(await admin.put(`/api/v1/kb-articles/${beta.article_id}`, {}), 400, 'VALIDATION_ERROR');
    expectError(await admin.put(`/api/v1/kb-articles/${beta.article_id}`, { status: 'published' }), 400, 'VALIDATION_ERROR');
    expectError(await admin.put(`/api/v1/kb-articles/${beta.article_id}/content`, { content: 'x'.repeat(200_001) }), 400, 'VALIDATION_ERROR');
    expectError(await admin.put(`/api/v1/kb-articles/${beta.article_id}/content`, {}), 400, 'VALIDATION_ERROR');
    expectError(await admin.get('/api/v1/kb-articles?status=live'), 400, 'VALIDATION_ERROR');
    expectError(await admin.get('/api/v1/kb-articles/not-a-uuid'), 400, 'VALIDATION_ERROR');
    expectError(await anonymous(t).get('/api/v1/kb-articles'), 401, 'UNAUTHORIZED');
    expectError(await anonymous(t).post(`/api/v1/kb-articles/${beta.article_id}/publish`), 401, 'UNAUTHORIZED');

    const tech = (await makeUser(t, tenant, { role: 'Technician' })).api;
    const own = await article(tech, { title: 'By a technician' }, 'Steps');
    expectError(await tech.post(`/api/v1/kb-articles/${own.article_id}/publish`), 403, 'FORBIDDEN');
    expectError(await tech.delete(`/api/v1/kb-articles/${own.article_id}`), 403, 'FORBIDDEN');
    const manager = (await makeUser(t, tenant, { role: 'Manager' })).api;
    expect((await manager.post(`/api/v1/kb-articles/${own.article_id}/publish`)).statusCode).toBe(200);

    const other = await makeTenant(t);
    for (const r of [
      await other.admin.get(`/api/v1/kb-articles/${beta.article_id}`),
      await other.admin.put(`/api/v1/kb-articles/${beta.article_id}`, { title: 'x' }),
      await other.admin.delete(`/api/v1/kb-articles/${beta.article_id}`),
      await other.admin.get(`/api/v1/kb-articles/${beta.article_id}/content`),
      await other.admin.put(`/api/v1/kb-articles/${beta.article_id}/content`, { content: 'x' }),
      await other.admin.get(`/api/v1/kb-articles/${beta.article_id}/revisions`),
      await other.admin.post(`/api/v1/kb-articles/${own.article_id}/archive`),
      await other.admin.post(`/api/v1/kb-articles/${beta.article_id}/publish`),
    ]) expectError(r, 404, 'NOT_FOUND');
    expect((await other.admin.get('/api/v1/kb-articles')).json().pagination.total).toBe(0);
  });
});
