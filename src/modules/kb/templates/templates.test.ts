import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/harness.ts';
import { makeTenant, makeUser, type Api } from '../../../../test/factories.ts';
import { anonymous, eventsOf, expectError, makeClient, randomId } from '../../../../test/client-factories.ts';
import { BUILTIN_KB_TEMPLATES } from '../../../platform/db/builtin-kb-templates.ts';
import { newId } from '../../../platform/ids.ts';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => t.close());

const BASE = '/api/v1/kb-articles/templates';

interface TemplateJson {
  template_id: string;
  name: string;
  description: string | null;
  article_type: string;
  content: string;
  is_builtin: boolean;
}

async function makeTemplate(api: Api, body: Record<string, unknown> = {}): Promise<TemplateJson> {
  const res = await api.post(BASE, { name: `Template ${randomId().slice(0, 8)}`, description: 'Mine', article_type: 'how_to', ...body });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data as TemplateJson;
}

async function list(api: Api, query = ''): Promise<TemplateJson[]> {
  const res = await api.get(`${BASE}${query}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data as TemplateJson[];
}

describe('knowledge-base templates', () => {
  it('every new tenant has the built-ins, one per article type, with Markdown skeletons', async () => {
    const { admin } = await makeTenant(t);
    const builtins = await list(admin, '?is_builtin=true');
    expect(builtins.map((x) => [x.name, x.article_type, x.is_builtin])).toEqual([
      ['FAQ', 'faq', true],
      ['How-to', 'how_to', true],
      ['Reference', 'reference', true],
      ['Troubleshooting', 'troubleshooting', true],
    ]);
    const troubleshooting = builtins.find((x) => x.article_type === 'troubleshooting')!;
    for (const heading of ['## Problem', '## Cause', '## Resolution', '## Prevention']) expect(troubleshooting.content).toContain(heading);
    expect(builtins.map((x) => x.content)).toEqual(builtins.map((x) => BUILTIN_KB_TEMPLATES.find((b) => b.name === x.name)!.content));
    expect(BUILTIN_KB_TEMPLATES.map((b) => b.article_type).sort()).toEqual(['faq', 'how_to', 'reference', 'troubleshooting']);
  });

  it('creates, reads, updates and deletes its own; built-ins can be edited but not deleted (422); emits through the outbox', async () => {
    const { tenant, admin } = await makeTenant(t);
    const res = await admin.post(BASE, { name: ' Onboarding checklist ', description: 'New starters', article_type: 'how_to', content: '## Steps\n\n1. ' });
    expect(res.statusCode, res.body).toBe(201);
    const tpl = res.json().data as TemplateJson;
    expect(res.headers.location).toBe(`${BASE}/${tpl.template_id}`);
    expect(res.headers.etag).toBeTruthy();
    expect(tpl).toMatchObject({ name: 'Onboarding checklist', description: 'New starters', article_type: 'how_to', content: '## Steps\n\n1. ', is_builtin: false });
    const bare = await makeTemplate(admin, { name: 'Bare', description: null, article_type: 'faq' });
    expect(bare).toMatchObject({ content: '', description: null });

    const got = await admin.get(`${BASE}/${tpl.template_id}`);
    expect(got.statusCode).toBe(200);
    expect(got.json().data).toEqual(tpl);
    const updated = await admin.put(`${BASE}/${tpl.template_id}`, { article_type: 'reference', content: '# New', description: '' });
    expect(updated.statusCode, updated.body).toBe(200);
    expect(updated.json().data).toMatchObject({ name: 'Onboarding checklist', article_type: 'reference', content: '# New', description: null });
    expectError(await admin.put(`${BASE}/${tpl.template_id}`, { name: 'Stale' }, { 'if-match': got.headers.etag as string }), 412, 'PRECONDITION_FAILED');
    expect((await admin.delete(`${BASE}/${tpl.template_id}`, { 'if-match': updated.headers.etag as string })).statusCode).toBe(204);
    expectError(await admin.get(`${BASE}/${tpl.template_id}`), 404, 'NOT_FOUND');
    expect((await eventsOf(t, tenant, tpl.template_id)).map((e) => [e.event_type, e.aggregate_type, e.payload.template_id, e.payload.changed_fields ?? null])).toEqual([
      ['kb_template.created', 'kb_template', tpl.template_id, null],
      ['kb_template.updated', 'kb_template', tpl.template_id, ['article_type', 'content', 'description']],
      ['kb_template.deleted', 'kb_template', tpl.template_id, null],
    ]);

    const faq = (await list(admin, '?is_builtin=true&article_type=faq'))[0]!;
    const edited = await admin.put(`${BASE}/${faq.template_id}`, { name: 'Questions', content: '## Q\n\nA' });
    expect(edited.statusCode, edited.body).toBe(200);
    expect(edited.json().data).toMatchObject({ name: 'Questions', content: '## Q\n\nA', is_builtin: true });
    const refused = await admin.delete(`${BASE}/${faq.template_id}`);
    expectError(refused, 422, 'UNPROCESSABLE');
    expect(refused.json().error.message).toContain('Built-in');
    expect((await admin.get(`${BASE}/${faq.template_id}`)).statusCode).toBe(200);
  });

  it('deleting a template leaves the articles made from it, without the link', async () => {
    const { tenant, admin } = await makeTenant(t);
    const tpl = await makeTemplate(admin, { name: 'Used' });
    const article = newId();
    const { db } = t.database;
    await db
      .insertInto('kb_articles')
      .values({ tenant, article_id: article, title: 'From a template', slug: `from-${article}`, article_type: 'how_to', audience: 'internal', category_id: null, template_id: tpl.template_id, content: 'Kept' })
      .execute();
    expect((await admin.delete(`${BASE}/${tpl.template_id}`)).statusCode).toBe(204);
    const row = await db.selectFrom('kb_articles').select(['template_id', 'content']).where('tenant', '=', tenant).where('article_id', '=', article).executeTakeFirstOrThrow();
    expect(row).toEqual({ template_id: null, content: 'Kept' });
    const deleted = (await eventsOf(t, tenant, tpl.template_id)).at(-1)!;
    expect(deleted).toMatchObject({ event_type: 'kb_template.deleted', payload: { template_id: tpl.template_id, detached_article_count: 1 } });
  });

  it('names are unique per tenant regardless of case (409), built-ins included; other tenants may reuse them', async () => {
    const { admin } = await makeTenant(t);
    const mine = await makeTemplate(admin, { name: 'Runbook' });
    expectError(await admin.post(BASE, { name: 'RUNBOOK', description: null, article_type: 'reference' }), 409, 'CONFLICT');
    expectError(await admin.post(BASE, { name: 'faq', description: null, article_type: 'faq' }), 409, 'CONFLICT');
    expectError(await admin.put(`${BASE}/${mine.template_id}`, { name: 'how-TO' }), 409, 'CONFLICT');
    expect((await admin.put(`${BASE}/${mine.template_id}`, { name: 'runbook' })).json().data.name).toBe('runbook');
    const other = await makeTenant(t);
    await makeTemplate(other.admin, { name: 'Runbook' });
  });

  it('lists by name; filters by article type, built-in and search; sorts; paginates', async () => {
    const { admin } = await makeTenant(t);
    await makeTemplate(admin, { name: 'zeta guide', article_type: 'how_to' });
    await makeTemplate(admin, { name: 'Alpha answers', article_type: 'faq' });
    const all = await list(admin);
    expect(all.map((x) => x.name)).toEqual(['Alpha answers', 'FAQ', 'How-to', 'Reference', 'Troubleshooting', 'zeta guide']);
    expect((await list(admin, '?order=desc&limit=2')).map((x) => x.name)).toEqual(['zeta guide', 'Troubleshooting']);
    expect((await list(admin, '?article_type=faq')).map((x) => x.name)).toEqual(['Alpha answers', 'FAQ']);
    expect((await list(admin, '?is_builtin=false')).map((x) => x.name)).toEqual(['Alpha answers', 'zeta guide']);
    expect((await list(admin, '?search=GUIDE')).map((x) => x.name)).toEqual(['zeta guide']);
    expect((await list(admin, '?search=_')).map((x) => x.name)).toEqual([]);
    expect((await list(admin, '?sort=created_at&order=desc&is_builtin=false')).map((x) => x.name)).toEqual(['Alpha answers', 'zeta guide']);
    const page = await admin.get(`${BASE}?limit=4&page=2&sort=updated_at`);
    expect(page.json().pagination).toMatchObject({ page: 2, limit: 4, total: 6, totalPages: 2, hasNext: false, hasPrev: true });
  });

  it('bad input is a 400 naming the field, never a 500', async () => {
    const { admin } = await makeTenant(t);
    const tpl = await makeTemplate(admin);
    const base = { name: 'T', description: 'd', article_type: 'faq' };
    for (const [body, field] of [
      [{ description: 'd', article_type: 'faq' }, 'name'],
      [{ name: 'T', description: 'd' }, 'article_type'],
      [{ ...base, name: '  ' }, 'body.name'],
      [{ ...base, name: 'n'.repeat(256) }, 'name'],
      [{ ...base, article_type: 'guide' }, 'article_type'],
      [{ ...base, description: 'd'.repeat(2001) }, 'description'],
      [{ ...base, content: 'c'.repeat(200_001) }, 'content'],
      [{ ...base, content: 5 }, 'content'],
      [{ ...base, is_builtin: true }, 'is_builtin'],
    ] as const) {
      const res = await admin.post(BASE, body);
      expectError(res, 400, 'VALIDATION_ERROR');
      expect(res.json().error.message).toContain(field);
    }
    expect((await admin.post(BASE, { ...base, name: 'Long', content: 'c'.repeat(200_000) })).statusCode).toBe(201);
    for (const [body, field] of [
      [{ article_type: 'nope' }, 'article_type'],
      [{ is_builtin: false }, 'is_builtin'],
      [{ name: '' }, 'name'],
      [{ content: null }, 'content'],
    ] as const) {
      const res = await admin.put(`${BASE}/${tpl.template_id}`, body);
      expectError(res, 400, 'VALIDATION_ERROR');
      expect(res.json().error.message).toContain(field);
    }
    expectError(await admin.put(`${BASE}/${tpl.template_id}`, {}), 400, 'VALIDATION_ERROR');
    for (const [query, field] of [['?article_type=blog', 'article_type'], ['?is_builtin=maybe', 'is_builtin'], ['?sort=article_type', 'sort'], ['?other=1', 'other']] as const) {
      const res = await admin.get(`${BASE}${query}`);
      expectError(res, 400, 'VALIDATION_ERROR');
      expect(res.json().error.message).toContain(field);
    }
    for (const res of [await admin.get(`${BASE}/nope`), await admin.put(`${BASE}/1`, { name: 'X' }), await admin.delete(`${BASE}/x-y`)]) {
      expectError(res, 400, 'VALIDATION_ERROR');
      expect(res.json().error.message).toContain('templateId');
    }
  });

  it('401 without a key; authors only (kb:create to read); technicians cannot delete; portal users get 403; 404 unknown and foreign ids', async () => {
    const { tenant, admin } = await makeTenant(t);
    const tpl = await makeTemplate(admin, { name: 'Private' });
    expectError(await anonymous(t).get(BASE), 401, 'UNAUTHORIZED');
    expectError(await anonymous(t).post(BASE, { name: 'X', description: null, article_type: 'faq' }), 401, 'UNAUTHORIZED');
    expectError(await anonymous(t).delete(`${BASE}/${tpl.template_id}`), 401, 'UNAUTHORIZED');

    const tech = await makeUser(t, tenant, { role: 'Technician' });
    expect((await tech.api.get(BASE)).statusCode).toBe(200);
    const byTech = await makeTemplate(tech.api, { name: 'By tech' });
    expect((await tech.api.put(`${BASE}/${byTech.template_id}`, { content: 'x' })).statusCode).toBe(200);
    expectError(await tech.api.delete(`${BASE}/${byTech.template_id}`), 403, 'FORBIDDEN');

    const viewer = await makeUser(t, tenant, { role: 'Viewer' });
    expectError(await viewer.api.get(BASE), 403, 'FORBIDDEN');

    const client = await makeClient(admin);
    const portal = await makeUser(t, tenant, { role: 'Client User', userType: 'client', clientId: client.client_id });
    expectError(await portal.api.get(BASE), 403, 'FORBIDDEN');
    expectError(await portal.api.get(`${BASE}/${tpl.template_id}`), 403, 'FORBIDDEN');
    expectError(await portal.api.post(BASE, { name: 'Portal', description: null, article_type: 'faq' }), 403, 'FORBIDDEN');
    expectError(await portal.api.put(`${BASE}/${tpl.template_id}`, { name: 'Portal' }), 403, 'FORBIDDEN');
    expectError(await portal.api.delete(`${BASE}/${tpl.template_id}`), 403, 'FORBIDDEN');

    const unknown = randomId();
    expectError(await admin.get(`${BASE}/${unknown}`), 404, 'NOT_FOUND');
    expectError(await admin.put(`${BASE}/${unknown}`, { name: 'X' }), 404, 'NOT_FOUND');
    expectError(await admin.delete(`${BASE}/${unknown}`), 404, 'NOT_FOUND');
    const other = await makeTenant(t);
    expectError(await other.admin.get(`${BASE}/${tpl.template_id}`), 404, 'NOT_FOUND');
    expectError(await other.admin.put(`${BASE}/${tpl.template_id}`, { name: 'Stolen' }), 404, 'NOT_FOUND');
    expectError(await other.admin.delete(`${BASE}/${tpl.template_id}`), 404, 'NOT_FOUND');
    expect((await other.admin.get(`${BASE}?is_builtin=false`)).json().pagination.total).toBe(0);
  });
});
