import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, engine, type TestApp } from '../../../../test/harness.ts';
import { makeTenant, makeUser } from '../../../../test/factories.ts';
import { anonymous, expectError, expectStatus, randomId } from '../../../../test/client-factories.ts';
import { makeProjectTree, makeTask } from '../../../../test/project-factories.ts';
import { normalizeEmoji } from './comments.service.ts';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => { await t.close(); });

describe('emoji validation', () => {
  it('accepts one emoji grapheme or a :short_code:, nothing else', () => {
    for (const ok of ['👍', '👍🏽', '🇩🇪', '1️⃣', '❤️', '👨‍👩‍👧', ':thumbsup:', ':+1:']) expect(normalizeEmoji(ok)).toBe(ok);
    for (const bad of ['a', '👍👍', ':Thumbs Up:', '::', 'hello', '<b>', ':x', '1']) expect(() => normalizeEmoji(bad), bad).toThrow();
  });
});

describe(`task comments and reactions (${engine})`, () => {
  it('comments as the key\'s user; lists oldest first; the author edits and deletes', async () => {
    const { admin, adminUserId } = await makeTenant(t);
    const { task } = await makeProjectTree(admin);
    const base = `/api/v1/projects/tasks/${task.task_id}/comments`;
    const res = await admin.post(base, { comment_text: ' First ' });
    expectStatus(res, 201);
    const first = res.json().data;
    expect(first).toMatchObject({ task_id: task.task_id, comment_text: 'First', author_user_id: adminUserId, author_name: 'Admin', reactions: [] });
    expect(res.headers.location).toBe(`${base}/${first.comment_id}`);
    await admin.post(base, { comment_text: 'Second' });
    const list = (await admin.get(base)).json();
    expect(list.data.map((c: { comment_text: string }) => c.comment_text)).toEqual(['First', 'Second']);
    expect(list.pagination.total).toBe(2);
    const etag = res.headers.etag as string;
    const edited = await admin.put(`${base}/${first.comment_id}`, { comment_text: 'First (edited)' }, { 'if-match': etag });
    expectStatus(edited, 200);
    expect(edited.json().data.comment_text).toBe('First (edited)');
    expectError(await admin.put(`${base}/${first.comment_id}`, { comment_text: 'x' }, { 'if-match': etag }), 412, 'PRECONDITION_FAILED');
    expect((await admin.delete(`${base}/${first.comment_id}`)).statusCode).toBe(204);
    expect((await admin.get(base)).json().data.map((c: { comment_text: string }) => c.comment_text)).toEqual(['Second']);
  });

  it('only the author edits or deletes (403 for others, admins included)', async () => {
    const { admin, tenant } = await makeTenant(t);
    const { task } = await makeProjectTree(admin);
    const tech = (await makeUser(t, tenant, { role: 'Technician' })).api;
    const base = `/api/v1/projects/tasks/${task.task_id}/comments`;
    const mine = (await tech.post(base, { comment_text: 'tech says' })).json().data;
    expectError(await admin.put(`${base}/${mine.comment_id}`, { comment_text: 'rewritten' }), 403, 'FORBIDDEN');
    expectError(await admin.delete(`${base}/${mine.comment_id}`), 403, 'FORBIDDEN');
    expect((await admin.get(base)).json().data[0].comment_text).toBe('tech says');
    expectStatus(await tech.put(`${base}/${mine.comment_id}`, { comment_text: 'tech edits' }), 200);
  });

  it('reactions toggle per user and summarise per emoji', async () => {
    const { admin, adminUserId, tenant } = await makeTenant(t);
    const { task } = await makeProjectTree(admin);
    const other = await makeUser(t, tenant, { role: 'Technician' });
    const base = `/api/v1/projects/tasks/${task.task_id}/comments`;
    const c = (await admin.post(base, { comment_text: 'ship it' })).json().data;
    const react = `${base}/${c.comment_id}/reactions`;
    const r1 = await admin.post(react, { emoji: '👍' });
    expectStatus(r1, 200);
    expect(r1.json().data).toEqual([{ emoji: '👍', count: 1, user_ids: [adminUserId], reacted_by_me: true }]);
    const r2 = await other.api.post(react, { emoji: '👍' });
    expect(r2.json().data).toEqual([{ emoji: '👍', count: 2, user_ids: [adminUserId, other.userId], reacted_by_me: true }]);
    await other.api.post(react, { emoji: ':tada:' });
    const r3 = await admin.post(react, { emoji: '👍' });
    expect(r3.json().data).toEqual([
      { emoji: '👍', count: 1, user_ids: [other.userId], reacted_by_me: false },
      { emoji: ':tada:', count: 1, user_ids: [other.userId], reacted_by_me: false },
    ]);
    const listed = (await admin.get(base)).json().data[0];
    expect(listed.reactions).toEqual(r3.json().data);
    for (const body of [{}, { emoji: 'hello' }, { emoji: '👍👍' }, { emoji: 'x'.repeat(33) }, { emoji: '👍', extra: 1 }]) expectError(await admin.post(react, body), 400, 'VALIDATION_ERROR');
  });

  it('400, 401, 403, 404', async () => {
    const { admin, tenant } = await makeTenant(t);
    const { project, phase, task } = await makeProjectTree(admin);
    const otherTask = await makeTask(admin, project.project_id, phase.phase_id);
    const base = `/api/v1/projects/tasks/${task.task_id}/comments`;
    const c = (await admin.post(base, { comment_text: 'kept' })).json().data;
    const one = `${base}/${c.comment_id}`;
    for (const body of [{}, { comment_text: '  ' }, { comment_text: 'x'.repeat(10_001) }, { comment_text: 'x', is_internal: true }]) expectError(await admin.post(base, body), 400, 'VALIDATION_ERROR');
    expectError(await admin.put(one, {}), 400, 'VALIDATION_ERROR');
    const anon = anonymous(t);
    for (const res of [await anon.get(base), await anon.post(base, { comment_text: 'x' }), await anon.put(one, { comment_text: 'x' }), await anon.delete(one), await anon.post(`${one}/reactions`, { emoji: '👍' })]) {
      expect(res.statusCode).toBe(401);
    }
    const viewer = (await makeUser(t, tenant, { role: 'Viewer' })).api;
    expectStatus(await viewer.get(base), 200);
    expectError(await viewer.post(base, { comment_text: 'x' }), 403, 'FORBIDDEN');
    expectError(await viewer.post(`${one}/reactions`, { emoji: '👍' }), 403, 'FORBIDDEN');
    expectError(await viewer.put(one, { comment_text: 'x' }), 403, 'FORBIDDEN');
    expectError(await viewer.delete(one), 403, 'FORBIDDEN');
    expectError(await admin.get(`/api/v1/projects/tasks/${randomId()}/comments`), 404, 'NOT_FOUND');
    expectError(await admin.post(`/api/v1/projects/tasks/${randomId()}/comments`, { comment_text: 'x' }), 404, 'NOT_FOUND');
    expectError(await admin.put(`${base}/${randomId()}`, { comment_text: 'x' }), 404, 'NOT_FOUND');
    expectError(await admin.post(`${base}/${randomId()}/reactions`, { emoji: '👍' }), 404, 'NOT_FOUND');
    expectError(await admin.delete(`/api/v1/projects/tasks/${otherTask.task_id}/comments/${c.comment_id}`), 404, 'NOT_FOUND');
    const b = await makeTenant(t);
    for (const res of [await b.admin.get(base), await b.admin.post(base, { comment_text: 'x' }), await b.admin.put(one, { comment_text: 'x' }), await b.admin.delete(one), await b.admin.post(`${one}/reactions`, { emoji: '👍' })]) {
      expectError(res, 404, 'NOT_FOUND');
    }
    expect((await admin.get(base)).json().data.map((x: { comment_text: string; reactions: unknown[] }) => [x.comment_text, x.reactions])).toEqual([['kept', []]]);
  });
});
