import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, engine, type TestApp } from '../../../../test/harness.ts';
import { makeTenant, makeUser, type Api } from '../../../../test/factories.ts';
import { anonymous, expectError, expectStatus, randomId } from '../../../../test/client-factories.ts';
import { makeProjectTree, makeTask } from '../../../../test/project-factories.ts';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => { await t.close(); });

interface ItemJson { checklist_item_id: string; task_id: string; item_name: string; completed: boolean; position: number }

async function items(api: Api, taskId: string): Promise<[string, boolean][]> {
  const res = await api.get(`/api/v1/projects/tasks/${taskId}/checklist`);
  expectStatus(res, 200);
  const data = res.json().data as ItemJson[];
  expect(data.map((i) => i.position)).toEqual(data.map((_, i) => i + 1));
  return data.map((i) => [i.item_name, i.completed]);
}

const add = async (api: Api, taskId: string, body: Record<string, unknown>): Promise<ItemJson> => {
  const res = await api.post(`/api/v1/projects/tasks/${taskId}/checklist`, body);
  expectStatus(res, 201);
  return res.json().data as ItemJson;
};

describe(`task checklists (${engine})`, () => {
  it('adds items (item_name, completed) last or at a position, and the task counts them', async () => {
    const { admin } = await makeTenant(t);
    const { task } = await makeProjectTree(admin);
    const res = await admin.post(`/api/v1/projects/tasks/${task.task_id}/checklist`, { item_name: ' Draft ' });
    expectStatus(res, 201);
    const first = res.json().data as ItemJson;
    expect(first).toMatchObject({ task_id: task.task_id, item_name: 'Draft', completed: false, position: 1 });
    expect(res.headers.location).toBe(`/api/v1/projects/tasks/${task.task_id}/checklist/${first.checklist_item_id}`);
    await add(admin, task.task_id, { item_name: 'Review', completed: true });
    await add(admin, task.task_id, { item_name: 'Kickoff', position: 1 });
    expect(await items(admin, task.task_id)).toEqual([['Kickoff', false], ['Draft', false], ['Review', true]]);
    expect((await admin.get(`/api/v1/projects/tasks/${task.task_id}`)).json().data).toMatchObject({ checklist_total: 3, checklist_completed: 1 });
  });

  it('PUT ticks, renames and moves; DELETE closes the gap; If-Match honoured', async () => {
    const { admin } = await makeTenant(t);
    const { task } = await makeProjectTree(admin);
    const a = await add(admin, task.task_id, { item_name: 'A' });
    await add(admin, task.task_id, { item_name: 'B' });
    const c = await add(admin, task.task_id, { item_name: 'C' });
    const ticked = await admin.put(`/api/v1/projects/tasks/${task.task_id}/checklist/${a.checklist_item_id}`, { completed: true, item_name: 'A!' });
    expectStatus(ticked, 200);
    expect(ticked.json().data).toMatchObject({ item_name: 'A!', completed: true });
    expectStatus(await admin.put(`/api/v1/projects/tasks/${task.task_id}/checklist/${c.checklist_item_id}`, { position: 1 }), 200);
    expect(await items(admin, task.task_id)).toEqual([['C', false], ['A!', true], ['B', false]]);
    expectError(await admin.put(`/api/v1/projects/tasks/${task.task_id}/checklist/${a.checklist_item_id}`, { completed: false }, { 'if-match': '"stale"' }), 412, 'PRECONDITION_FAILED');
    expectError(await admin.delete(`/api/v1/projects/tasks/${task.task_id}/checklist/${a.checklist_item_id}`, { 'if-match': '"stale"' }), 412, 'PRECONDITION_FAILED');
    expect((await admin.delete(`/api/v1/projects/tasks/${task.task_id}/checklist/${c.checklist_item_id}`)).statusCode).toBe(204);
    expect(await items(admin, task.task_id)).toEqual([['A!', true], ['B', false]]);
  });

  it('400 for bad bodies (including Alga\'s item_text / is_completed names)', async () => {
    const { admin } = await makeTenant(t);
    const { task } = await makeProjectTree(admin);
    const item = await add(admin, task.task_id, { item_name: 'A' });
    for (const body of [{}, { item_name: ' ' }, { item_text: 'x' }, { item_name: 'x', is_completed: true }, { item_name: 'x'.repeat(501) }, { item_name: 'x', position: 0 }]) {
      expectError(await admin.post(`/api/v1/projects/tasks/${task.task_id}/checklist`, body), 400, 'VALIDATION_ERROR');
    }
    for (const body of [{}, { completed: 'yes' }, { item_name: '' }]) {
      expectError(await admin.put(`/api/v1/projects/tasks/${task.task_id}/checklist/${item.checklist_item_id}`, body), 400, 'VALIDATION_ERROR');
    }
    expect(await items(admin, task.task_id)).toEqual([['A', false]]);
  });

  it('401, 403, 404 (unknown ids, another task\'s item, another tenant)', async () => {
    const { admin, tenant } = await makeTenant(t);
    const { project, phase, task } = await makeProjectTree(admin);
    const otherTask = await makeTask(admin, project.project_id, phase.phase_id);
    const item = await add(admin, task.task_id, { item_name: 'Kept' });
    const base = `/api/v1/projects/tasks/${task.task_id}/checklist`;
    const one = `${base}/${item.checklist_item_id}`;
    const anon = anonymous(t);
    for (const res of [await anon.get(base), await anon.post(base, { item_name: 'x' }), await anon.put(one, { completed: true }), await anon.delete(one)]) expect(res.statusCode).toBe(401);
    const viewer = (await makeUser(t, tenant, { role: 'Viewer' })).api;
    expectStatus(await viewer.get(base), 200);
    expectError(await viewer.post(base, { item_name: 'x' }), 403, 'FORBIDDEN');
    expectError(await viewer.put(one, { completed: true }), 403, 'FORBIDDEN');
    expectError(await viewer.delete(one), 403, 'FORBIDDEN');
    expectError(await admin.get(`/api/v1/projects/tasks/${randomId()}/checklist`), 404, 'NOT_FOUND');
    expectError(await admin.post(`/api/v1/projects/tasks/${randomId()}/checklist`, { item_name: 'x' }), 404, 'NOT_FOUND');
    expectError(await admin.put(`${base}/${randomId()}`, { completed: true }), 404, 'NOT_FOUND');
    expectError(await admin.put(`/api/v1/projects/tasks/${otherTask.task_id}/checklist/${item.checklist_item_id}`, { completed: true }), 404, 'NOT_FOUND');
    expectError(await admin.delete(`/api/v1/projects/tasks/${otherTask.task_id}/checklist/${item.checklist_item_id}`), 404, 'NOT_FOUND');
    const b = await makeTenant(t);
    for (const res of [await b.admin.get(base), await b.admin.post(base, { item_name: 'x' }), await b.admin.put(one, { completed: true }), await b.admin.delete(one)]) expectError(res, 404, 'NOT_FOUND');
    expect(await items(admin, task.task_id)).toEqual([['Kept', false]]);
  });
});
